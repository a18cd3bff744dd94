"""The audit trail: every call, refusal and admin operation as one record, through the flood
gate (audit/gate.py) to the sink (`Broker` is the front that holds the parts)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pydantic_core
from mcp.shared.exceptions import MCPError

from neuralgentics.broker.audit import AuditRecord, AuditSink
from neuralgentics.broker.audit.gate import FloodGate
from neuralgentics.broker.errors import (
    AccessDenied,
    BrokerError,
    CallTimeout,
    InvalidRequest,
    NotFound,
)

logger = logging.getLogger(__name__)

R = TypeVar("R")


def note_failure(rec: AuditRecord, exc: BaseException) -> None:
    """Set a failed request's outcome, error and rule on its audit record (an exception this
    does not know leaves the record's own outcome, "error")."""
    if isinstance(exc, AccessDenied):
        rec.outcome, rec.error, rec.rule = "denied", exc.message, exc.rule
    elif isinstance(exc, (InvalidRequest, NotFound)):
        rec.outcome, rec.error = "invalid", exc.message
    elif isinstance(exc, BrokerError):
        rec.outcome = "timeout" if isinstance(exc, CallTimeout) else "error"
        rec.error = exc.message
    elif isinstance(exc, MCPError):
        rec.error = f"downstream error {exc.code}: {exc.message}"
    elif isinstance(exc, asyncio.CancelledError):
        rec.outcome, rec.error = "cancelled", "the caller cancelled the request"


class AuditTrail:
    def __init__(self, sink: AuditSink, gate: FloodGate) -> None:
        self.sink = sink
        self.gate = gate

    async def close(self) -> None:
        """Write what the gate still counts, then close the sink."""
        for rec in self.gate.flush():
            await self.write_one(rec)
        self.sink.close()

    async def audited(self, rec: AuditRecord, run: Callable[[], Awaitable[R]]) -> R:
        """Run one request (a resource read, a prompt) and write its record, whatever happens,
        as ``_call`` does for a tool call."""
        t0 = time.perf_counter()
        rec.bytes_in = len(pydantic_core.to_json(rec.args, fallback=str))
        try:
            result = await run()
            rec.outcome = "ok"
            return result
        except BaseException as exc:
            note_failure(rec, exc)
            raise
        finally:
            rec.latency_ms = round((time.perf_counter() - t0) * 1000, 3)
            await self.write(rec)

    async def write(self, rec: AuditRecord) -> None:
        """Through the flood gate: refusals past a caller's budget are counted, not written
        one by one (audit/gate.py), so they cannot rotate earlier records away."""
        for r in self.gate.admit(rec):
            await self.write_one(r)

    async def write_one(self, rec: AuditRecord) -> None:
        try:
            await self.sink.write(rec)
        except Exception:  # noqa: BLE001 - the call's outcome must not depend on the log
            logger.exception("audit write failed")

    async def refused(
        self,
        *,
        error: str,
        role: str | None = None,
        server: Any = "-",
        tool: Any = "-",
        arguments: Any = None,
        session_id: str | None = None,
        front: str = "",
        credential: str | None = None,
        outcome: str = "invalid",
        rule: str | None = None,
        connection: str | None = None,
        kind: str = "call",
    ) -> None:
        """Record a tools/call a front refused before it reached :meth:`call` (a body that is
        not JSON, nested past the parser's limit, not shaped like a call, a role it may not
        claim); with ``kind="intent"``, how an intent call was resolved (``dispatched`` to a
        tool, or ``unresolved`` and answered with candidates)."""
        rec = AuditRecord.for_call(
            role=role,
            server=str(server),
            tool=str(tool),
            arguments=arguments,
            outcome=outcome,
            error=error,
            rule=rule,
            session_id=session_id,
            front=front,
            credential=credential,
            connection=connection if connection != session_id else None,
            kind=kind,
        )
        await self.write(rec)

    async def admin(
        self,
        action: str,
        target: str,
        outcome: str,
        *,
        credential: str | None,
        front: str,
        details: dict[str, Any] | None = None,
        error: str | None = None,
        role: str | None = None,
    ) -> None:
        """One audit record per admin operation, done or refused: who, what, on which server."""
        rec = AuditRecord.for_call(
            role=role,
            server=target,
            tool=action,
            arguments=details or {},
            outcome=outcome,
            error=error,
            front=front,
            credential=credential,
            kind="admin",
        )
        # Admin records are never gated: they are rare, and each one matters.
        await self.write_one(rec)
