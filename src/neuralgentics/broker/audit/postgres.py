"""PostgreSQL audit sink (the memini-core database when configured): one row per call."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

from neuralgentics.broker.audit.record import AuditRecord

_DDL = """
CREATE TABLE IF NOT EXISTS broker_audit (
    id          bigserial PRIMARY KEY,
    time        timestamptz NOT NULL,
    session_id  text,
    role        text,
    server      text NOT NULL,
    tool        text NOT NULL,
    args        jsonb NOT NULL,
    args_sha256 text NOT NULL,
    outcome     text NOT NULL,
    error       text,
    rule        text,
    latency_ms  double precision NOT NULL,
    bytes_in    integer NOT NULL,
    bytes_out   integer NOT NULL,
    front       text NOT NULL
);
CREATE INDEX IF NOT EXISTS broker_audit_time ON broker_audit (time);
ALTER TABLE broker_audit ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'call';
ALTER TABLE broker_audit ADD COLUMN IF NOT EXISTS credential text;
"""

# Advisory lock key for the DDL: any fixed 64-bit number unique to this table.
_DDL_LOCK = 0x6E67_6175_6469_74  # "ngaudit"

_COLS = [
    "time", "session_id", "role", "server", "tool", "args", "args_sha256", "outcome",
    "error", "rule", "latency_ms", "bytes_in", "bytes_out", "front", "kind", "credential",
]


class PostgresAuditSink:
    def __init__(self, database_url: str) -> None:
        import psycopg

        self._conn = psycopg.connect(database_url, autocommit=True)
        self._lock = threading.Lock()
        with self._lock, self._conn.transaction():
            # Two brokers starting together would race CREATE TABLE IF NOT EXISTS (a unique
            # violation on pg_type); one transaction-scoped advisory lock serialises them.
            self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (_DDL_LOCK,))
            self._conn.execute(_DDL)

    def write_sync(self, record: AuditRecord) -> None:
        row: dict[str, Any] = record.to_dict()  # bounded and scrubbed, as the JSONL sink writes it
        row["args"] = json.dumps(row["args"], default=str)
        sql = (
            f"INSERT INTO broker_audit ({', '.join(_COLS)}) "
            f"VALUES ({', '.join('%(' + c + ')s' for c in _COLS)})"
        )
        with self._lock:
            self._conn.execute(sql, row)  # autocommit: durable once this returns

    async def write(self, record: AuditRecord) -> None:
        await asyncio.to_thread(self.write_sync, record)

    def read(self) -> Iterator[AuditRecord]:
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {', '.join(_COLS)} FROM broker_audit ORDER BY id"
            ).fetchall()
        for r in rows:
            data = dict(zip(_COLS, r, strict=True))
            data["time"] = data["time"].isoformat(timespec="milliseconds")
            yield AuditRecord.from_dict(data)

    def close(self) -> None:
        with self._lock:
            self._conn.close()
