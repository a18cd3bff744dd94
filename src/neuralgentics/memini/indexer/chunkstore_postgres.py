"""Project chunks on PostgreSQL + pgvector: HNSW for vectors, a weighted tsvector for keywords.

Runs every operation through the memory store's database (`PostgresStore.db`, a
`neuralgentics.db.postgres.PostgresDatabase`), so each method is one transaction and driver
failures map onto the same errors as the memory routes.
"""

from __future__ import annotations

import json
import math
import re
import uuid
from collections.abc import Sequence

import numpy as np
import psycopg
from psycopg.types.json import Jsonb

from neuralgentics.memini.indexer.chunkstore import (
    FileState,
    FileWrite,
    ProjectInfo,
    StoredChunk,
    keyword_words,
)
from neuralgentics.memini.store.postgres import PostgresStore

_CHUNK_COLUMNS = "id, project, file_path, content, start_line, end_line, language, symbol, kind"
_MAX_QUERY_WORDS = 64
# ts_rank weights for D (body), C (split identifiers), B (path), A (symbol)
_WEIGHTS = "{0.1, 0.2, 0.4, 1.0}"


def _chunk(row: tuple) -> StoredChunk:
    return StoredChunk(str(row[0]), *row[1:])


def _ts(value) -> str | None:
    return value.isoformat(timespec="seconds") if value is not None else None


class PostgresChunkStore:
    kind = "postgres"

    def __init__(self, store: PostgresStore, *, owns_store: bool = False) -> None:
        self.store = store
        self._owns_store = owns_store

    def _run(self, fn):
        return self.store.db.run(fn)

    # -- runs and files -----------------------------------------------------------------

    def begin_run(self, project: str) -> None:
        def op(conn: psycopg.Connection) -> None:
            conn.execute(
                "INSERT INTO indexed_projects (root, status) VALUES (%s, 'indexing')"
                " ON CONFLICT (root) DO UPDATE SET status = 'indexing'",
                [project],
            )
            conn.execute(
                "DELETE FROM project_chunks c WHERE c.project = %s AND NOT EXISTS (SELECT 1"
                " FROM project_files f WHERE f.project = c.project AND f.path = c.file_path)",
                [project],
            )

        self._run(op)

    def finish_run(self, project: str, summary: dict) -> None:
        self._run(
            lambda conn: conn.execute(
                "UPDATE indexed_projects SET status = 'ready', indexed_at = clock_timestamp(), last_run = %s"
                " WHERE root = %s",
                [Jsonb(summary), project],
            )
        )

    def file_states(self, project: str) -> dict[str, FileState]:
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT path, content_hash, mtime_ns, size, language, chunks FROM project_files"
                " WHERE project = %s",
                [project],
            ).fetchall()
        )
        return {r[0]: FileState(*r) for r in rows}

    def known_embeddings(self, hashes: list[str]) -> dict[str, np.ndarray]:
        unique = list(dict.fromkeys(hashes))
        if not unique:
            return {}
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT DISTINCT ON (chunk_hash) chunk_hash, embedding FROM project_chunks"
                " WHERE chunk_hash = ANY(%s) AND embedding IS NOT NULL",
                [unique],
            ).fetchall()
        )
        # pgvector >= 0.4 loads a Vector object; older versions loaded an ndarray
        return {
            h: np.asarray(vec.to_numpy() if hasattr(vec, "to_numpy") else vec, dtype=np.float32)
            for h, vec in rows
        }

    def write(
        self,
        project: str,
        writes: list[FileWrite],
        removed: Sequence[str] = (),
        touched: Sequence[FileState] = (),
    ) -> None:
        def op(conn: psycopg.Connection) -> None:
            paths = [w.state.path for w in writes] + list(removed)
            if paths:
                conn.execute(
                    "DELETE FROM project_chunks WHERE project = %s AND file_path = ANY(%s)",
                    [project, paths],
                )
            if removed:
                conn.execute(
                    "DELETE FROM project_files WHERE project = %s AND path = ANY(%s)",
                    [project, list(removed)],
                )
            rows = [
                (
                    uuid.uuid4(),
                    project,
                    w.state.path,
                    c.content,
                    None if c.embedding is None else np.asarray(c.embedding),
                    c.start_line,
                    c.end_line,
                    c.language,
                    c.symbol,
                    c.kind,
                    c.chunk_hash,
                    c.terms,
                )
                for w in writes
                for c in w.chunks
            ]
            with conn.cursor() as cur:
                if rows:
                    cur.executemany(
                        "INSERT INTO project_chunks (id, project, file_path, content, embedding,"
                        " start_line, end_line, language, symbol, kind, chunk_hash, terms)"
                        " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                        rows,
                    )
                states = [w.state for w in writes] + list(touched)
                if states:
                    cur.executemany(
                        "INSERT INTO project_files (project, path, content_hash, mtime_ns, size,"
                        " language, chunks) VALUES (%s,%s,%s,%s,%s,%s,%s)"
                        " ON CONFLICT (project, path) DO UPDATE SET"
                        " content_hash = excluded.content_hash, mtime_ns = excluded.mtime_ns,"
                        " size = excluded.size, language = excluded.language,"
                        " chunks = excluded.chunks, indexed_at = clock_timestamp()",
                        [
                            (
                                project,
                                s.path,
                                s.content_hash,
                                s.mtime_ns,
                                s.size,
                                s.language,
                                s.chunks,
                            )
                            for s in states
                        ],
                    )

        self._run(op)

    def pending_embeddings(self, project: str) -> list[tuple[str, str]]:
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT DISTINCT ON (chunk_hash) chunk_hash, content FROM project_chunks"
                " WHERE project = %s AND embedding IS NULL",
                [project],
            ).fetchall()
        )
        return [(r[0], r[1]) for r in rows]

    def set_embeddings(self, vectors: dict[str, np.ndarray]) -> None:
        if not vectors:
            return

        def op(conn: psycopg.Connection) -> None:
            with conn.cursor() as cur:
                cur.executemany(
                    "UPDATE project_chunks SET embedding = %s WHERE chunk_hash = %s"
                    " AND embedding IS NULL",
                    [(np.asarray(vec, dtype=np.float32), h) for h, vec in vectors.items()],
                )

        self._run(op)

    def clear_embeddings(self, project: str) -> None:
        self._run(
            lambda conn: conn.execute(
                "UPDATE project_chunks SET embedding = NULL WHERE project = %s", [project]
            )
        )

    def forget(self, project: str) -> bool:
        def op(conn: psycopg.Connection) -> bool:
            conn.execute("DELETE FROM project_chunks WHERE project = %s", [project])
            conn.execute("DELETE FROM project_files WHERE project = %s", [project])
            return (
                conn.execute("DELETE FROM indexed_projects WHERE root = %s", [project]).rowcount > 0
            )

        return self._run(op)

    def _projects(self, where: str, params: list) -> list[ProjectInfo]:
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT p.root, p.status, p.created_at, p.indexed_at, p.last_run,"
                " (SELECT count(*) FROM project_files f WHERE f.project = p.root),"
                " (SELECT count(*) FROM project_chunks c WHERE c.project = p.root),"
                " (SELECT count(*) FROM project_chunks c WHERE c.project = p.root"
                " AND c.embedding IS NOT NULL)"
                f" FROM indexed_projects p {where} ORDER BY p.root",
                params,
            ).fetchall()
        )
        return [
            ProjectInfo(
                r[0],
                r[1],
                _ts(r[2]) or "",
                _ts(r[3]),
                r[5],
                r[6],
                r[4] if isinstance(r[4], dict) else json.loads(r[4] or "{}"),
                r[7],
            )
            for r in rows
        ]

    def projects(self) -> list[ProjectInfo]:
        return self._projects("", [])

    def project(self, root: str) -> ProjectInfo | None:
        found = self._projects("WHERE p.root = %s", [root])
        return found[0] if found else None

    # -- search -------------------------------------------------------------------------

    def keyword_search(self, project: str, query: str, k: int) -> list[tuple[str, float]]:
        words = [w for w in keyword_words(query) if re.fullmatch(r"\w+", w)][:_MAX_QUERY_WORDS]
        if not words:
            return []

        def op(conn: psycopg.Connection) -> list[tuple[str, float]]:
            # ts_rank knows no document frequency, so a common word ("server") would outweigh
            # a rare one ("fleet"). Weigh each word's rank by its BM25 idf in this project.
            lexemes = conn.execute(
                "SELECT DISTINCT q FROM unnest(%s::text[]) AS w,"
                " LATERAL plainto_tsquery('english', w) AS q WHERE q::text <> ''",
                [words],
            ).fetchall()
            queries = [row[0] for row in lexemes]
            if not queries:
                return []
            counts = conn.execute(
                "SELECT count(*), "
                + ", ".join("count(*) FILTER (WHERE search_tsv @@ %s::tsquery)" for _ in queries)
                + " FROM project_chunks WHERE project = %s",
                [*queries, project],
            ).fetchone()
            assert counts is not None  # an aggregate always returns its one row
            total = counts[0]
            idf = [math.log(1 + (total - df + 0.5) / (df + 0.5)) for df in counts[1:]]
            score = " + ".join(
                "%s * ts_rank(%s::float4[], search_tsv, %s::tsquery, 1)" for _ in queries
            )
            params: list = []
            for weight, q in zip(idf, queries):
                params += [weight, _WEIGHTS, q]
            rows = conn.execute(
                f"SELECT id, {score} AS score FROM project_chunks"
                " WHERE project = %s AND search_tsv @@ ("
                + " || ".join("%s::tsquery" for _ in queries)
                + ") ORDER BY score DESC, id LIMIT %s",
                [*params, project, *queries, k],
            ).fetchall()
            return [(str(r[0]), float(r[1])) for r in rows]

        return self._run(op)

    def vector_search(self, project: str, vec: np.ndarray, k: int) -> list[tuple[str, float]]:
        query = np.asarray(vec, dtype=np.float32)
        ef_search = int(getattr(self.store, "ef_search", 100))

        def op(conn: psycopg.Connection) -> list[tuple[str, float]]:
            # The store sets hnsw.ef_search and (pgvector >= 0.8) hnsw.iterative_scan per
            # session, so the scan keeps walking until enough of this project's rows are found.
            if k > ef_search:
                conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", [str(k)])
            sql = (
                "WITH nn AS MATERIALIZED (SELECT id, embedding <=> %s AS dist FROM project_chunks"
                " WHERE project = %s AND embedding IS NOT NULL ORDER BY embedding <=> %s LIMIT %s)"
                " SELECT id, dist FROM nn ORDER BY dist, id"
            )
            rows = conn.execute(sql, [query, project, query, k]).fetchall()
            if len(rows) < k:
                # a project holding few of the vectors can exhaust the scan: rank it exactly
                conn.execute("SET LOCAL enable_indexscan = off")
                rows = conn.execute(sql, [query, project, query, k]).fetchall()
            return [(str(r[0]), 1.0 - float(r[1])) for r in rows]

        return self._run(op)

    def chunks(self, ids: list[str]) -> dict[str, StoredChunk]:
        if not ids:
            return {}
        rows = self._run(
            lambda conn: conn.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM project_chunks WHERE id = ANY(%s::uuid[])", [ids]
            ).fetchall()
        )
        return {str(r[0]): _chunk(r) for r in rows}

    def refresh_vectors(self) -> None:
        """Nothing to do: pgvector's index is updated inside each write's transaction."""

    def close(self) -> None:
        if self._owns_store:
            self.store.close()
