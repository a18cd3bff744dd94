"""An in-process HNSW index (usearch) over one SQLite table's embedding column.

SQLite has no ANN index of its own that this machine's Python can load, and brute force is
too slow at 100k rows, so the index lives beside the database. It is kept consistent with
the rows through `vector_log`, which triggers fill in the same transaction as every vector
write: the index remembers the last log entry it applied, replays the rest on open and
before each search, and is rebuilt from the stored vectors when it cannot be trusted (a
missing or corrupt file, a log that no longer reaches back far enough, another database).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from pathlib import Path

import numpy as np

# Seen here with onnxruntime 1.32 and usearch 2.26: importing onnxruntime after usearch's
# extension is loaded crashes the process (segfault in onnxruntime's pybind module); the
# other order works. The embedder imports onnxruntime lazily, so load it first here.
import onnxruntime  # noqa: F401, I001
from usearch.index import Index

from neuralgentics.filemodes import FILE_MODE, atomic_path, atomic_write
from neuralgentics.memini.store.batches import in_batches

log = logging.getLogger(__name__)

DIM = 384
# HNSW parameters measured in bench/memory.py: recall@10 >= 0.95 at 100k with these.
CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION_SEARCH = 96
# Save after this many applied changes; a crash replays at most this much of the log.
SAVE_EVERY = 2_000
# Entries this far behind the saved index are pruned; a slower reader rebuilds.
KEEP_LOG = 200_000
# Parallel inserts into a near-empty HNSW graph can leave it split: measured, 4 of 300 fresh
# builds of 40 vectors missed an exact self-match (0 of 300 on one thread). An index's first
# vectors go in on one thread; once the graph has this many, threads are safe (and 2x faster).
SINGLE_THREAD_SEED = 256


def _add(index: Index, keys: np.ndarray, vecs: np.ndarray) -> None:
    seed = max(0, min(len(keys), SINGLE_THREAD_SEED - len(index)))
    if seed:
        index.add(keys[:seed], vecs[:seed], threads=1)
    if seed < len(keys):
        index.add(keys[seed:], vecs[seed:])


def to_blob(vec: np.ndarray) -> bytes:
    return np.asarray(vec, dtype="<f4").tobytes()


def from_blob(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype="<f4")


class VectorIndex:
    def __init__(self, table: str, path: Path | None) -> None:
        self.table = table
        self.path = path
        self._lock = threading.RLock()
        self._index = self._new()
        self._applied = 0
        self._since_save = 0
        self._db_id: str | None = None

    @staticmethod
    def _new() -> Index:
        return Index(
            ndim=DIM,
            metric="cos",
            dtype="f32",
            connectivity=CONNECTIVITY,
            expansion_add=EXPANSION_ADD,
            expansion_search=EXPANSION_SEARCH,
        )

    def __len__(self) -> int:
        return len(self._index)

    # -- life cycle ---------------------------------------------------------------------

    def open(self, conn: sqlite3.Connection, db_id: str) -> None:
        """Load the saved index if it belongs to this database, then catch up with the log."""
        with self._lock:
            self._db_id = db_id
            if not self._load(conn):
                self.rebuild(conn)
            self.sync(conn)

    def _sidecar(self) -> Path:
        assert self.path is not None
        return self.path.with_suffix(self.path.suffix + ".json")

    def _load(self, conn: sqlite3.Connection) -> bool:
        if self.path is None or not self.path.exists() or not self._sidecar().exists():
            return False
        try:
            meta = json.loads(self._sidecar().read_text())
            if meta.get("db_id") != self._db_id or meta.get("table") != self.table:
                return False
            applied = int(meta["applied"])
            if applied > _max_seq(conn) or not _log_reaches(conn, applied):
                return False
            index = self._new()
            index.load(str(self.path))
            if len(index) != int(meta["count"]):
                return False
        except Exception as exc:  # a torn or foreign file is rebuilt, never trusted
            log.warning("vector index %s unreadable (%s); rebuilding", self.path, exc)
            return False
        self._index, self._applied = index, applied
        return True

    def rebuild(self, conn: sqlite3.Connection) -> None:
        with self._lock:
            index = self._new()
            applied = _max_seq(conn)
            cur = conn.execute(
                f"SELECT rowid, embedding FROM {self.table} WHERE embedding IS NOT NULL"
            )
            while batch := cur.fetchmany(4096):
                keys = np.fromiter((r[0] for r in batch), dtype=np.uint64, count=len(batch))
                vecs = np.vstack([from_blob(r[1]) for r in batch])
                _add(index, keys, vecs)
            self._index, self._applied = index, applied
            log.info("vector index %s rebuilt: %d vectors", self.table, len(index))
            self.save()

    def save(self) -> None:
        if self.path is None:
            return
        with self._lock:
            # usearch writes the file with the umask's mode; atomic_path makes it 0600 (data)
            with atomic_path(self.path, mode=FILE_MODE) as tmp:
                self._index.save(str(tmp))
            meta = {
                "db_id": self._db_id,
                "table": self.table,
                "applied": self._applied,
                "count": len(self._index),
            }
            atomic_write(self._sidecar(), json.dumps(meta), mode=FILE_MODE)
            self._since_save = 0

    # -- keeping in step ----------------------------------------------------------------

    def sync(self, conn: sqlite3.Connection) -> None:
        """Apply every vector change committed since the last sync (by any process)."""
        with self._lock:
            newest = _max_seq(conn)
            if newest == self._applied:
                return
            if not _log_reaches(conn, self._applied):
                self.rebuild(conn)
                return
            rows = conn.execute(
                "SELECT key, op FROM vector_log WHERE seq > ? AND seq <= ? AND tbl = ? ORDER BY seq",
                (self._applied, newest, self.table),
            ).fetchall()
            last_op: dict[int, str] = {}
            for key, op in rows:
                last_op[key] = op
            if last_op:
                self._apply(conn, last_op)
            self._applied = newest
            self._since_save += len(rows)
            if self._since_save >= SAVE_EVERY:
                self.save()
                conn.execute(
                    "DELETE FROM vector_log WHERE seq <= ? AND tbl = ?",
                    (self._applied - KEEP_LOG, self.table),
                )

    def _apply(self, conn: sqlite3.Connection, last_op: dict[int, str]) -> None:
        keys = np.fromiter(last_op.keys(), dtype=np.uint64, count=len(last_op))
        present = keys[np.asarray(self._index.contains(keys), dtype=bool).reshape(-1)]
        if len(present):
            self._index.remove(present)
        adds = [k for k, op in last_op.items() if op == "add"]
        for part, marks in in_batches(adds):
            found = conn.execute(
                f"SELECT rowid, embedding FROM {self.table} "
                f"WHERE rowid IN ({marks}) AND embedding IS NOT NULL",
                part,
            ).fetchall()
            if found:
                _add(
                    self._index,
                    np.array([r[0] for r in found], dtype=np.uint64),
                    np.vstack([from_blob(r[1]) for r in found]),
                )

    # -- search -------------------------------------------------------------------------

    def search(self, conn: sqlite3.Connection, vec: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(rowid, cosine similarity), best first."""
        with self._lock:
            self.sync(conn)
            if len(self._index) == 0 or k <= 0:
                return []
            matches = self._index.search(
                np.asarray(vec, dtype=np.float32), min(k, len(self._index))
            )
            return [(int(key), 1.0 - float(d)) for key, d in zip(matches.keys, matches.distances)]


def _max_seq(conn: sqlite3.Connection) -> int:
    # sqlite_sequence remembers the highest seq ever given, even after pruning.
    row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'vector_log'").fetchone()
    return row[0] if row else 0


def _log_reaches(conn: sqlite3.Connection, applied: int) -> bool:
    """True if every entry after `applied` is still in the log (none pruned)."""
    oldest = conn.execute("SELECT min(seq) FROM vector_log").fetchone()[0]
    if oldest is None:
        return applied >= _max_seq(conn)
    return oldest <= applied + 1
