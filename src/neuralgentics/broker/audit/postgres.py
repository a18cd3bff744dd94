"""PostgreSQL audit sink (the memini-core database when configured): one row per call."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

from neuralgentics.broker.audit.migrations import COMPONENT, migrations
from neuralgentics.broker.audit.record import AuditRecord
from neuralgentics.db.postgres import PostgresDatabase

_COLS = [
    "time",
    "session_id",
    "role",
    "server",
    "tool",
    "args",
    "args_sha256",
    "outcome",
    "error",
    "rule",
    "latency_ms",
    "bytes_in",
    "bytes_out",
    "front",
    "kind",
    "credential",
    "connection",
    "sandbox",
]


class PostgresAuditSink:
    """The table comes from the audit component's migrations (`migrations/postgres/`); the
    connections, retries and error mapping from `neuralgentics.db.postgres`."""

    def __init__(self, database_url: str) -> None:
        self.db = PostgresDatabase(database_url, name="audit", min_size=1, max_size=2)
        # Two brokers starting together serialise on the runner's advisory lock.
        self.db.migrate(COMPONENT, migrations("postgres"))
        self.db.open()

    def write_sync(self, record: AuditRecord) -> None:
        row: dict[str, Any] = record.to_dict()  # bounded and scrubbed, as the JSONL sink writes it
        row["args"] = json.dumps(row["args"], default=str)
        sql = (
            f"INSERT INTO broker_audit ({', '.join(_COLS)}) "
            f"VALUES ({', '.join('%(' + c + ')s' for c in _COLS)})"
        )
        self.db.run(lambda conn: conn.execute(sql, row), tx=False)  # durable once this returns

    async def write(self, record: AuditRecord) -> None:
        await asyncio.to_thread(self.write_sync, record)

    def read(self) -> Iterator[AuditRecord]:
        rows = self.db.run(
            lambda conn: conn.execute(
                f"SELECT {', '.join(_COLS)} FROM broker_audit ORDER BY id"
            ).fetchall(),
            tx=False,
        )
        for r in rows:
            data = dict(zip(_COLS, r, strict=True))
            data["time"] = data["time"].isoformat(timespec="milliseconds")
            yield AuditRecord.from_dict(data)

    def close(self) -> None:
        self.db.close()
