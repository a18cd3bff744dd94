"""The memory store on PostgreSQL + pgvector (used when NEURALGENTICS_DATABASE_URL is set).

Only queries live here: the pool, retries, the circuit breaker, error mapping and migrations are
`neuralgentics.db.postgres.PostgresDatabase` (`self.db`), one transaction per Store method.
Vectors live in an HNSW cosine index; keywords in a generated tsvector column with a GIN index.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import errors as pg_errors
from psycopg.types.json import Jsonb

from neuralgentics.db.postgres import PostgresDatabase
from neuralgentics.memini import scopes
from neuralgentics.memini.errors import Conflict, InvalidInput, NotFound
from neuralgentics.memini.generation import Generation
from neuralgentics.memini.store import cycles, repair
from neuralgentics.memini.store.base import (
    ID_TABLES,
    IdKind,
    Memory,
    MemoryFilter,
    MemoryPatch,
    NewLink,
    NewMemory,
    ProjectMove,
    Relationship,
    TrustChange,
    TrustEvent,
    from_milli,
    to_milli,
)
from neuralgentics.memini.store.migrations import COMPONENT, migrations
from neuralgentics.memini.store.validate import (
    check_change,
    check_filter,
    check_new_link,
    check_new_memory,
    check_patch,
    check_vector,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

# Serialises SUPERSEDES inserts (cycle check); any constant distinct from the migration lock.
_SUPERSEDES_LOCK_KEY = 0x6E6D656D_73757072 & 0x7FFFFFFF_FFFFFFFF
_MAX_K = 1000
_MAX_QUERY_WORDS = 64
_MAX_LIST_LIMIT = 1000

_MEMORY_COLUMNS = (
    "id, content, trust_score, source_type, project, tags, metadata, content_hash, "
    "created_at, updated_at, superseded_by, scope, agent, session, "
    "origin, origin_project, quarantined"
)
_REL_COLUMNS = "id, source_id, target_id, relationship_type, confidence, created_at, metadata"
_EVENT_COLUMNS = (
    "id, memory_id, event, delta_milli, actor, score_after_milli, created_at, note, origin, session"
)


def _present(row: tuple | None) -> tuple:
    """A row a statement always returns (a count, an UPDATE of a row locked above, an INSERT)."""
    assert row is not None
    return row


def _one(cursor: psycopg.Cursor) -> tuple:
    return _present(cursor.fetchone())


def _as_uuid(value: str | uuid.UUID) -> uuid.UUID | None:
    """A malformed id is an id that exists nowhere (the HTTP layer rejects it with a 422 first)."""
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def _row_to_memory(row: tuple) -> Memory:
    # JSONB and UTF8 text cannot hold undecodable text, but a row written by hand or by another
    # tool can hold metadata that is not an object or tags with NULLs (store/repair.py)
    fix = repair.Repairs("memory", row[0])
    memory = Memory(
        id=str(row[0]),
        content=row[1],
        trust_score=float(row[2]),
        source_type=row[3],
        project=row[4],
        tags=repair.tags(row[5], fix),
        metadata=repair.metadata(row[6], fix),
        content_hash=row[7],
        created_at=row[8],
        updated_at=row[9],
        superseded_by=str(row[10]) if row[10] is not None else None,
        scope=row[11],
        agent=row[12],
        session=row[13],
        origin=row[14],
        origin_project=row[15],
        quarantined=bool(row[16]),
    )
    fix.report()
    return memory


def _row_to_relationship(row: tuple) -> Relationship:
    fix = repair.Repairs("relationship", row[0])
    rel = Relationship(
        id=str(row[0]),
        source_id=str(row[1]),
        target_id=str(row[2]),
        relationship_type=row[3],
        confidence=float(row[4]),
        created_at=row[5],
        metadata=repair.metadata(row[6], fix),
    )
    fix.report()
    return rel


def _row_to_event(row: tuple) -> TrustEvent:
    return TrustEvent(
        id=int(row[0]),
        memory_id=str(row[1]),
        event=row[2],
        delta=from_milli(row[3]),
        actor=row[4],
        score_after=from_milli(row[5]),
        created_at=row[6],
        note=row[7],
        origin=row[8],
        session=row[9],
    )


def _where(flt: MemoryFilter) -> tuple[str, list[Any]]:
    """SQL condition (on unaliased memories columns) for a filter, and its parameters."""
    check_filter(flt)
    clauses: list[str] = []
    params: list[Any] = []
    if flt.owners is not None:
        owned, owner_params = scopes.owner_sql(flt.owners, "%s")
        clauses.append(owned)
        params += owner_params
    elif flt.project is not None:
        clauses.append("project = %s AND scope = 'project'")
        params.append(flt.project)
    if flt.source_type is not None:
        clauses.append("source_type = %s")
        params.append(flt.source_type)
    if flt.tags:
        clauses.append("tags @> %s::text[]")
        params.append(list(flt.tags))
    if flt.min_trust is not None:
        clauses.append("trust_score >= %s")
        params.append(float(flt.min_trust))
    if not flt.include_superseded:
        clauses.append("superseded_by IS NULL")
    return (" AND ".join(clauses) or "TRUE"), params


def query_words(text: str) -> list[str]:
    """The distinct words of a user's text, lowercased, at most 64.

    Only word characters survive, so nothing a user types can be a tsquery syntax error
    (operators, quotes, parentheses and backslashes act as separators).
    """
    return list(dict.fromkeys(re.findall(r"\w+", text.lower())))[:_MAX_QUERY_WORDS]


def _quoted(lexemes: Iterable[str], op: str) -> str:
    # lexemes come from to_tsvector over word characters only: nothing to escape but a quote
    return f" {op} ".join("'" + lex.replace("'", "''") + "'" for lex in lexemes)


_SET_SUPERSEDED_BY = """
UPDATE memories m SET superseded_by = (
    SELECT r.source_id FROM memory_relationships r
    WHERE r.target_id = m.id AND r.relationship_type = 'SUPERSEDES'
    ORDER BY r.created_at DESC, r.id DESC LIMIT 1)
WHERE m.id = ANY(%s)
"""


class PostgresStore:
    """Store on PostgreSQL >= 14 with pgvector >= 0.5 (0.8 for iterative filtered scans)."""

    kind = "postgres"

    def __init__(
        self,
        url: str,
        *,
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 5.0,
        connect_timeout: int = 3,
        ef_search: int = 100,
        statement_timeout_ms: int = 30_000,
        run_migrations: bool = True,
    ) -> None:
        self.url = url
        self.ef_search = int(ef_search)
        # keyword search: see keyword_search
        self.keyword_budget = 2000  # rows the selecting words may match
        self.keyword_candidates = 5000  # rows ranked at most
        self._stats_cache: tuple[float, tuple[float, dict[str, float], float]] | None = None
        self.generation = Generation()
        self.db = PostgresDatabase(
            url,
            name="memini",
            min_size=min_size,
            max_size=max_size,
            timeout=timeout,
            connect_timeout=connect_timeout,
            statement_timeout_ms=statement_timeout_ms,
            configure=self._configure,
        )
        if run_migrations:
            self.db.migrate(COMPONENT, migrations("postgres"))
        self.db.open()
        # e.g. (0, 8, 6); below (0, 8) filtered queries rely on the exact fallback only
        self.pgvector_version = self._pgvector_version()

    def _configure(self, conn: psycopg.Connection) -> None:
        register_vector(conn)
        # session-wide so a query needs no extra round trip to set them
        conn.execute("SELECT set_config('hnsw.ef_search', %s, false)", [str(self.ef_search)])
        row = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()
        if row and tuple(int(p) for p in re.findall(r"\d+", row[0])[:2]) >= (0, 8):
            # filtered queries keep walking the graph until enough rows pass the filter
            conn.execute("SET hnsw.iterative_scan = relaxed_order")

    def _pgvector_version(self) -> tuple[int, ...]:
        row = self._run(
            lambda c: c.execute(
                "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
            ).fetchone(),
            tx=False,
        )
        return tuple(int(p) for p in re.findall(r"\d+", row[0])[:3]) if row else (0,)

    def _run(
        self,
        fn: Callable[[psycopg.Connection], T],
        *,
        tx: bool = True,
        attempts: int = 3,
        writes: bool | None = None,
    ) -> T:
        """`fn` on a pooled connection; a transaction unless `tx=False`. A transaction is a
        write (`writes`, default `tx`): once committed it bumps the generation."""
        result = self.db.run(fn, tx=tx, attempts=attempts)
        if tx if writes is None else writes:
            self.generation.bump()
        return result

    # --- memories ---------------------------------------------------------------------------

    def add_memory(
        self,
        new: NewMemory,
        *,
        on_duplicate: TrustChange | None = None,
        links: Sequence[NewLink] = (),
    ) -> tuple[Memory, bool]:
        new = check_new_memory(new)
        links = [check_new_link(link) for link in links]
        content, content_hash, embedding, project = (
            new.content,
            new.content_hash,
            new.embedding,
            new.project,
        )
        source_type, tags, metadata, trust = (
            new.source_type,
            new.tags,
            new.metadata,
            new.trust_score,
        )
        if on_duplicate is not None:
            check_change(on_duplicate)

        def op(conn: psycopg.Connection) -> tuple[Memory, bool]:
            row = conn.execute(
                "INSERT INTO memories (id, content, embedding, trust_score, source_type, project,"
                " tags, metadata, content_hash, scope, agent, session, origin, origin_project,"
                " quarantined) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (project, content_hash) DO NOTHING"
                f" RETURNING {_MEMORY_COLUMNS}",
                [
                    uuid.uuid4(),
                    content,
                    embedding,
                    from_milli(to_milli(trust)),
                    source_type,
                    project,
                    tags,
                    Jsonb(metadata),
                    content_hash,
                    new.scope,
                    new.agent,
                    new.session,
                    new.origin,
                    new.origin_project,
                    new.quarantined,
                ],
            ).fetchone()
            if row is not None:
                memory = _row_to_memory(row)
                # No advisory lock for SUPERSEDES here: nothing can point at a row no other
                # transaction sees yet, so these edges cannot close a cycle.
                locked = self._lock_rows(conn, [link.target_id for link in links])
                for link in links:
                    self._link(conn, memory.id, link, locked)
                return memory, True
            # the same content is already stored: lock it so a concurrent delete cannot race us
            row = conn.execute(
                f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE project = %s AND content_hash = %s"
                " FOR UPDATE",
                [project, content_hash],
            ).fetchone()
            if row is None:
                # deleted between our insert attempt and the select: a retry will insert it
                raise pg_errors.SerializationFailure("duplicate vanished")
            existing = _row_to_memory(row)
            if on_duplicate is not None:
                change = TrustChange(
                    existing.id,
                    on_duplicate.event,
                    on_duplicate.delta,
                    on_duplicate.actor,
                    on_duplicate.note,
                )
                existing, _ = self._apply_trust(conn, change)
            return existing, False

        return self._run(op)

    def get_memory(self, memory_id: str) -> Memory | None:
        mid = _as_uuid(memory_id)
        if mid is None:
            return None
        row = self._run(
            lambda c: c.execute(
                f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE id = %s", [mid]
            ).fetchone(),
            tx=False,
        )
        return _row_to_memory(row) if row else None

    def find_by_hash(self, project: str, content_hash: str) -> Memory | None:
        row = self._run(
            lambda c: c.execute(
                f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE project = %s AND content_hash = %s",
                [project, content_hash],
            ).fetchone(),
            tx=False,
        )
        return _row_to_memory(row) if row else None

    def get_memories(self, ids: list[str]) -> dict[str, Memory]:
        uuids = [u for u in (_as_uuid(i) for i in ids) if u is not None]
        if not uuids:
            return {}
        rows = self._run(
            lambda c: c.execute(
                f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE id = ANY(%s)", [uuids]
            ).fetchall(),
            tx=False,
        )
        return {m.id: m for m in map(_row_to_memory, rows)}

    def list_memories(
        self, flt: MemoryFilter, *, limit: int = 50, offset: int = 0
    ) -> tuple[list[Memory], int]:
        if not (0 <= limit <= _MAX_LIST_LIMIT):
            raise InvalidInput(f"limit must be between 0 and {_MAX_LIST_LIMIT}", field="limit")
        if offset < 0:
            raise InvalidInput("offset must not be negative", field="offset")
        where, params = _where(flt)

        def op(conn: psycopg.Connection) -> tuple[list[Memory], int]:
            total = _one(conn.execute(f"SELECT count(*) FROM memories WHERE {where}", params))[0]
            rows = conn.execute(
                f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE {where}"
                " ORDER BY created_at DESC, id DESC LIMIT %s OFFSET %s",
                [*params, limit, offset],
            ).fetchall()
            return [_row_to_memory(r) for r in rows], int(total)

        return self._run(op, writes=False)  # one transaction: the count and the page agree

    def update_memory(self, memory_id: str, patch: MemoryPatch) -> Memory:
        mid = _as_uuid(memory_id)
        if mid is None:
            raise NotFound(f"memory {memory_id} does not exist", field="id")
        patch = check_patch(patch)
        sets: list[str] = []
        params: list[Any] = []
        if patch.content is not None:
            sets += ["content = %s", "embedding = %s", "content_hash = %s"]
            params += [patch.content, patch.embedding, patch.content_hash]
        if patch.source_type is not None:
            sets.append("source_type = %s")
            params.append(patch.source_type)
        if patch.tags is not None:
            sets.append("tags = %s")
            params.append(patch.tags)
        if patch.metadata is not None:
            sets.append("metadata = %s")
            params.append(Jsonb(patch.metadata))

        def op(conn: psycopg.Connection) -> Memory:
            current = conn.execute(
                "SELECT project FROM memories WHERE id = %s FOR UPDATE", [mid]
            ).fetchone()
            if current is None:
                raise NotFound(f"memory {memory_id} does not exist", field="id")
            if patch.content_hash is not None:
                other = conn.execute(
                    "SELECT id FROM memories WHERE project = %s AND content_hash = %s AND id <> %s",
                    [current[0], patch.content_hash, mid],
                ).fetchone()
                if other is not None:
                    raise Conflict(
                        f"memory {other[0]} of this project already has this content",
                        field="content",
                    )
            if not sets:
                row = conn.execute(
                    f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE id = %s", [mid]
                ).fetchone()
            else:
                row = conn.execute(
                    f"UPDATE memories SET {', '.join(sets)}, updated_at = clock_timestamp()"
                    f" WHERE id = %s RETURNING {_MEMORY_COLUMNS}",
                    [*params, mid],
                ).fetchone()
            return _row_to_memory(_present(row))

        return self._run(op)

    def move_project(
        self, old: str, new: str, *, only_if_empty: bool = False, dry_run: bool = False
    ) -> ProjectMove:
        def op(conn: psycopg.Connection) -> ProjectMove:
            found = _one(
                conn.execute(
                    "SELECT count(*) FROM memories WHERE project = %s"
                    " AND scope IN ('project', 'session')",
                    [old],
                )
            )[0]
            result = ProjectMove(found=int(found))
            if not found or dry_run or old == new:
                return result
            if (
                only_if_empty
                and conn.execute(
                    "SELECT 1 FROM memories WHERE project = %s LIMIT 1", [new]
                ).fetchone()
            ):
                result.refused = True
                return result
            moved = conn.execute(
                "UPDATE memories m SET project = %s WHERE project = %s"
                " AND scope IN ('project', 'session') AND NOT EXISTS (SELECT 1 FROM memories o"
                " WHERE o.project = %s AND o.content_hash = m.content_hash)",
                [new, old, new],
            ).rowcount
            result.moved, result.skipped = moved, result.found - moved
            return result

        return self._run(op)

    def delete_memory(self, memory_id: str) -> bool:
        mid = _as_uuid(memory_id)
        if mid is None:
            return False

        def op(conn: psycopg.Connection) -> bool:
            superseded = [
                r[0]
                for r in conn.execute(
                    "SELECT target_id FROM memory_relationships"
                    " WHERE source_id = %s AND relationship_type = 'SUPERSEDES'",
                    [mid],
                )
            ]
            gone = conn.execute("DELETE FROM memories WHERE id = %s RETURNING id", [mid]).fetchone()
            if gone is None:
                return False
            if superseded:
                # a memory superseded only by the deleted one is current again
                conn.execute(_SET_SUPERSEDED_BY, [superseded])
            return True

        return self._run(op)

    def get_embedding(self, memory_id: str) -> np.ndarray | None:
        mid = _as_uuid(memory_id)
        if mid is None:
            return None
        row = self._run(
            lambda c: c.execute("SELECT embedding FROM memories WHERE id = %s", [mid]).fetchone(),
            tx=False,
        )
        if row is None:
            return None
        value = row[0]
        # pgvector >= 0.4 loads a Vector object; older versions loaded an ndarray
        value = value.to_numpy() if hasattr(value, "to_numpy") else value
        return np.asarray(value, dtype=np.float32)

    def get_embeddings(self, ids: list[str]) -> dict[str, np.ndarray]:
        uuids = [u for u in (_as_uuid(i) for i in ids) if u is not None]
        if not uuids:
            return {}
        rows = self._run(
            lambda c: c.execute(
                "SELECT id, embedding FROM memories WHERE id = ANY(%s)", [uuids]
            ).fetchall(),
            tx=False,
        )
        out: dict[str, np.ndarray] = {}
        for mid, value in rows:
            value = value.to_numpy() if hasattr(value, "to_numpy") else value
            out[str(mid)] = np.asarray(value, dtype=np.float32)
        return out

    # --- search -----------------------------------------------------------------------------

    def vector_search(
        self, embedding: np.ndarray, flt: MemoryFilter, k: int
    ) -> list[tuple[str, float]]:
        query = check_vector(embedding)
        if k <= 0:
            return []
        k = min(int(k), _MAX_K)
        where, params = _where(flt)

        def op(conn: psycopg.Connection) -> list[tuple[str, float]]:
            # hnsw.ef_search and hnsw.iterative_scan are set per session (_configure); the outer
            # ORDER BY restores exact order among what relaxed_order found
            sql = (
                "WITH nn AS MATERIALIZED ("
                f" SELECT id, embedding <=> %s AS dist FROM memories WHERE {where}"
                " ORDER BY embedding <=> %s LIMIT %s)"
                " SELECT id, dist FROM nn ORDER BY dist, id"
            )
            if k > self.ef_search:
                with conn.transaction():
                    conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", [str(k)])
                    rows = conn.execute(sql, [query, *params, query, k]).fetchall()
            else:
                # one statement, one round trip (autocommit)
                rows = conn.execute(sql, [query, *params, query, k]).fetchall()
            if len(rows) < k and where != "TRUE":
                # a very selective filter can exhaust the index scan's budget; the few rows
                # that match are cheap to rank exactly
                with conn.transaction():
                    conn.execute("SET LOCAL enable_indexscan = off")
                    rows = conn.execute(
                        f"SELECT id, embedding <=> %s AS dist FROM memories WHERE {where}"
                        " ORDER BY dist, id LIMIT %s",
                        [query, *params, k],
                    ).fetchall()
            return [(str(r[0]), 1.0 - float(r[1])) for r in rows]

        return self._run(op, tx=False)

    def keyword_search(self, text: str, flt: MemoryFilter, k: int) -> list[tuple[str, float]]:
        """OR over the query's words, ranked by ts_rank_cd over all of them.

        Ranking every row that shares one frequent word with the query is what makes OR
        queries slow on large tables, so (in the spirit of MaxScore in search engines) rows are
        *selected* by the query's rarest words only: taken rarest first, by ANALYZE's
        statistics, while the rows they can match stay within `keyword_budget`. Every word
        still counts in the rank. When even the rarest word is that frequent, rows must contain
        all of the words. On a small or never-analysed table this is plain OR.
        """
        if not isinstance(text, str):
            raise InvalidInput("query text must be a string", field="text")
        words = query_words(text)
        if not words or k <= 0:
            return []
        k = min(int(k), _MAX_K)
        where, params = _where(flt)

        def op(conn: psycopg.Connection) -> list[tuple[str, float]]:
            lexemes = [
                r[0]
                for r in conn.execute(
                    "SELECT lexeme FROM unnest(to_tsvector('english', %s))", [" ".join(words)]
                )
            ]
            if not lexemes:
                return []  # only stop words
            rows_total, freqs, floor = self._lexeme_stats(conn)
            expected = sorted((freqs.get(lex, floor) * rows_total, lex) for lex in lexemes)
            chosen: list[str] = []
            budget = float(self.keyword_budget)
            for matches, lex in expected:
                if chosen and matches > budget:
                    break
                chosen.append(lex)
                budget -= matches
            if expected[0][0] > self.keyword_budget:
                match = _quoted(lexemes, "&")  # every word is frequent: all of them must match
            else:
                match = _quoted(chosen, "|")
            rows = conn.execute(
                "WITH cand AS MATERIALIZED ("
                " SELECT id, content_tsv, created_at FROM memories"
                f" WHERE content_tsv @@ to_tsquery('simple', %s) AND {where} LIMIT %s)"
                " SELECT id, ts_rank_cd(content_tsv, to_tsquery('simple', %s), 1) AS score"
                " FROM cand ORDER BY score DESC, created_at DESC, id LIMIT %s",
                [match, *params, self.keyword_candidates, _quoted(lexemes, "|"), k],
            ).fetchall()
            return [(str(r[0]), float(r[1])) for r in rows]

        return self._run(op, tx=False)

    def _lexeme_stats(self, conn: psycopg.Connection) -> tuple[float, dict[str, float], float]:
        """(rows in memories, lexeme -> share of rows for the frequent ones, share assumed for
        any other lexeme), from ANALYZE's statistics; cached for a minute. Zeros before the
        table has been analysed."""
        now = time.monotonic()
        cached = self._stats_cache
        if cached is not None and now - cached[0] < 60:
            return cached[1]
        row = conn.execute(
            "SELECT c.reltuples, s.most_common_elems::text::text[], s.most_common_elem_freqs"
            " FROM pg_class c LEFT JOIN pg_stats s ON s.schemaname = current_schema()"
            " AND s.tablename = 'memories' AND s.attname = 'content_tsv'"
            " WHERE c.oid = 'memories'::regclass"
        ).fetchone()
        stats: tuple[float, dict[str, float], float] = (0.0, {}, 0.0)
        if row and row[1] and row[2]:
            elems, fr = row[1], [float(f) for f in row[2]]
            # most_common_elem_freqs ends with the minimum and maximum frequency (and nulls)
            floor = fr[len(elems)] if len(fr) > len(elems) else min(fr[: len(elems)])
            stats = (max(float(row[0]), 0.0), dict(zip(elems, fr)), floor)
        self._stats_cache = (now, stats)
        return stats

    # --- trust ------------------------------------------------------------------------------

    def _apply_trust(
        self, conn: psycopg.Connection, change: TrustChange
    ) -> tuple[Memory, TrustEvent]:
        mid = _as_uuid(change.memory_id)
        row = None
        if mid is not None:
            # one statement reads and writes the row under its lock: concurrent deltas all land
            # integer thousandths: the stored k / 1000 gives back k exactly, so no drift
            # the event's band (TrustChange.bounded): up to the ceiling, never down; down to
            # the floor, never up
            old = "round(trust_score * 1000)::int"
            if change.delta_milli >= 0:
                score, bound = (
                    f"GREATEST({old}, LEAST({old} + %s, %s))",
                    min(change.ceiling_milli, 1000),
                )
            else:
                score, bound = f"LEAST({old}, GREATEST({old} + %s, %s))", max(change.floor_milli, 0)
            row = conn.execute(
                f"UPDATE memories SET trust_score = ({score})::float8 / 1000,"
                " quarantined = quarantined AND NOT %s"
                f" WHERE id = %s RETURNING {_MEMORY_COLUMNS}",
                [change.delta_milli, bound, change.release, mid],
            ).fetchone()
        if row is None:
            raise NotFound(f"memory {change.memory_id} does not exist", field="memory_id")
        memory = _row_to_memory(row)
        event = conn.execute(
            "INSERT INTO trust_events (memory_id, event, delta_milli, actor, score_after_milli,"
            f" note, origin, session) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING {_EVENT_COLUMNS}",
            [
                mid,
                change.event,
                change.delta_milli,
                change.actor,
                to_milli(memory.trust_score),
                change.note,
                change.origin,
                change.session,
            ],
        ).fetchone()
        return memory, _row_to_event(_present(event))

    def apply_trust(self, change: TrustChange) -> tuple[Memory, TrustEvent]:
        check_change(change)
        return self._run(lambda c: self._apply_trust(c, change))

    def trust_history(self, memory_id: str) -> list[TrustEvent]:
        mid = _as_uuid(memory_id)
        if mid is None:
            return []
        rows = self._run(
            lambda c: c.execute(
                f"SELECT {_EVENT_COLUMNS} FROM trust_events WHERE memory_id = %s ORDER BY id",
                [mid],
            ).fetchall(),
            tx=False,
        )
        return [_row_to_event(r) for r in rows]

    # --- graph ------------------------------------------------------------------------------

    def add_relationship(
        self,
        source_id: str,
        target_id: str,
        relationship_type: str,
        confidence: float,
        metadata: dict | None = None,
        *,
        trust_change: TrustChange | None = None,
    ) -> Relationship:
        link = NewLink(
            target_id,
            relationship_type,
            confidence,
            metadata if metadata is not None else {},
            trust_change,
        )
        return self.add_relationships(source_id, [link])[0]

    def add_relationships(self, source_id: str, links: Sequence[NewLink]) -> list[Relationship]:
        links = [check_new_link(link) for link in links]
        src = _as_uuid(source_id)
        for link in links:
            if link.target_id == source_id or (src is not None and src == _as_uuid(link.target_id)):
                raise InvalidInput("a memory cannot be related to itself", field="target_id")

        def op(conn: psycopg.Connection) -> list[Relationship]:
            if any(link.relationship_type == "SUPERSEDES" for link in links):
                # One SUPERSEDES writer at a time: two transactions adding A→B and B→A would
                # each see no cycle (read committed) and both commit one. Taken before any row
                # lock, so it cannot deadlock with the row locks below.
                conn.execute("SELECT pg_advisory_xact_lock(%s)", [_SUPERSEDES_LOCK_KEY])
            locked = self._lock_rows(conn, [source_id, *(link.target_id for link in links)])
            if src is None or src not in locked:
                raise NotFound(f"memory {source_id} does not exist", field="source_id")
            made = [self._link(conn, str(src), link, locked) for link in links]
            return [rel for rel in made if rel is not None]

        return self._run(op)

    @staticmethod
    def _lock_rows(conn: psycopg.Connection, ids: Iterable[str]) -> set[uuid.UUID]:
        """Lock the ends of the edges about to be written; returns the ids that exist.

        FOR NO KEY UPDATE, not FOR SHARE: the transaction goes on to update these rows
        (superseded_by, trust), and two transactions that both hold a share lock on one row
        and then both update it deadlock (seen under load: two adds superseding one memory).
        In id order, so two transactions locking overlapping sets cannot wait on each other.
        Neither end can be deleted before we commit."""
        wanted = sorted({u for u in (_as_uuid(i) for i in ids) if u is not None})
        if not wanted:
            return set()
        rows = conn.execute(
            "SELECT id FROM memories WHERE id = ANY(%s) ORDER BY id FOR NO KEY UPDATE", [wanted]
        ).fetchall()
        return {r[0] for r in rows}

    def _link(
        self, conn: psycopg.Connection, source_id: str, link: NewLink, locked: set[uuid.UUID]
    ) -> Relationship | None:
        """One edge inside the caller's transaction (the link checked by `check_new_link`), its
        ends locked by `_lock_rows`; None when an optional target is gone."""
        src, dst = _as_uuid(source_id), _as_uuid(link.target_id)
        kind = link.relationship_type
        if dst is None or dst not in locked:
            if not link.required:
                return None
            raise NotFound(f"memory {link.target_id} does not exist", field="target_id")
        assert src is not None  # the caller's own row, or one it found above
        if (
            kind == "SUPERSEDES"
            and conn.execute(cycles.REACHES.format(p="%s"), [dst, src]).fetchone()
        ):
            raise cycles.refuse(
                str(src),
                str(dst),
                [
                    str(i)
                    for i in cycles.path_between(
                        dst,
                        src,
                        lambda ids: conn.execute(
                            "SELECT source_id, target_id FROM memory_relationships"
                            " WHERE relationship_type = 'SUPERSEDES' AND source_id = ANY(%s)",
                            [list(ids)],
                        ).fetchall(),
                    )
                ],
            )
        row = conn.execute(
            "INSERT INTO memory_relationships"
            " (id, source_id, target_id, relationship_type, confidence, metadata)"
            " VALUES (%s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (source_id, target_id, relationship_type) DO NOTHING"
            f" RETURNING {_REL_COLUMNS}",
            [uuid.uuid4(), src, dst, kind, link.confidence, Jsonb(link.metadata)],
        ).fetchone()
        if row is None:
            existing = conn.execute(
                "SELECT id FROM memory_relationships"
                " WHERE source_id = %s AND target_id = %s AND relationship_type = %s",
                [src, dst, kind],
            ).fetchone()
            raise Conflict(
                f"{kind} from {source_id} to {link.target_id} already exists"
                f" (relationship {existing[0] if existing else '?'})",
                field="relationship_type",
            )
        if kind == "SUPERSEDES":
            conn.execute("UPDATE memories SET superseded_by = %s WHERE id = %s", [src, dst])
        if link.trust_change is not None:
            self._apply_trust(conn, link.trust_change)
        return _row_to_relationship(row)

    def get_relationship(self, relationship_id: str) -> Relationship | None:
        rid = _as_uuid(relationship_id)
        if rid is None:
            return None
        row = self._run(
            lambda c: c.execute(
                f"SELECT {_REL_COLUMNS} FROM memory_relationships WHERE id = %s", [rid]
            ).fetchone(),
            tx=False,
        )
        return _row_to_relationship(row) if row else None

    def delete_relationship(self, relationship_id: str) -> bool:
        rid = _as_uuid(relationship_id)
        if rid is None:
            return False

        def op(conn: psycopg.Connection) -> bool:
            row = conn.execute(
                "DELETE FROM memory_relationships WHERE id = %s RETURNING target_id, relationship_type",
                [rid],
            ).fetchone()
            if row is None:
                return False
            if row[1] == "SUPERSEDES":
                conn.execute(_SET_SUPERSEDED_BY, [[row[0]]])
            return True

        return self._run(op)

    def remove_relationships(
        self, relationship_ids: Sequence[str], changes: Sequence[TrustChange] = ()
    ) -> list[Relationship]:
        changes = [check_change(c) for c in changes]
        wanted = list(dict.fromkeys(relationship_ids))
        rids = [_as_uuid(r) for r in wanted]
        for rid, given in zip(rids, wanted):
            if rid is None:
                raise NotFound(f"relationship {given} does not exist", field="id")

        def op(conn: psycopg.Connection) -> list[Relationship]:
            ends = conn.execute(
                "SELECT target_id FROM memory_relationships WHERE id = ANY(%s)", [rids]
            ).fetchall()
            # the rows this transaction updates, locked in id order as every writer does
            self._lock_rows(conn, [str(r[0]) for r in ends] + [c.memory_id for c in changes])
            removed: list[Relationship] = []
            for rid, given in zip(rids, wanted):
                row = conn.execute(
                    f"DELETE FROM memory_relationships WHERE id = %s RETURNING {_REL_COLUMNS}",
                    [rid],
                ).fetchone()
                if row is None:
                    raise NotFound(f"relationship {given} does not exist", field="id")
                removed.append(_row_to_relationship(row))
            targets = [
                _as_uuid(r.target_id) for r in removed if r.relationship_type == "SUPERSEDES"
            ]
            if targets:
                conn.execute(_SET_SUPERSEDED_BY, [targets])
            for change in changes:
                self._apply_trust(conn, change)
            return removed

        return self._run(op)

    def edges_of(self, ids: list[str], types: list[str] | None = None) -> list[Relationship]:
        uuids = [u for u in (_as_uuid(i) for i in ids) if u is not None]
        if not uuids:
            return []
        sql = (
            f"SELECT {_REL_COLUMNS} FROM memory_relationships"
            " WHERE (source_id = ANY(%s) OR target_id = ANY(%s))"
        )
        params: list[Any] = [uuids, uuids]
        if types:  # None or [] means every type
            sql += " AND relationship_type = ANY(%s)"
            params.append(list(types))
        sql += " ORDER BY created_at, id"
        rows = self._run(lambda c: c.execute(sql, params).fetchall(), tx=False)
        return [_row_to_relationship(r) for r in rows]

    # --- service ----------------------------------------------------------------------------

    def ids_between(self, kind: IdKind, low: str, high: str, limit: int) -> list[str]:
        table = ID_TABLES[kind]
        rows = self._run(
            lambda c: c.execute(
                f"SELECT id FROM {table} WHERE id BETWEEN %s AND %s ORDER BY id LIMIT %s",
                [uuid.UUID(low), uuid.UUID(high), limit],
            ).fetchall(),
            tx=False,
        )
        return [str(r[0]) for r in rows]

    def counts(self) -> dict[str, int]:
        row = self._run(
            lambda c: c.execute(
                "SELECT (SELECT count(*) FROM memories), (SELECT count(*) FROM memory_relationships),"
                " (SELECT count(*) FROM trust_events), (SELECT count(*) FROM project_chunks)"
            ).fetchone(),
            tx=False,
        )
        return dict(
            zip(
                ("memories", "relationships", "trust_events", "project_chunks"),
                map(int, _present(row)),
            )
        )

    def ping(self) -> None:
        self.db.ping()

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
