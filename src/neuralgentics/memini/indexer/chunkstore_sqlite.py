"""Project chunks in the embedded SQLite store: rows, FTS5, and a usearch index beside the file.

The chunks' HNSW index is the same `VectorIndex` the memories use, on table project_chunks; the
triggers of migration 002 write every vector change to `vector_log`, so the index is brought
back in step with the rows before each search, whoever wrote them.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime

import numpy as np

from neuralgentics.memini.indexer.chunkstore import (
    FileState,
    FileWrite,
    ProjectInfo,
    StoredChunk,
    keyword_words,
)
from neuralgentics.memini.store.batches import in_batches
from neuralgentics.memini.store.sqlite import SQLiteStore
from neuralgentics.memini.store.vectors import VectorIndex, from_blob, to_blob

_CHUNK_COLUMNS = "id, project, file_path, content, start_line, end_line, language, symbol, kind"
# bm25 column weights: content, symbol, file_path, terms. A symbol or path that names the
# query is worth more than the same word somewhere in a body.
_BM25 = "bm25(project_chunks_fts, 1.0, 10.0, 2.0, 1.0)"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _chunk(row: tuple) -> StoredChunk:
    return StoredChunk(*row)


class SQLiteChunkStore:
    kind = "sqlite"

    def __init__(self, store: SQLiteStore, *, owns_store: bool = False) -> None:
        self.store = store
        self._owns_store = owns_store
        self._vectors: VectorIndex | None = None
        self._vectors_lock = threading.Lock()

    def _conn(self) -> sqlite3.Connection:
        return self.store.db.connection()

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
        # the memory store's database: the same connection, lock order and rollback rule
        return self.store.db.transaction()

    # -- runs and files -----------------------------------------------------------------

    def begin_run(self, project: str) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO indexed_projects (root, created_at, status) VALUES (?, ?, 'indexing')"
                " ON CONFLICT (root) DO UPDATE SET status = 'indexing'",
                (project, _now()),
            )
            # Chunks without a file row can only be left by a write from an older version or
            # a hand edit; they would never be cleaned up otherwise.
            conn.execute(
                "DELETE FROM project_chunks WHERE project = ? AND NOT EXISTS (SELECT 1 FROM"
                " project_files f WHERE f.project = project_chunks.project"
                " AND f.path = project_chunks.file_path)",
                (project,),
            )

    def finish_run(self, project: str, summary: dict) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE indexed_projects SET status = 'ready', indexed_at = ?, last_run = ? WHERE root = ?",
                (_now(), json.dumps(summary), project),
            )

    def file_states(self, project: str) -> dict[str, FileState]:
        rows = (
            self._conn()
            .execute(
                "SELECT path, content_hash, mtime_ns, size, language, chunks FROM project_files"
                " WHERE project = ?",
                (project,),
            )
            .fetchall()
        )
        return {r[0]: FileState(*r) for r in rows}

    def known_embeddings(self, hashes: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        conn = self._conn()
        unique = list(dict.fromkeys(hashes))
        for part, marks in in_batches(unique):
            for h, blob in conn.execute(
                f"SELECT chunk_hash, embedding FROM project_chunks WHERE chunk_hash IN ({marks})"
                " AND embedding IS NOT NULL",
                part,
            ):
                found.setdefault(h, from_blob(blob).copy())
        return found

    def write(
        self,
        project: str,
        writes: list[FileWrite],
        removed: Sequence[str] = (),
        touched: Sequence[FileState] = (),
    ) -> None:
        stamp = _now()
        with self._tx() as conn:
            paths = [w.state.path for w in writes] + list(removed)
            conn.executemany(
                "DELETE FROM project_chunks WHERE project = ? AND file_path = ?",
                [(project, p) for p in paths],
            )
            conn.executemany(
                "DELETE FROM project_files WHERE project = ? AND path = ?",
                [(project, p) for p in removed],
            )
            rows = []
            for w in writes:
                for c in w.chunks:
                    rows.append(
                        (
                            str(uuid.uuid4()),
                            project,
                            w.state.path,
                            c.content,
                            None if c.embedding is None else to_blob(c.embedding),
                            c.start_line,
                            c.end_line,
                            c.language,
                            c.symbol,
                            c.kind,
                            c.chunk_hash,
                            c.terms,
                        )
                    )
            conn.executemany(
                "INSERT INTO project_chunks (id, project, file_path, content, embedding,"
                " start_line, end_line, language, symbol, kind, chunk_hash, terms)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                rows,
            )
            states = [w.state for w in writes] + list(touched)
            conn.executemany(
                "INSERT INTO project_files (project, path, content_hash, mtime_ns, size, language,"
                " chunks, indexed_at) VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (project, path) DO"
                " UPDATE SET content_hash = excluded.content_hash, mtime_ns = excluded.mtime_ns,"
                " size = excluded.size, language = excluded.language, chunks = excluded.chunks,"
                " indexed_at = excluded.indexed_at",
                [
                    (
                        project,
                        s.path,
                        s.content_hash,
                        s.mtime_ns,
                        s.size,
                        s.language,
                        s.chunks,
                        stamp,
                    )
                    for s in states
                ],
            )

    def pending_embeddings(self, project: str) -> list[tuple[str, str]]:
        return (
            self._conn()
            .execute(
                "SELECT chunk_hash, content FROM project_chunks WHERE project = ?"
                " AND embedding IS NULL GROUP BY chunk_hash",
                (project,),
            )
            .fetchall()
        )

    def set_embeddings(self, vectors: dict[str, np.ndarray]) -> None:
        with self._tx() as conn:
            conn.executemany(
                "UPDATE project_chunks SET embedding = ? WHERE chunk_hash = ?"
                " AND embedding IS NULL",
                [(to_blob(vec), h) for h, vec in vectors.items()],
            )

    def clear_embeddings(self, project: str) -> None:
        with self._tx() as conn:
            conn.execute("UPDATE project_chunks SET embedding = NULL WHERE project = ?", (project,))

    def forget(self, project: str) -> bool:
        with self._tx() as conn:
            conn.execute("DELETE FROM project_chunks WHERE project = ?", (project,))
            conn.execute("DELETE FROM project_files WHERE project = ?", (project,))
            return (
                conn.execute("DELETE FROM indexed_projects WHERE root = ?", (project,)).rowcount > 0
            )

    def _projects(self, where: str, params: tuple) -> list[ProjectInfo]:
        rows = (
            self._conn()
            .execute(
                "SELECT p.root, p.status, p.created_at, p.indexed_at, p.last_run,"
                " (SELECT count(*) FROM project_files f WHERE f.project = p.root),"
                " (SELECT count(*) FROM project_chunks c WHERE c.project = p.root),"
                " (SELECT count(*) FROM project_chunks c WHERE c.project = p.root"
                " AND c.embedding IS NOT NULL)"
                f" FROM indexed_projects p {where} ORDER BY p.root",
                params,
            )
            .fetchall()
        )
        return [
            ProjectInfo(r[0], r[1], r[2], r[3], r[5], r[6], json.loads(r[4] or "{}"), r[7])
            for r in rows
        ]

    def projects(self) -> list[ProjectInfo]:
        return self._projects("", ())

    def project(self, root: str) -> ProjectInfo | None:
        found = self._projects("WHERE p.root = ?", (root,))
        return found[0] if found else None

    # -- search -------------------------------------------------------------------------

    def keyword_search(self, project: str, query: str, k: int) -> list[tuple[str, float]]:
        words = keyword_words(query)
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = (
            self._conn()
            .execute(
                f"SELECT c.id, {_BM25} AS score FROM project_chunks_fts"
                " JOIN project_chunks c ON c.rowid = project_chunks_fts.rowid"
                " WHERE project_chunks_fts MATCH ? AND c.project = ? ORDER BY score LIMIT ?",
                (match, project, k),
            )
            .fetchall()
        )
        # bm25() is lower-is-better; report it as a positive relevance
        return [(cid, -score) for cid, score in rows]

    def _index(self) -> VectorIndex:
        with self._vectors_lock:
            if self._vectors is None:
                conn = self._conn()
                db_id = conn.execute("SELECT value FROM store_meta WHERE key = 'db_id'").fetchone()[
                    0
                ]
                path = self.store.path.parent / f"{self.store.path.name}.project_chunks.usearch"
                index = VectorIndex("project_chunks", path)
                index.open(conn, db_id)
                self._vectors = index
            return self._vectors

    def refresh_vectors(self) -> None:
        index = self._index()
        index.sync(self._conn())
        index.save()

    def vector_search(self, project: str, vec: np.ndarray, k: int) -> list[tuple[str, float]]:
        conn = self._conn()
        index = self._index()
        fetch = max(k * 4, 40)
        # Other projects share the index: over-fetch, keep this project's rows, and fall back
        # to an exact scan of just this project when it holds few of the nearest vectors.
        for _ in range(3):
            hits = index.search(conn, vec, fetch)
            if not hits:
                return []
            sims = dict(hits)
            keep = self._in_project(conn, list(sims), project)
            if len(keep) >= k or fetch >= len(index):
                ranked = sorted(keep, key=lambda item: -sims[item[0]])[:k]
                return [(cid, sims[rowid]) for rowid, cid in ranked]
            fetch *= 8
        return self._exact(conn, project, vec, k)

    @staticmethod
    def _in_project(conn: sqlite3.Connection, rowids: list[int], project: str) -> list[tuple]:
        keep: list[tuple] = []
        for part, marks in in_batches(rowids):
            keep += conn.execute(
                f"SELECT rowid, id FROM project_chunks WHERE rowid IN ({marks}) AND project = ?",
                [*part, project],
            ).fetchall()
        return keep

    @staticmethod
    def _exact(conn: sqlite3.Connection, project: str, vec: np.ndarray, k: int) -> list:
        rows = conn.execute(
            "SELECT id, embedding FROM project_chunks WHERE project = ? AND embedding IS NOT NULL",
            (project,),
        ).fetchall()
        if not rows:
            return []
        matrix = np.vstack([from_blob(r[1]) for r in rows])
        sims = matrix @ np.asarray(vec, dtype=np.float32)
        order = np.argsort(-sims)[:k]
        return [(rows[i][0], float(sims[i])) for i in order]

    def chunks(self, ids: list[str]) -> dict[str, StoredChunk]:
        found: dict[str, StoredChunk] = {}
        conn = self._conn()
        for part, marks in in_batches(ids):
            for row in conn.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM project_chunks WHERE id IN ({marks})", part
            ):
                found[row[0]] = _chunk(row)
        return found

    def close(self) -> None:
        if self._vectors is not None:
            try:
                self.refresh_vectors()
            except Exception:  # the index is rebuilt from the rows on the next open
                pass
        if self._owns_store:
            self.store.close()
