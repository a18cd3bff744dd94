"""Audit: one record per tools/call (allowed or denied); secrets never written.

``open_sink(config, settings)`` returns the configured sink (JSONL by default, PostgreSQL when
``audit.sink: postgres``); ``query(sink, ...)`` filters records for ``broker audit``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Protocol

from neuralgentics.broker.audit.jsonl import JsonlAuditSink
from neuralgentics.broker.audit.record import AuditRecord, argument_digest, redact
from neuralgentics.broker.config import AuditConfig, ConfigError
from neuralgentics.config import Settings


class AuditSink(Protocol):
    async def write(self, record: AuditRecord) -> None: ...
    def read(self) -> Iterator[AuditRecord]: ...
    def close(self) -> None: ...


def default_audit_path(settings: Settings) -> Path:
    return settings.home / "broker" / "audit.jsonl"


def open_sink(config: AuditConfig, settings: Settings) -> AuditSink:
    """The sink the config names; `settings` give the default JSONL path (under the data dir)
    and the database a PostgreSQL sink uses when the config names none."""
    if config.sink == "postgres":
        url = config.database_url or settings.database_url
        if not url:
            raise ConfigError(
                "audit.sink: 'postgres' needs audit.database_url or NEURALGENTICS_DATABASE_URL"
            )
        from neuralgentics.broker.audit.postgres import PostgresAuditSink

        return PostgresAuditSink(url)
    path = Path(config.path).expanduser() if config.path else default_audit_path(settings)
    return JsonlAuditSink(path, max_bytes=config.max_bytes, keep=config.keep, fsync=config.fsync)


def query(
    records: Iterable[AuditRecord],
    *,
    since: datetime | None = None,
    role: str | None = None,
    server: str | None = None,
) -> list[AuditRecord]:
    out = []
    for r in records:
        if role is not None and r.role != role:
            continue
        if server is not None and r.server != server:
            continue
        if since is not None and datetime.fromisoformat(r.time) < since:
            continue
        out.append(r)
    return out


__all__ = [
    "AuditRecord",
    "AuditSink",
    "JsonlAuditSink",
    "argument_digest",
    "default_audit_path",
    "open_sink",
    "query",
    "redact",
]
