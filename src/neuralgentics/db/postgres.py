"""A PostgreSQL database as every store here uses it: a psycopg pool, one transaction per call,
retry of aborted transactions, a circuit breaker while the server is down, migrations by the one
runner, and every driver error mapped onto `db.errors` here, once.

`run(fn)` lends a pooled connection to `fn` inside a transaction (or without one for a single
read statement, `tx=False`); the pool commits when `fn` returns and rolls back when it raises. A
database that cannot be reached raises StoreUnavailable within a few seconds instead of hanging
a request; while it stays down, callers are refused at once and one caller probes.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable
from typing import TypeVar

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from neuralgentics.db import migrations as runner
from neuralgentics.db.errors import AlreadyExists, MissingReference, Rejected, StoreUnavailable

log = logging.getLogger(__name__)

T = TypeVar("T")

# How long callers are refused at once after the database was found unreachable.
BREAKER_SECONDS = 1.0


def describe_url(url: str) -> str:
    """The database a URL points to, without its password (for error messages and logs)."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "<unparseable database URL>"
    host = parts.get("host") or "localhost"
    port = parts.get("port") or "5432"
    return f"{parts.get('dbname') or parts.get('user') or '?'} on {host}:{port}"


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class PostgresDatabase:
    """`configure(conn)`: run on each new connection (types, session settings), before it is
    lent; it must leave the connection idle (commit)."""

    def __init__(
        self,
        url: str,
        *,
        name: str = "neuralgentics",
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 5.0,
        connect_timeout: int = 3,
        statement_timeout_ms: int = 30_000,
        configure: Callable[[psycopg.Connection], None] | None = None,
    ) -> None:
        self.url = url
        self.name = name
        self._timeout = float(timeout)
        self._connect_timeout = int(connect_timeout)
        self._statement_timeout_ms = int(statement_timeout_ms)
        self._min_size, self._max_size = int(min_size), int(max_size)
        self._configure_more = configure
        self._pool_lock = threading.Lock()
        self._closed = False
        self._down_reason: str | None = None
        self._breaker = threading.Lock()
        self._open_until = 0.0
        self._open_message = ""
        self._probing = False
        self._last_used: weakref.WeakKeyDictionary[psycopg.Connection, float] = (
            weakref.WeakKeyDictionary()
        )
        self._pool: ConnectionPool | None = None

    def described(self) -> str:
        return describe_url(self.url)

    # -- migrations --------------------------------------------------------------------------

    def migrate(
        self, component: str, migrations: list[runner.Migration], *, lock_timeout_s: int = 60
    ) -> list[int]:
        """Apply the component's pending migrations (before `open`, on a connection of its own)."""
        try:
            conn = psycopg.connect(self.url, connect_timeout=self._connect_timeout, autocommit=True)
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(
                f"cannot connect to PostgreSQL ({self.described()}): {first_line(exc)}"
            ) from exc
        with conn:
            try:
                return runner.migrate_postgres(
                    conn, component, migrations, lock_timeout_s=lock_timeout_s
                )
            except pg_errors.FeatureNotSupported as exc:
                raise StoreUnavailable(
                    f"PostgreSQL cannot run the schema: {first_line(exc)}"
                ) from exc
            except (pg_errors.UndefinedFile, pg_errors.InsufficientPrivilege) as exc:
                raise StoreUnavailable(
                    "the pgvector extension is missing or may not be created by this user "
                    f"({first_line(exc)}); install pgvector >= 0.8 and run "
                    "`CREATE EXTENSION vector` as a superuser in that database"
                ) from exc
            except psycopg.OperationalError as exc:
                raise StoreUnavailable(
                    f"migrating {self.described()} failed: {first_line(exc)}"
                ) from exc

    # -- the pool ----------------------------------------------------------------------------

    def open(self) -> PostgresDatabase:
        self._pool = self._open_pool()
        return self

    def _configure(self, conn: psycopg.Connection) -> None:
        conn.execute(f"SET statement_timeout = {self._statement_timeout_ms}")
        conn.execute("SET TimeZone = 'UTC'")
        if self._configure_more is not None:
            self._configure_more(conn)
        conn.commit()

    def _check(self, conn: psycopg.Connection) -> None:
        """Check a connection idle for a while before lending it (a recently used one is alive).

        The check costs a round trip; skipping it for busy connections keeps hot paths at one
        statement plus COMMIT, and a connection that died since is discarded after one failure.
        """
        if time.monotonic() - self._last_used.get(conn, 0.0) >= 2.0:
            ConnectionPool.check_connection(conn)

    def _open_pool(self) -> ConnectionPool:
        pool = ConnectionPool(
            self.url,
            min_size=self._min_size,
            max_size=self._max_size,
            timeout=self._timeout,
            kwargs={"connect_timeout": self._connect_timeout, "autocommit": True},
            configure=self._configure,
            # a connection broken by a server restart is replaced instead of failing a request
            check=self._check,
            reconnect_timeout=max(self._timeout * 6, 30.0),
            name=self.name,
            open=False,
        )
        try:
            pool.open(wait=True, timeout=self._timeout + self._connect_timeout)
        except PoolTimeout as exc:
            pool.close(timeout=1)
            raise StoreUnavailable(f"cannot connect to PostgreSQL ({self.described()})") from exc
        return pool

    def _recover(self, failed: ConnectionPool) -> bool:
        """After a pool timeout: True when a fresh pool now serves requests.

        The pool reconnects to a restarted server only on its exponential back-off schedule;
        when a direct connection works and the pool is not simply saturated, start a new pool.
        """
        with self._pool_lock:
            if self._closed:
                return False
            if self._pool is not failed:
                return True  # another thread already replaced it
            stats = failed.get_stats()
            if stats.get("pool_size", 0) - stats.get("pool_available", 0) >= self._max_size:
                return False  # every connection is busy: the server is up, just saturated
            try:
                psycopg.connect(self.url, connect_timeout=self._connect_timeout).close()
            except psycopg.Error as exc:
                self._down_reason = first_line(exc)
                return False
            try:
                self._pool = self._open_pool()
            except StoreUnavailable:
                return False
        failed.close(timeout=0)
        return True

    # -- running work ------------------------------------------------------------------------

    def run(
        self, fn: Callable[[psycopg.Connection], T], *, tx: bool = True, attempts: int = 3
    ) -> T:
        """Run fn in one transaction; map driver failures onto `db.errors`.

        Connections are in autocommit mode, so `tx=False` suits a read made of one statement
        (itself a transaction): it saves the BEGIN and COMMIT round trips.
        """
        self._check_breaker()
        try:
            return self._attempt(fn, tx=tx, attempts=attempts)
        except StoreUnavailable as exc:
            with self._breaker:
                self._open_until = time.monotonic() + BREAKER_SECONDS
                self._open_message = exc.message
            raise
        finally:
            with self._breaker:
                self._probing = False

    def _check_breaker(self) -> None:
        with self._breaker:
            if self._open_until == 0.0:
                return
            if time.monotonic() < self._open_until or self._probing:
                raise StoreUnavailable(f"{self._open_message} (checking again shortly)")
            self._probing = True  # this caller finds out whether it is back
            self._open_until = 0.0

    def _attempt(self, fn: Callable[[psycopg.Connection], T], *, tx: bool, attempts: int) -> T:
        for attempt in range(1, attempts + 1):
            pool = self._pool
            if pool is None:
                raise StoreUnavailable(f"PostgreSQL ({self.described()}) is not open")
            try:
                with pool.connection(timeout=self._timeout) as conn:
                    if tx:
                        with conn.transaction():
                            result = fn(conn)
                    else:
                        result = fn(conn)
                self._last_used[conn] = time.monotonic()
                return result
            except pg_errors.TransactionRollback:
                # a deadlock or serialization failure rolled everything back: safe to retry
                if attempt == attempts:
                    raise StoreUnavailable("the database kept aborting the transaction") from None
            except (PoolTimeout, PoolClosed) as exc:
                self._down_reason = None
                if attempt < attempts and self._recover(pool):
                    continue
                reason = self._down_reason or f"no free connection ({first_line(exc)})"
                raise StoreUnavailable(
                    f"PostgreSQL ({self.described()}) is unavailable: {reason}"
                ) from exc
            except pg_errors.CheckViolation as exc:
                raise Rejected(f"rejected by the database: {first_line(exc)}") from exc
            except pg_errors.UniqueViolation as exc:
                raise AlreadyExists(f"already exists: {first_line(exc)}") from exc
            except pg_errors.ForeignKeyViolation as exc:
                raise MissingReference(
                    f"a referenced row does not exist: {first_line(exc)}"
                ) from exc
            except (pg_errors.DataError, pg_errors.UntranslatableCharacter) as exc:
                raise Rejected(f"invalid value: {first_line(exc)}") from exc
            except psycopg.OperationalError as exc:
                raise StoreUnavailable(
                    f"PostgreSQL ({self.described()}) failed: {first_line(exc)}"
                ) from exc
            except psycopg.InterfaceError as exc:
                raise StoreUnavailable(f"PostgreSQL connection lost: {first_line(exc)}") from exc
        raise AssertionError("unreachable")

    def ping(self) -> None:
        self.run(lambda c: c.execute("SELECT 1").fetchone(), tx=False)

    def close(self) -> None:
        with self._pool_lock:
            self._closed = True
            pool = self._pool
        if pool is not None:
            pool.close(timeout=5)
