"""The queries export and import need, on both stores (memini/portability uses them).

Export reads memories in a fixed order — (created_at, id), the same on both stores — page by
page (keyset), so a stream never holds a cursor across pages (SQLite connections are per
thread, and a streamed response may resume on another thread). Import writes rows as they were
(their ids, timestamps, trust history, edges) through a `Writer` that lives inside one
transaction: `in_transaction` commits when the function returns and rolls everything back when
it raises.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

import numpy as np

from neuralgentics.memini.store import cycles
from neuralgentics.memini.store.base import (
    Memory,
    MemoryFilter,
    Relationship,
    Store,
    TrustEvent,
    to_milli,
)
from neuralgentics.memini.store.batches import in_batches

T = TypeVar("T")
PAGE = 500


@dataclass
class Row:
    """A memory as export writes it: the memory, its vector, its trust history (oldest first)."""

    memory: Memory
    embedding: np.ndarray | None
    events: list[TrustEvent]
    # where the next page starts: (created_at as the store holds it, id)
    cursor: tuple[Any, str] = ("", "")


@dataclass
class ImportedMemory:
    memory: Memory  # content_hash filled; superseded_by ignored (recomputed from the edges)
    embedding: np.ndarray
    events: list[TrustEvent]  # ids ignored; kept in this order


class Writer(Protocol):
    """Reads and writes inside the one transaction of an import."""

    def memory(self, memory_id: str) -> Memory | None: ...

    def memories(self, ids: list[str]) -> dict[str, Memory]: ...

    def events(self, ids: list[str]) -> dict[str, list[TrustEvent]]:
        """Trust history of each memory, oldest first (absent: none)."""
        ...

    def ids_by_hash(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """(project, content_hash) -> the id of the memory holding it, for those held."""
        ...

    def relationship(self, relationship_id: str) -> Relationship | None: ...

    def edge_id(self, source_id: str, target_id: str, relationship_type: str) -> str | None: ...

    def reaches(self, start: str, goal: str) -> bool:
        """`goal` is `start` or one it supersedes, directly or through others."""
        ...

    def insert_memories(self, rows: list[ImportedMemory]) -> None: ...

    def bulk(self, adding: int) -> None:
        """About to add up to `adding` memories: the store may prepare (PostgreSQL: see there)."""
        ...

    def bulk_done(self) -> None: ...

    def insert_relationship(self, rel: Relationship) -> None: ...

    def refresh_superseded(self, ids: Iterable[str]) -> None:
        """superseded_by of these memories from their SUPERSEDES edges (the stores' rule)."""
        ...


def utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


# -- export ---------------------------------------------------------------------------------


def memory_pages(
    store: Store, flt: MemoryFilter, *, with_embeddings: bool = True, page: int | None = None
) -> Iterable[list[Row]]:
    page = page or PAGE
    after: tuple[Any, str] | None = None
    while True:
        rows = (_sqlite_page if store.kind == "sqlite" else _pg_page)(
            store, flt, after, page, with_embeddings
        )
        if not rows:
            return
        yield rows
        after = rows[-1].cursor


def relationship_pages(store: Store, *, page: int | None = None) -> Iterable[list[Relationship]]:
    """Every edge, ordered by (created_at, id)."""
    page = page or PAGE
    after: tuple[Any, str] | None = None
    while True:
        rels, after = (_sqlite_edges if store.kind == "sqlite" else _pg_edges)(store, after, page)
        if not rels:
            return
        yield rels


def in_transaction(store: Store, fn: Callable[[Writer], T]) -> T:
    if store.kind == "sqlite":
        with store.db.transaction() as conn:  # type: ignore[attr-defined]
            result = fn(_SQLiteWriter(conn))
    else:
        # PostgresDatabase.run retries a transaction the database aborted: fn must start afresh
        result = store.db.run(lambda conn: fn(_PgWriter(conn)))  # type: ignore[attr-defined]
    store.generation.bump()  # committed (memini/generation.py)
    return result


# -- SQLite ---------------------------------------------------------------------------------


def _sqlite_ts(value: datetime) -> str:
    return utc(value).isoformat(timespec="microseconds")


def _sqlite_page(
    store: Any, flt: MemoryFilter, after: tuple[Any, str] | None, page: int, vectors: bool
) -> list[Row]:
    from neuralgentics.memini.store.sqlite import _MEMORY_COLUMNS, _memory, _where

    width = _MEMORY_COLUMNS.count(",") + 1  # the memory's columns; the embedding after them
    from neuralgentics.memini.store.vectors import from_blob

    where, params = _where(flt)
    if after is not None:
        # the stored text itself: the order and the cursor are SQLite's, whatever its format
        where += " AND (m.created_at, m.id) > (?, ?)"
        params = [*params, after[0], after[1]]
    conn = store.db.connection()
    fetched = conn.execute(
        f"SELECT {_MEMORY_COLUMNS}, m.embedding FROM memories m WHERE {where}"
        " ORDER BY m.created_at, m.id LIMIT ?",
        [*params, page],
    ).fetchall()
    events = _sqlite_events(conn, [r[0] for r in fetched])
    return [
        Row(
            _memory(r[:width]),
            from_blob(r[width]).copy() if vectors else None,
            events.get(r[0], []),
            (r[8], r[0]),
        )
        for r in fetched
    ]


def _sqlite_events(conn: sqlite3.Connection, ids: list[str]) -> dict[str, list[TrustEvent]]:
    from neuralgentics.memini.store.sqlite import _trust_event

    found: dict[str, list[TrustEvent]] = {}
    for part, marks in in_batches(ids):
        for row in conn.execute(
            "SELECT id, memory_id, event, delta_milli, actor, score_after_milli, note, created_at,"
            f" origin, session FROM trust_events WHERE memory_id IN ({marks}) ORDER BY id",
            part,
        ):
            found.setdefault(row[1], []).append(_trust_event(row))
    return found


_SQLITE_REL = "id, source_id, target_id, relationship_type, confidence, created_at, metadata"


def _sqlite_edges(
    store: Any, after: tuple[Any, str] | None, page: int
) -> tuple[list[Relationship], tuple[Any, str] | None]:
    """A page of edges and where the next starts (the stored created_at text, the id)."""
    from neuralgentics.memini.store.sqlite import _relationship

    where, params = "1", []
    if after is not None:
        where, params = "(created_at, id) > (?, ?)", [after[0], after[1]]
    rows = (
        store.db.connection()
        .execute(
            f"SELECT {_SQLITE_REL} FROM memory_relationships WHERE {where}"
            " ORDER BY created_at, id LIMIT ?",
            [*params, page],
        )
        .fetchall()
    )
    return [_relationship(r) for r in rows], ((rows[-1][5], rows[-1][0]) if rows else None)


class _SQLiteWriter:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def memory(self, memory_id: str) -> Memory | None:
        from neuralgentics.memini.store.sqlite import _MEMORY_COLUMNS, _memory

        row = self.conn.execute(
            f"SELECT {_MEMORY_COLUMNS} FROM memories m WHERE m.id = ?", (memory_id,)
        ).fetchone()
        return _memory(row) if row else None

    def memories(self, ids: list[str]) -> dict[str, Memory]:
        from neuralgentics.memini.store.sqlite import _MEMORY_COLUMNS, _memory

        found: dict[str, Memory] = {}
        for part, marks in in_batches(ids):
            for row in self.conn.execute(
                f"SELECT {_MEMORY_COLUMNS} FROM memories m WHERE m.id IN ({marks})", part
            ):
                found[row[0]] = _memory(row)
        return found

    def events(self, ids: list[str]) -> dict[str, list[TrustEvent]]:
        return _sqlite_events(self.conn, ids)

    def ids_by_hash(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
        found: dict[tuple[str, str], str] = {}
        for project, content_hash in keys:  # each an index lookup, no round trip
            row = self.conn.execute(
                "SELECT id FROM memories WHERE project = ? AND content_hash = ?",
                (project, content_hash),
            ).fetchone()
            if row:
                found[(project, content_hash)] = row[0]
        return found

    def relationship(self, relationship_id: str) -> Relationship | None:
        from neuralgentics.memini.store.sqlite import _relationship

        row = self.conn.execute(
            f"SELECT {_SQLITE_REL} FROM memory_relationships WHERE id = ?", (relationship_id,)
        ).fetchone()
        return _relationship(row) if row else None

    def edge_id(self, source_id: str, target_id: str, relationship_type: str) -> str | None:
        row = self.conn.execute(
            "SELECT id FROM memory_relationships WHERE source_id = ? AND target_id = ?"
            " AND relationship_type = ?",
            (source_id, target_id, relationship_type),
        ).fetchone()
        return row[0] if row else None

    def reaches(self, start: str, goal: str) -> bool:
        return self.conn.execute(cycles.REACHES.format(p="?"), (start, goal)).fetchone() is not None

    def insert_memories(self, rows: list[ImportedMemory]) -> None:
        for row in rows:
            self._insert(row)

    def bulk(self, adding: int) -> None:
        pass  # usearch takes the new vectors from vector_log after the commit, in bulk

    def bulk_done(self) -> None:
        pass

    def _insert(self, row: ImportedMemory) -> None:
        from neuralgentics.memini.store.vectors import to_blob

        m = row.memory
        cur = self.conn.execute(
            "INSERT INTO memories (id, content, embedding, trust_score, source_type, created_at,"
            " updated_at, metadata, project, tags, content_hash, scope, agent, session)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                m.id,
                m.content,
                to_blob(row.embedding),
                to_milli(m.trust_score) / 1000.0,
                m.source_type,
                _sqlite_ts(m.created_at),
                _sqlite_ts(m.updated_at),
                json.dumps(m.metadata),
                m.project,
                json.dumps(m.tags),
                m.content_hash,
                m.scope,
                m.agent,
                m.session,
            ),
        )
        self.conn.executemany(
            "INSERT INTO memory_tags (memory_rowid, tag) VALUES (?, ?)",
            [(cur.lastrowid, t) for t in m.tags],
        )
        self.conn.executemany(
            # imported history is the import's, whatever the file says (issue 28)
            "INSERT INTO trust_events (memory_id, event, delta_milli, actor, score_after_milli,"
            " note, created_at, origin) VALUES (?,?,?,?,?,?,?,'import')",
            [
                (
                    m.id,
                    e.event,
                    to_milli(e.delta),
                    e.actor,
                    to_milli(e.score_after),
                    e.note,
                    _sqlite_ts(e.created_at),
                )
                for e in row.events
            ],
        )

    def insert_relationship(self, rel: Relationship) -> None:
        self.conn.execute(
            "INSERT INTO memory_relationships (id, source_id, target_id, relationship_type,"
            " confidence, created_at, metadata) VALUES (?,?,?,?,?,?,?)",
            (
                rel.id,
                rel.source_id,
                rel.target_id,
                rel.relationship_type,
                rel.confidence,
                _sqlite_ts(rel.created_at),
                json.dumps(rel.metadata),
            ),
        )

    def refresh_superseded(self, ids: Iterable[str]) -> None:
        from neuralgentics.memini.store.sqlite import _SET_SUPERSEDED_BY

        for part, marks in in_batches(list(ids)):
            self.conn.execute(_SET_SUPERSEDED_BY.format(marks=marks), part)


# -- PostgreSQL -----------------------------------------------------------------------------


def _pg_page(
    store: Any, flt: MemoryFilter, after: tuple[Any, str] | None, page: int, vectors: bool
) -> list[Row]:
    from neuralgentics.memini.store.postgres import _MEMORY_COLUMNS, _row_to_memory, _where

    width = _MEMORY_COLUMNS.count(",") + 1  # the memory's columns; the embedding after them

    where, params = _where(flt)
    if after is not None:
        where += " AND (created_at, id) > (%s, %s)"
        params = [*params, after[0], uuid.UUID(after[1])]
    columns = f"{_MEMORY_COLUMNS}, embedding" if vectors else _MEMORY_COLUMNS

    def op(conn: Any) -> list[Row]:
        fetched = conn.execute(
            f"SELECT {columns} FROM memories WHERE {where} ORDER BY created_at, id LIMIT %s",
            [*params, page],
        ).fetchall()
        events = _pg_events(conn, [r[0] for r in fetched])
        return [
            Row(
                _row_to_memory(r[:width]),
                _pg_vector(r[width]) if vectors else None,
                events.get(str(r[0]), []),
                (r[8], str(r[0])),
            )
            for r in fetched
        ]

    result: list[Row] = store.db.run(op)  # one transaction: the page and its events agree
    return result


def _pg_vector(value: Any) -> np.ndarray:
    # pgvector >= 0.4 loads a Vector object; older versions loaded an ndarray
    value = value.to_numpy() if hasattr(value, "to_numpy") else value
    return np.asarray(value, dtype=np.float32)


def _pg_events(conn: Any, ids: list[Any]) -> dict[str, list[TrustEvent]]:
    from neuralgentics.memini.store.postgres import _EVENT_COLUMNS, _row_to_event

    found: dict[str, list[TrustEvent]] = {}
    if not ids:
        return found
    for row in conn.execute(
        f"SELECT {_EVENT_COLUMNS} FROM trust_events WHERE memory_id = ANY(%s) ORDER BY id",
        [ids],
    ).fetchall():
        found.setdefault(str(row[1]), []).append(_row_to_event(row))
    return found


def _pg_edges(
    store: Any, after: tuple[Any, str] | None, page: int
) -> tuple[list[Relationship], tuple[Any, str] | None]:
    from neuralgentics.memini.store.postgres import _REL_COLUMNS, _row_to_relationship

    where, params = "TRUE", []
    if after is not None:
        where, params = "(created_at, id) > (%s, %s)", [after[0], uuid.UUID(after[1])]
    rows = store.db.run(
        lambda c: c.execute(
            f"SELECT {_REL_COLUMNS} FROM memory_relationships WHERE {where}"
            " ORDER BY created_at, id LIMIT %s",
            [*params, page],
        ).fetchall(),
        tx=False,
    )
    return [_row_to_relationship(r) for r in rows], (
        (rows[-1][5], str(rows[-1][0])) if rows else None
    )


# Inserting into pgvector's HNSW index costs ~2.4 ms a row here (0.26 ms without it): an import
# that at least doubles the table drops the index and builds it again at the end, in the same
# transaction (queries on memories wait for the import meanwhile). Its definition is read from
# the catalog, so it is rebuilt exactly as the migrations made it.
_VECTOR_INDEX = "memories_embedding_hnsw"


class _PgWriter:
    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self._rebuild: str | None = None

    def bulk(self, adding: int) -> None:
        held = self.conn.execute("SELECT count(*) FROM memories").fetchone()[0]
        if adding < max(held, 1_000):
            return
        row = self.conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = 'memories' AND indexname = %s",
            [_VECTOR_INDEX],
        ).fetchone()
        if row is None:
            return
        self.conn.execute(f"DROP INDEX {_VECTOR_INDEX}")
        self._rebuild = row[0]

    def bulk_done(self) -> None:
        if self._rebuild is not None:
            self.conn.execute(self._rebuild)
            self._rebuild = None

    def memory(self, memory_id: str) -> Memory | None:
        from neuralgentics.memini.store.postgres import _MEMORY_COLUMNS, _row_to_memory

        row = self.conn.execute(
            f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE id = %s", [uuid.UUID(memory_id)]
        ).fetchone()
        return _row_to_memory(row) if row else None

    def memories(self, ids: list[str]) -> dict[str, Memory]:
        from neuralgentics.memini.store.postgres import _MEMORY_COLUMNS, _row_to_memory

        if not ids:
            return {}
        rows = self.conn.execute(
            f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE id = ANY(%s)",
            [[uuid.UUID(i) for i in ids]],
        ).fetchall()
        return {str(r[0]): _row_to_memory(r) for r in rows}

    def events(self, ids: list[str]) -> dict[str, list[TrustEvent]]:
        return _pg_events(self.conn, [uuid.UUID(i) for i in ids])

    def ids_by_hash(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
        if not keys:
            return {}
        rows = self.conn.execute(
            "SELECT m.project, m.content_hash, m.id FROM memories m"
            " JOIN unnest(%s::text[], %s::text[]) AS k(project, content_hash)"
            " ON m.project = k.project AND m.content_hash = k.content_hash",
            [[k[0] for k in keys], [k[1] for k in keys]],
        ).fetchall()
        return {(r[0], r[1]): str(r[2]) for r in rows}

    def relationship(self, relationship_id: str) -> Relationship | None:
        from neuralgentics.memini.store.postgres import _REL_COLUMNS, _row_to_relationship

        row = self.conn.execute(
            f"SELECT {_REL_COLUMNS} FROM memory_relationships WHERE id = %s",
            [uuid.UUID(relationship_id)],
        ).fetchone()
        return _row_to_relationship(row) if row else None

    def edge_id(self, source_id: str, target_id: str, relationship_type: str) -> str | None:
        row = self.conn.execute(
            "SELECT id FROM memory_relationships WHERE source_id = %s AND target_id = %s"
            " AND relationship_type = %s",
            [uuid.UUID(source_id), uuid.UUID(target_id), relationship_type],
        ).fetchone()
        return str(row[0]) if row else None

    def reaches(self, start: str, goal: str) -> bool:
        row = self.conn.execute(
            cycles.REACHES.format(p="%s"), [uuid.UUID(start), uuid.UUID(goal)]
        ).fetchone()
        return row is not None

    def insert_memories(self, rows: list[ImportedMemory]) -> None:
        from psycopg.types.json import Jsonb

        if not rows:
            return
        # executemany pipelines the statements: one round trip per batch, not per row
        with self.conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO memories (id, content, embedding, trust_score, source_type, project,"
                " tags, metadata, content_hash, created_at, updated_at, scope, agent, session)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                [
                    (
                        uuid.UUID(r.memory.id),
                        r.memory.content,
                        r.embedding,
                        to_milli(r.memory.trust_score) / 1000,
                        r.memory.source_type,
                        r.memory.project,
                        r.memory.tags,
                        Jsonb(r.memory.metadata),
                        r.memory.content_hash,
                        r.memory.created_at,
                        r.memory.updated_at,
                        r.memory.scope,
                        r.memory.agent,
                        r.memory.session,
                    )
                    for r in rows
                ],
            )
            events = [
                (
                    uuid.UUID(r.memory.id),
                    e.event,
                    to_milli(e.delta),
                    e.actor,
                    to_milli(e.score_after),
                    e.note,
                    e.created_at,
                )
                for r in rows
                for e in r.events
            ]
            if events:
                cur.executemany(
                    # imported history is the import's, whatever the file says (issue 28)
                    "INSERT INTO trust_events (memory_id, event, delta_milli, actor,"
                    " score_after_milli, note, created_at, origin)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s, 'import')",
                    events,
                )

    def insert_relationship(self, rel: Relationship) -> None:
        from psycopg.types.json import Jsonb

        self.conn.execute(
            "INSERT INTO memory_relationships (id, source_id, target_id, relationship_type,"
            " confidence, created_at, metadata) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            [
                uuid.UUID(rel.id),
                uuid.UUID(rel.source_id),
                uuid.UUID(rel.target_id),
                rel.relationship_type,
                rel.confidence,
                rel.created_at,
                Jsonb(rel.metadata),
            ],
        )

    def refresh_superseded(self, ids: Iterable[str]) -> None:
        from neuralgentics.memini.store.postgres import _SET_SUPERSEDED_BY

        wanted = [uuid.UUID(i) for i in ids]
        if wanted:
            self.conn.execute(_SET_SUPERSEDED_BY, [wanted])
