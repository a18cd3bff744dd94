"""Task records of the Boomerang protocol, kept in a SQLite file so a restart loses none.

One row per task holding its JSON record; every step is one transaction guarded by a version
number, so two concurrent calls cannot both take the same step.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

from neuralgentics.filemodes import private_dir, private_file, private_files
from neuralgentics.orchestrator.errors import NotFound, StepRefused
from neuralgentics.orchestrator.protocol import TaskRecord

SCHEMA = """
CREATE TABLE IF NOT EXISTS orchestrator_tasks (
    id TEXT PRIMARY KEY,
    session TEXT NOT NULL,
    status TEXT NOT NULL,
    version INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS orchestrator_tasks_session ON orchestrator_tasks(session);
"""


class TaskStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        # task records quote tasks and results: private like the memories (dir 0700, file 0600)
        private_dir(path.parent)
        private_file(path)
        private_files(path.parent.glob(f"{path.name}-*"))
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA busy_timeout=5000")
        self._conn.executescript(SCHEMA)

    def close(self) -> None:
        self._conn.close()

    def insert(self, record: TaskRecord) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT INTO orchestrator_tasks VALUES (?, ?, ?, ?, ?, ?, ?)",
                (record.id, record.session, record.status, record.version,
                 record.created_at, record.updated_at, json.dumps(record.to_json())),
            )

    def get(self, task_id: str) -> TaskRecord:
        with self._lock:
            row = self._conn.execute("SELECT record FROM orchestrator_tasks WHERE id = ?", (task_id,)).fetchone()
        if row is None:
            raise NotFound(f"no task '{task_id}'", field="id")
        return TaskRecord.from_json(json.loads(row[0]))

    def save(self, record: TaskRecord) -> None:
        """Write a changed record; refused if someone else changed it since it was read."""
        expected = record.version
        record.version += 1
        with self._lock:
            cur = self._conn.execute(
                "UPDATE orchestrator_tasks SET status = ?, version = ?, updated_at = ?, record = ? "
                "WHERE id = ? AND version = ?",
                (record.status, record.version, record.updated_at, json.dumps(record.to_json()), record.id, expected),
            )
        if cur.rowcount != 1:
            record.version = expected
            raise StepRefused(f"task {record.id} was changed by another call meanwhile; read it again and retry")

    def list(self, *, session: str | None = None, limit: int = 50) -> list[TaskRecord]:
        sql = "SELECT record FROM orchestrator_tasks"
        args: tuple = ()
        if session:
            sql += " WHERE session = ?"
            args = (session,)
        sql += " ORDER BY created_at DESC LIMIT ?"
        with self._lock:
            rows = self._conn.execute(sql, (*args, limit)).fetchall()
        return [TaskRecord.from_json(json.loads(r[0])) for r in rows]
