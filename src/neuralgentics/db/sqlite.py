"""A SQLite database file as every store here opens it: one connection per thread, the same
pragmas, `BEGIN IMMEDIATE` transactions, private file modes, migrations by the one runner.

Stores hold their SQL and call `connection()` (reads) and `transaction()` (writes); a second
store over the same file (the project index beside the memories) uses the same object, so it
shares the connections, the lock order and the rollback rule.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from neuralgentics.db import migrations as runner
from neuralgentics.db.errors import StoreUnavailable
from neuralgentics.filemodes import private_dir, private_file, private_files

# Bytes that are not UTF-8 (a row written by another tool, or damaged) would fail the whole
# read; decoded with surrogateescape they reach the row readers, which repair and report them
# (memini/store/repair.py). A C call, as fast as str.
_TEXT = functools.partial(str, encoding="utf-8", errors="surrogateescape")


class SQLiteDatabase:
    """`path`: the database file. `also_private`: other folders whose files named after it
    (an index beside it) are tightened too."""

    def __init__(self, path: Path | str, *, also_private: Iterable[Path] = ()) -> None:
        self.path = Path(path)
        # Only the owner may read what is stored (other local users are not trusted): the dir
        # 0700, the database 0600 before SQLite opens it (its -wal and -shm files take the
        # database's mode), and whatever an older version left readable is tightened.
        private_dir(self.path.parent)
        private_file(self.path)
        folders = {self.path.parent, *also_private}
        private_files(p for d in folders for p in d.glob(f"{self.path.name}*"))
        self._local = threading.local()
        self._conns: list[sqlite3.Connection] = []
        self._conns_lock = threading.Lock()

    def connection(self) -> sqlite3.Connection:
        """This thread's connection (autocommit: each statement outside `transaction()` is its
        own transaction)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = sqlite3.connect(
                    self.path, isolation_level=None, check_same_thread=False, timeout=30
                )
                conn.text_factory = _TEXT
                conn.execute("PRAGMA journal_mode = WAL")
                # FULL: an acknowledged write survives a power cut, not only a crash.
                conn.execute("PRAGMA synchronous = FULL")
                conn.execute("PRAGMA foreign_keys = ON")
                conn.execute("PRAGMA busy_timeout = 30000")
            except sqlite3.Error as exc:
                raise StoreUnavailable(f"cannot open SQLite database {self.path}: {exc}") from exc
            self._local.conn = conn
            with self._conns_lock:
                self._conns.append(conn)
        return conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        conn = self.connection()
        # IMMEDIATE takes the write lock up front, so two writers queue instead of deadlocking.
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def migrate(self, component: str, migrations: list[runner.Migration]) -> list[int]:
        try:
            return runner.migrate_sqlite(self.connection(), component, migrations)
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"migrating SQLite database {self.path} failed: {exc}") from exc

    def schema_version(self, component: str) -> int:
        return runner.sqlite_version(self.connection(), component)

    def ping(self) -> None:
        try:
            self.connection().execute("SELECT 1").fetchone()
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"SQLite database {self.path} unavailable: {exc}") from exc

    def close(self) -> None:
        with self._conns_lock:
            for conn in self._conns:
                conn.close()
            self._conns.clear()
        self._local = threading.local()
