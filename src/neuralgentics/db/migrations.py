"""The one migration runner: every component's schema, on SQLite and on PostgreSQL.

A component (``memini``, ``tasks``, ``audit``) ships its migrations as ``NNN_name.sql`` files in a
package folder per backend (``<package>/sqlite/``, ``<package>/postgres/``). They are applied in
version order, each in one transaction with its bookkeeping row, so a migration lands whole or
not at all. The bookkeeping table ``schema_versions`` keys rows by (component, version) and keeps
each file's checksum; a file changed after it was applied is reported, not run again.

A migration whose rows need Python to compute (memini's de-duplication keys: a hash no SQL
dialect here computes alike) names a `step` when its component lists it: a function run on the
same connection right after the file's SQL, in the same transaction.

Databases written before this runner kept memini's versions in ``schema_migrations``; those rows
are adopted as component ``memini`` the first time (the old table is left as it was).
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from typing import Any

log = logging.getLogger(__name__)

BOOKKEEPING = "schema_versions"
LEGACY = "schema_migrations"  # memini's bookkeeping before this runner
LEGACY_COMPONENT = "memini"
# PostgreSQL: any constant works; it only has to be the same for every process migrating
PG_LOCK_KEY = 0x6E6D656D_696E6931 & 0x7FFFFFFF_FFFFFFFF


# A Python part of a migration: called with the migrating connection (sqlite3 or psycopg),
# inside the migration's transaction.
Step = Callable[[Any], None]


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str
    step: Step | None = None

    @property
    def checksum(self) -> str:
        # the step's name, not its code: a step is fixed once released, as a file is
        text = self.sql if self.step is None else f"{self.sql}\n-- step {self.step.__qualname__}"
        return hashlib.sha256(text.encode()).hexdigest()


def load(package: str, backend: str, steps: dict[int, Step] | None = None) -> list[Migration]:
    """The migrations of a component for one backend: the `.sql` files in ``<package>/<backend>/``,
    ordered by the number their name starts with; `steps` gives a version its Python part."""
    folder = resources.files(package) / backend
    found = []
    for entry in folder.iterdir():
        if not entry.name.endswith(".sql"):
            continue
        number, _, rest = entry.name.partition("_")
        if not number.isdigit():
            raise ValueError(f"migration file {entry.name} must start with its version number")
        version = int(number)
        found.append(
            Migration(
                version,
                rest.removesuffix(".sql"),
                entry.read_text(encoding="utf-8"),
                (steps or {}).get(version),
            )
        )
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise ValueError(f"two migrations of {package}/{backend} share a version number")
    if set(steps or {}) - set(versions):
        raise ValueError(f"a step of {package}/{backend} names no migration file")
    return sorted(found, key=lambda m: m.version)


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _pending(
    component: str, migrations: list[Migration], done: dict[int, str | None]
) -> list[Migration]:
    out = []
    for m in migrations:
        if m.version in done:
            if done[m.version] not in (None, m.checksum):
                log.warning(
                    "%s migration %04d_%s changed after it was applied",
                    component,
                    m.version,
                    m.name,
                )
            continue
        out.append(m)
    return out


# -- SQLite --------------------------------------------------------------------------------

_SQLITE_BOOKKEEPING = (
    f"CREATE TABLE IF NOT EXISTS {BOOKKEEPING} ("
    " component TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL,"
    " checksum TEXT, applied_at TEXT NOT NULL, PRIMARY KEY (component, version))"
)


def migrate_sqlite(
    conn: sqlite3.Connection, component: str, migrations: list[Migration]
) -> list[int]:
    """Apply pending migrations on an autocommit connection; returns the versions applied now."""
    _sqlite_bookkeeping(conn, migrations if component == LEGACY_COMPONENT else None)
    done = {
        v: c
        for v, c in conn.execute(
            f"SELECT version, checksum FROM {BOOKKEEPING} WHERE component = ?", (component,)
        )
    }
    applied = []
    for m in _pending(component, migrations, done):
        # One script, one transaction: applied whole or not at all. BEGIN IMMEDIATE takes the
        # write lock first, so a second process waits and then finds the version recorded.
        record = (
            f"\nINSERT OR IGNORE INTO {BOOKKEEPING}"
            " (component, version, name, checksum, applied_at) VALUES ("
            + ", ".join(_sql_literal(v) for v in (component, m.version, m.name, m.checksum, _now()))
            + ");\nCOMMIT;"
        )
        if m.step is None:
            conn.executescript("BEGIN IMMEDIATE;\n" + m.sql + record)
        else:
            # the same transaction, with the step between the file's SQL and the bookkeeping
            # (statement by statement: executescript would commit what is pending first)
            conn.execute("BEGIN IMMEDIATE")
            try:
                for statement in _sqlite_statements(m.sql):
                    conn.execute(statement)
                m.step(conn)
                conn.execute(
                    f"INSERT OR IGNORE INTO {BOOKKEEPING} (component, version, name, checksum,"
                    " applied_at) VALUES (?, ?, ?, ?, ?)",
                    (component, m.version, m.name, m.checksum, _now()),
                )
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        applied.append(m.version)
        log.info("applied %s migration %03d_%s", component, m.version, m.name)
    return applied


def _sqlite_statements(script: str) -> list[str]:
    """A script's statements, split where SQLite says one is complete (a trigger's body holds
    semicolons of its own)."""
    out: list[str] = []
    pending = ""
    for part in script.split(";"):
        pending += part + ";"
        if sqlite3.complete_statement(pending):
            code = [ln for ln in pending.splitlines() if not ln.strip().startswith("--")]
            if "\n".join(code).strip(" \t\n;"):
                out.append(pending)
            pending = ""
    return out


def _sqlite_bookkeeping(conn: sqlite3.Connection, legacy: list[Migration] | None) -> None:
    conn.execute(_SQLITE_BOOKKEEPING)
    if legacy is None:
        return
    has_legacy = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (LEGACY,)
    ).fetchone()
    if not has_legacy:
        return
    checksums = {m.version: m.checksum for m in legacy}
    rows = conn.execute(f"SELECT version, name, applied_at FROM {LEGACY}").fetchall()
    conn.executemany(
        f"INSERT OR IGNORE INTO {BOOKKEEPING} (component, version, name, checksum, applied_at)"
        " VALUES (?, ?, ?, ?, ?)",
        [(LEGACY_COMPONENT, v, n, checksums.get(v), a) for v, n, a in rows],
    )


def _sql_literal(value: Any) -> str:
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def sqlite_version(conn: sqlite3.Connection, component: str) -> int:
    row = conn.execute(
        f"SELECT max(version) FROM {BOOKKEEPING} WHERE component = ?", (component,)
    ).fetchone()
    return int(row[0] or 0)


# -- PostgreSQL ----------------------------------------------------------------------------

_PG_BOOKKEEPING = (
    f"CREATE TABLE IF NOT EXISTS {BOOKKEEPING} ("
    " component TEXT NOT NULL, version INT NOT NULL, name TEXT NOT NULL, checksum TEXT,"
    " applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (component, version))"
)


def migrate_postgres(
    conn: Any,
    component: str,
    migrations: list[Migration],
    *,
    lock_timeout_s: int = 60,
    on_each: Callable[[Migration], None] | None = None,
) -> list[int]:
    """Apply pending migrations over an autocommit psycopg connection, under an advisory lock
    (two processes starting at once: each migration runs once). Driver errors propagate: the
    caller (`PostgresDatabase.migrate`) maps them."""
    applied: list[int] = []
    conn.execute(f"SET lock_timeout = '{int(lock_timeout_s)}s'")
    conn.execute("SELECT pg_advisory_lock(%s)", [PG_LOCK_KEY])
    try:
        conn.execute(_PG_BOOKKEEPING)
        if component == LEGACY_COMPONENT:
            _pg_adopt_legacy(conn, migrations)
        done = {
            v: c
            for v, c in conn.execute(
                f"SELECT version, checksum FROM {BOOKKEEPING} WHERE component = %s", [component]
            )
        }
        for m in _pending(component, migrations, done):
            with conn.transaction():
                conn.execute(m.sql)
                if m.step is not None:
                    m.step(conn)
                conn.execute(
                    f"INSERT INTO {BOOKKEEPING} (component, version, name, checksum)"
                    " VALUES (%s, %s, %s, %s)",
                    [component, m.version, m.name, m.checksum],
                )
            applied.append(m.version)
            log.info("applied %s migration %04d_%s", component, m.version, m.name)
            if on_each is not None:
                on_each(m)
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", [PG_LOCK_KEY])
    return applied


def _pg_adopt_legacy(conn: Any, migrations: list[Migration]) -> None:
    exists = conn.execute("SELECT to_regclass(%s)", [LEGACY]).fetchone()[0]
    if exists is None:
        return
    conn.execute(
        f"INSERT INTO {BOOKKEEPING} (component, version, name, checksum, applied_at)"
        f" SELECT %s, version, name, checksum, applied_at FROM {LEGACY}"
        " ON CONFLICT (component, version) DO NOTHING",
        [LEGACY_COMPONENT],
    )
