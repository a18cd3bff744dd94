"""Task records of the Boomerang protocol, kept in a SQLite file so a restart loses none.

One row per task holding its JSON record; every step is one transaction guarded by a version
number, so two concurrent calls cannot both take the same step. The file is opened, made
private and migrated by `neuralgentics.db` like every other database here.
"""

from __future__ import annotations

import json
from pathlib import Path

from neuralgentics.db.sqlite import SQLiteDatabase
from neuralgentics.orchestrator.errors import NotFound, StepRefused
from neuralgentics.orchestrator.migrations import COMPONENT, migrations
from neuralgentics.orchestrator.protocol import TaskRecord


class TaskStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        # task records quote tasks and results: private like the memories (dir 0700, file 0600)
        self.db = SQLiteDatabase(path)
        self.db.migrate(COMPONENT, migrations("sqlite"))

    def close(self) -> None:
        self.db.close()

    def insert(self, record: TaskRecord) -> None:
        self.db.connection().execute(
            "INSERT INTO orchestrator_tasks VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                record.id,
                record.session,
                record.status,
                record.version,
                record.created_at,
                record.updated_at,
                json.dumps(record.to_json()),
            ),
        )

    def get(self, task_id: str) -> TaskRecord:
        row = (
            self.db.connection()
            .execute("SELECT record FROM orchestrator_tasks WHERE id = ?", (task_id,))
            .fetchone()
        )
        if row is None:
            raise NotFound(f"no task '{task_id}'", field="id")
        return TaskRecord.from_json(json.loads(row[0]))

    def save(self, record: TaskRecord) -> None:
        """Write a changed record; refused if someone else changed it since it was read."""
        expected = record.version
        record.version += 1
        cur = self.db.connection().execute(
            "UPDATE orchestrator_tasks SET status = ?, version = ?, updated_at = ?, record = ? "
            "WHERE id = ? AND version = ?",
            (
                record.status,
                record.version,
                record.updated_at,
                json.dumps(record.to_json()),
                record.id,
                expected,
            ),
        )
        if cur.rowcount != 1:
            record.version = expected
            raise StepRefused(
                f"task {record.id} was changed by another call meanwhile; read it again and retry"
            )

    def ids_between(self, low: str, high: str, limit: int) -> list[str]:
        """Task ids in [low, high], in order: what a short id names (`neuralgentics.db.ids`)."""
        rows = (
            self.db.connection()
            .execute(
                "SELECT id FROM orchestrator_tasks WHERE id BETWEEN ? AND ? ORDER BY id LIMIT ?",
                (low, high, limit),
            )
            .fetchall()
        )
        return [r[0] for r in rows]

    def list(self, *, session: str | None = None, limit: int = 50) -> list[TaskRecord]:
        sql = "SELECT record FROM orchestrator_tasks"
        args: tuple = ()
        if session:
            sql += " WHERE session = ?"
            args = (session,)
        sql += " ORDER BY created_at DESC LIMIT ?"
        rows = self.db.connection().execute(sql, (*args, limit)).fetchall()
        return [TaskRecord.from_json(json.loads(r[0])) for r in rows]
