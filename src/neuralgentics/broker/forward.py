"""Requests a downstream server sends to its client — ``sampling/createMessage`` and
``elicitation/create`` — forwarded to the broker's own client, and the answer back.

The broker holds one session per downstream server, shared by every client of the broker, and
a server's request carries nothing that names the call it belongs to (over stdio there is no
``relatedRequestId`` on the wire). So the request goes to the client whose call is in flight
on that server right now: each forwarded call (tools/call, resources/read, prompts/get)
registers its front connection here for as long as it runs (``Forwarder.enter``/``leave``). A call
from a front with no channel back to its client (REST ``POST /call``, a fast path) registers
too, as a client that cannot be asked (``NoChannel``): otherwise its server's request would
find only the *other* client's call in flight and be shown to it (issue 29, item 1). Exactly
one connection in flight → its client is asked, on that call's own response stream (streamable
HTTP) or its pipe (stdio), or refused with the reason it cannot be. None, or several different
connections (the broker cannot tell which one the request is for, and sending it to the wrong
one would show one client what another one's call is doing) → the server gets a JSON-RPC
error that says so. A client that
did not declare the capability → an error naming it. Each forwarded request is audited
(``kind: request``).
"""

from __future__ import annotations

import contextvars
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import mcp.types as types
import pydantic_core
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError

from neuralgentics.broker.audit import AuditRecord

logger = logging.getLogger(__name__)

SAMPLING = "sampling/createMessage"
ELICITATION = "elicitation/create"


class Peer(Protocol):
    """The front's side of one client connection, able to send that client a request."""

    # Identity of the client connection (two calls with equal keys come from one client).
    key: object
    role: str | None
    session_id: str | None
    front: str
    credential: str | None

    def refusal(self, method: str, params: Any) -> str | None:
        """Why this client cannot take ``method`` (it did not declare the capability), or None."""
        ...

    async def request(self, method: str, params: Any, timeout: float | None) -> Any:
        """Send ``method`` with the typed ``params``; the client's typed result, or MCPError."""
        ...


# The front connection the current call comes from (set by the front around a call; a fast
# path that cannot forward requests leaves it unset).
current_peer: contextvars.ContextVar[Peer | None] = contextvars.ContextVar(
    "neuralgentics_broker_peer", default=None
)

AuditWriter = Callable[[AuditRecord], Awaitable[None]]


class NoChannel:
    """A call whose front has no channel to send its client a request (REST ``POST /call``,
    an in-process caller): it counts as in flight like any other, so a server's request
    during it is never sent to another client, and is refused as this one's."""

    def __init__(self) -> None:
        self.key: object = self  # every such call is a client of its own
        self.role: str | None = None
        self.session_id: str | None = None
        self.front = "rest"
        self.credential: str | None = None

    def refusal(self, method: str, params: Any) -> str | None:
        return (
            "the call in flight on it came through a path with no channel for requests back to "
            "its client (a REST call, or a client that declared neither sampling nor elicitation)"
        )

    async def request(self, method: str, params: Any, timeout: float | None) -> Any:
        raise AssertionError("never asked: refusal() always refuses")  # pragma: no cover


def calling_peer() -> Peer:
    """The peer of the call being made: the front's (``current_peer``), else a ``NoChannel``."""
    return current_peer.get() or NoChannel()


@dataclass
class _InFlight:
    peer: Peer
    calls: int


class Forwarder:
    """Which client connections have calls in flight on which server; the downstream
    sessions' sampling and elicitation callbacks."""

    def __init__(self, audit: AuditWriter, timeout_of: Callable[[str], float | None]) -> None:
        self._audit = audit
        self._timeout_of = timeout_of
        self._inflight: dict[str, dict[object, _InFlight]] = {}

    def enter(self, server: str, peer: Peer) -> None:
        """A call from ``peer``'s client starts on ``server``: it may be asked on its behalf."""
        on_server = self._inflight.setdefault(server, {})
        slot = on_server.get(peer.key)
        if slot is None:
            on_server[peer.key] = _InFlight(peer, 1)
        else:
            slot.calls += 1

    def leave(self, server: str, peer: Peer) -> None:
        on_server = self._inflight.get(server)
        slot = on_server.get(peer.key) if on_server else None
        if on_server is None or slot is None:
            return
        slot.calls -= 1
        if slot.calls <= 0:
            del on_server[peer.key]
            if not on_server:
                del self._inflight[server]

    def handlers(self, server: str) -> tuple[Any, Any]:
        """(sampling callback, elicitation callback) for ``server``'s ClientSession."""

        async def sampling(
            context: ClientRequestContext, params: types.CreateMessageRequestParams
        ) -> Any:
            return await self._forward(server, SAMPLING, params)

        async def elicitation(
            context: ClientRequestContext, params: types.ElicitRequestParams
        ) -> Any:
            return await self._forward(server, ELICITATION, params)

        return sampling, elicitation

    def _peer(self, server: str, method: str) -> Peer:
        slots = list((self._inflight.get(server) or {}).values())
        if not slots:
            raise _Refused(
                f"{method} from server {server!r}: no call from a client that can answer it is "
                "in flight on that server (the broker forwards it to the client whose call is "
                "running, when that client declared the capability)"
            )
        if len(slots) > 1:
            raise _Refused(
                f"{method} from server {server!r}: calls from {len(slots)} client connections "
                "are in flight on it and the request does not say which one it belongs to; "
                "it is refused rather than shown to the wrong client"
            )
        return slots[0].peer

    async def _forward(self, server: str, method: str, params: Any) -> Any:
        t0 = time.perf_counter()
        peer: Peer | None = None
        dumped = params.model_dump(mode="json", by_alias=True, exclude_none=True)
        rec = AuditRecord.for_call(
            role=None, server=server, tool=method, arguments=dumped, outcome="error", kind="request"
        )
        rec.bytes_in = len(pydantic_core.to_json(dumped))
        try:
            peer = self._peer(server, method)
            rec.role, rec.session_id = peer.role, peer.session_id
            rec.front, rec.credential = peer.front, peer.credential
            reason = peer.refusal(method, params)
            if reason is not None:
                raise _Refused(f"{method} from server {server!r}: {reason}")
            result = await peer.request(method, params, self._timeout_of(server))
            rec.outcome = "ok"
            rec.bytes_out = len(result.model_dump_json(by_alias=True, exclude_none=True))
            return result
        except _Refused as exc:
            rec.outcome, rec.error = "invalid", str(exc)
            return types.ErrorData(code=types.INVALID_REQUEST, message=str(exc))
        except MCPError as exc:
            rec.error = f"the client answered with error {exc.code}: {exc.message}"
            return types.ErrorData(code=exc.code, message=exc.message, data=exc.error.data)
        except TimeoutError:
            rec.outcome = "timeout"
            rec.error = f"the client did not answer {method} in time"
            return types.ErrorData(code=types.REQUEST_TIMEOUT, message=rec.error)
        except Exception as exc:  # noqa: BLE001 - the server gets an answer whatever happened
            logger.exception("forwarding %s from %s failed", method, server)
            rec.error = f"forwarding failed: {type(exc).__name__}: {exc}"
            return types.ErrorData(code=types.INTERNAL_ERROR, message=rec.error)
        finally:
            rec.latency_ms = round((time.perf_counter() - t0) * 1000, 3)
            await self._audit(rec)


class _Refused(Exception):
    """The request cannot be forwarded; the message says why (sent to the server)."""
