"""The HTTP front's fast path: a plain ``tools/call`` POST answered with one JSON response.

Profiling ``broker serve`` (docs/benchmarks-broker.md, ``--profile-http``) put most of a call's CPU in the
SDK's streamable HTTP machinery: an SSE response per POST (sse-starlette, a task group),
the POST handling (message validation, per-request memory streams), and the SDK server's
dispatch (a task, a cancel scope, a span) — for a call that needs none of it. So, like the
stdio front, this one answers a plain call itself, with the same handler (``route_call``:
the same access check, schema check, audit and downstream path) and the SDK's own result
sieve and error mapping, as ``application/json`` (which the spec lets a server choose for
any POST; the client's ``Accept`` must list it).

A POST takes this path only when all of these hold, else the SDK answers it as before:

- HTTPGuard let it through (Host/Origin, the bearer token, the body limit) and the role the
  credential may act as was pinned (``http._MCPEndpoint``; a refusal there is final); no
  header is sent twice;
- its ``mcp-session-id`` is a session whose ``initialize`` the SDK committed (from then on the
  SDK accepts requests on it too; forgotten when the SDK ends the session) and still
  serves; its ``mcp-protocol-version`` header is the version that session negotiated (a
  pre-2026 one); ``Accept`` lists ``application/json`` and ``text/event-stream`` and the body
  is ``application/json``;
- the client declared neither sampling nor elicitation (only the SDK session can send it a
  request during a call and match the answer; OpenCode 1.18 declares neither). A server's
  sampling or elicitation request during such a call is refused with the reason the SDK path
  gives this client (``FastPeer``), and the call counts as in flight for the forwarder;
- the body is exactly one JSON-RPC request ``tools/call`` with ``name`` and ``arguments``
  only — no ``_meta``, hence no progress token (progress needs the SSE stream) — whose name
  is ``mcp_router_call`` or a passthrough tool; its id is not already in flight.

``notifications/cancelled`` for a call in flight here cancels it (the downstream request is
cancelled too) and the POST of the call is answered ``-32800 Request cancelled``, as the
SDK's streamable HTTP transport does for the handshake-era protocol. A call on this path keeps
the SDK session from expiring as idle (its transport's idle deadline is moved on).
``tests/broker/test_http_fast_path.py`` sends each case both ways and compares the answers.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mcp.types as types
import pydantic_core
from mcp.server.context import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types.methods import serialize_server_result
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.types import Send

from neuralgentics.broker import mcp_sdk
from neuralgentics.broker.forward import ELICITATION, SAMPLING, current_peer
from neuralgentics.broker.server.handlers import Caller, route_call
from neuralgentics.broker.server.peer import connection_key, track
from neuralgentics.broker.service import Broker

logger = logging.getLogger(__name__)

REQUEST_CANCELLED = -32800  # the SDK's streamable HTTP transport answers a cancelled call so
_REQUEST_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
_PARAMS_KEYS = frozenset({"name", "arguments"})
_CANCEL_KEYS = frozenset({"requestId", "reason"})


def _key(rid: object) -> tuple[type, object]:
    return (type(rid), rid)  # JSON-RPC ids 1 and "1" are different requests


@dataclass
class _Call:
    """A fast-path call in flight: the request's task, and whether the client cancelled it."""

    task: asyncio.Task[Any]
    cancelled: bool = False


@dataclass
class FastSession:
    version: str  # negotiated in the handshake
    fast: bool  # the client declared neither sampling nor elicitation
    key: object  # the SDK connection behind the session (``peer.connection_key``)
    inflight: dict[tuple[type, object], _Call] = field(default_factory=dict)


@dataclass
class FastCall:
    """A POST the fast path answers: everything ``answer`` needs, checked by ``admit``."""

    info: FastSession
    sid: str
    rid: str | int
    key: tuple[type, object]
    name: str
    args: dict[str, Any]
    transport: Any  # the SDK's session transport (its idle deadline is moved on)
    broker: Broker


@dataclass
class Cancel:
    """A ``notifications/cancelled`` the fast path applied: answered 202, empty."""


class FastPeer:
    """A fast-path call's client, as the forwarder (``broker.forward``) sees it: registered
    in flight like the SDK path's ``SessionPeer`` (so a server's request during two clients'
    calls is refused, never sent to the other one), keyed by the same SDK connection, and
    refusing as that client would be refused (it declared neither capability)."""

    def __init__(self, key: object, caller: Caller) -> None:
        self.key = key
        self.role, self.session_id = caller.role, caller.session_id
        self.front, self.credential = caller.front, caller.credential

    def refusal(self, method: str, params: Any) -> str | None:
        if method == SAMPLING:
            return "the client did not declare the sampling capability"
        if method == ELICITATION:
            return "the client did not declare the elicitation capability"
        return "this connection has no channel for requests to the client"

    async def request(self, method: str, params: Any, timeout: float | None) -> Any:
        raise AssertionError("never asked: refusal() always refuses")  # pragma: no cover


_TEXT_KEYS = frozenset({"type", "text"})
_TOUCH_STALENESS = 0.001  # of the idle timeout: how far behind a deadline may be before it moves


def _plain_text(result: Any) -> dict[str, Any] | None:
    """A result of text items only, as the per-version sieve would dump it, without running
    it (a pydantic validation and dump per call): each text item is the same in every
    handshake-era version, and nothing in it can be dropped. None for anything else."""
    if not isinstance(result, dict) or result.keys() - {"content", "isError"}:
        return None
    content, is_error = result.get("content"), result.get("isError", False)
    if not isinstance(content, list) or not isinstance(is_error, bool):
        return None
    for item in content:
        if (
            not isinstance(item, dict)
            or item.keys() != _TEXT_KEYS
            or item["type"] != "text"
            or not isinstance(item["text"], str)
        ):
            return None
    return {"content": content, "isError": is_error}


@functools.lru_cache(maxsize=256)  # a client sends the same Accept with every call
def _accepts_both(accept: str) -> bool:
    """What the SDK requires of a POST's Accept header (with its wildcards)."""
    types_ = [t.split(";", 1)[0].strip().lower() for t in accept.split(",")]
    if "*/*" in types_:
        return True
    return any(t in ("application/json", "application/*") for t in types_) and any(
        t in ("text/event-stream", "text/*") for t in types_
    )


class HttpFastPath:
    """Sessions the fast path may answer for, and the answering."""

    def __init__(
        self,
        broker: Callable[[], Broker],
        manager: Callable[[], StreamableHTTPSessionManager],
    ) -> None:
        self._broker = broker
        self._manager = manager
        self.sessions: dict[str, FastSession] = {}
        self._connections: dict[str, Any] = {}  # sid -> the SDK's Connection, from initialize

    # -- which sessions ------------------------------------------------------------------

    async def middleware(self, ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        """An SDK server middleware: notes each session's connection as ``initialize`` passes
        (the SDK commits the handshake just after this returns, before the client has the
        result) and registers it for list changes once the client is initialized."""
        result = await call_next(ctx)
        if ctx.method == "initialize":
            conn = connection_key(ctx.session)
            sid = mcp_sdk.handshake_session_id(conn)
            if sid:
                self._connections[sid] = conn
                mcp_sdk.on_connection_close(conn, self.forget, sid)
        elif ctx.method == "notifications/initialized":
            # Told about list changes even if it never sends a request the SDK answers.
            track(self._broker(), ctx)
        return result

    def _session(self, sid: str) -> FastSession | None:
        """The session ``sid`` once the SDK accepts requests on it (its ``initialize``
        committed: the SDK's own gate, ``initialize_accepted``); None before, or if it is not
        one this path may answer for (a 2026 version)."""
        info = self.sessions.get(sid)
        if info is not None:
            return info
        conn = self._connections.get(sid)
        if conn is None or not conn.initialize_accepted:
            return None
        version = conn.protocol_version
        if version not in HANDSHAKE_PROTOCOL_VERSIONS:
            return None
        caps = conn.client_capabilities
        fast = caps is None or (caps.sampling is None and caps.elicitation is None)
        info = self.sessions[sid] = FastSession(version=version, fast=fast, key=conn)
        return info

    def forget(self, sid: str) -> None:
        self.sessions.pop(sid, None)
        self._connections.pop(sid, None)

    # -- answering -----------------------------------------------------------------------

    def admit(self, headers: dict[str, str], body: bytes) -> FastCall | Cancel | None:
        """What the fast path makes of this POST (module docstring), decided without waiting:
        a call to answer, a cancellation of one of its calls, or None (the SDK answers it)."""
        sid = headers.get("mcp-session-id")
        info = self._session(sid) if sid else None
        if info is None or not info.fast or sid is None:
            return None
        if headers.get("mcp-protocol-version") != info.version:
            return None
        if not headers.get("content-type", "").lower().startswith("application/json"):
            return None
        if not _accepts_both(headers.get("accept", "")):
            return None
        try:
            msg = pydantic_core.from_json(body)
        except ValueError:
            return None  # the SDK answers its parse error
        if not isinstance(msg, dict) or msg.keys() - _REQUEST_KEYS or msg.get("jsonrpc") != "2.0":
            return None
        method, params = msg.get("method"), msg.get("params")
        if "id" not in msg:
            if method == "notifications/cancelled":
                return self._cancel_of(info, params)
            return None
        rid = msg["id"]
        if (
            method != "tools/call"
            or not isinstance(rid, str | int)
            or isinstance(rid, bool)
            or not isinstance(params, dict)
            or params.keys() - _PARAMS_KEYS
        ):
            return None
        name, args = params.get("name"), params.get("arguments")
        if args is None:
            args = {}
        if not isinstance(name, str) or not isinstance(args, dict):
            return None
        broker = self._broker()
        if name != "mcp_router_call" and not broker.passthrough.any():
            return None
        key = _key(rid)
        if key in info.inflight:
            return None  # a duplicate id: the SDK's rules answer it
        transport = mcp_sdk.session_transport(self._manager(), sid)
        if transport is None or transport.is_terminated:
            self.forget(sid)
            return None  # the SDK answers 404 for a session it no longer has
        return FastCall(info, sid, rid, key, name, args, transport, broker)

    async def answer(self, call: FastCall, caller: Caller) -> bytes:
        """The JSON-RPC answer to ``call``, serialised; run in the request's own task (no task
        of its own: that was a task and a loop turn per call), which
        ``notifications/cancelled`` cancels, flagged as such."""
        info, transport = call.info, call.transport
        task = asyncio.current_task()
        assert task is not None
        loop = task.get_loop()
        self._touch(transport, loop)
        running = _Call(task)
        info.inflight[call.key] = running
        token = current_peer.set(FastPeer(info.key, caller))
        try:
            answer = await self._run(call.broker, caller, call.name, call.args, info.version)
        except asyncio.CancelledError:
            if not running.cancelled or task.cancelling() > 1:
                raise  # the server is stopping (or this request was cancelled otherwise)
            task.uncancel()
            # notifications/cancelled: answered as the SDK transport answers it
            answer = {"error": {"code": REQUEST_CANCELLED, "message": "Request cancelled"}}
        else:
            if running.cancelled:  # the call swallowed the cancellation and finished
                task.uncancel()
        finally:
            current_peer.reset(token)
            info.inflight.pop(call.key, None)
            self._touch(transport, loop)
        return pydantic_core.to_json({"jsonrpc": "2.0", "id": call.rid, **answer})

    async def try_answer(
        self, headers: dict[str, str], body: bytes, caller_of: Callable[[str], Caller], send: Send
    ) -> bool:
        """Answer ``body`` here if it qualifies (module docstring); False leaves it to the SDK.
        The ASGI way in; ``http_protocol.DirectMcpProtocol`` calls ``admit`` and ``answer``
        itself, before any ASGI scope or cycle exists."""
        plan = self.admit(headers, body)
        if plan is None:
            return False
        if isinstance(plan, Cancel):
            await send(
                {
                    "type": "http.response.start",
                    "status": 202,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", b"0")],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return True
        payload = await self.answer(plan, caller_of(plan.sid))
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                    (b"mcp-session-id", plan.sid.encode("latin-1")),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})
        return True

    async def _run(
        self,
        broker: Broker,
        caller: Caller,
        name: str,
        args: dict[str, Any],
        version: str,
    ) -> dict[str, Any]:
        """``{"result": …}`` or ``{"error": …}`` exactly as the SDK server would answer."""
        try:
            result = await route_call(broker, caller, name, args, as_json=True)
            if isinstance(result, types.CallToolResult):
                result = result.model_dump(by_alias=True, mode="json", exclude_none=True)
            dumped = _plain_text(result)
            if dumped is None:
                dumped = serialize_server_result("tools/call", version, result)
                dumped.setdefault("isError", False)  # the SDK path's model always says it
            return {"result": dumped}
        except Exception as exc:  # every failure is answered, as the SDK does
            error = mcp_sdk.error_data(exc)
            if error is None:
                logger.exception("tools/call raised")
                error = types.ErrorData(code=0, message=str(exc))  # the dispatcher's catch-all
            return {"error": error.model_dump(by_alias=True, mode="json", exclude_none=True)}

    def _cancel_of(self, info: FastSession, params: Any) -> Cancel | None:
        """``notifications/cancelled`` for a call in flight here: cancelled now (its POST is
        answered ``Request cancelled``); None for anything else (the SDK applies it, or
        ignores an unknown id)."""
        if not isinstance(params, dict) or params.keys() - _CANCEL_KEYS:
            return None
        rid = params.get("requestId")
        if not isinstance(rid, str | int) or isinstance(rid, bool):
            return None
        call = info.inflight.get(_key(rid))
        if call is None:
            return None
        if not call.cancelled:
            call.cancelled = True
            call.task.cancel()
        return Cancel()

    def _touch(self, transport: Any, loop: asyncio.AbstractEventLoop) -> None:
        """Move the SDK session's idle deadline on, as a request it served would (unless one
        of its own requests is in flight: then the deadline is held at infinity)."""
        scope = mcp_sdk.idle_scope(transport)
        timeout = self._manager().session_idle_timeout
        if scope is None or timeout is None or scope.deadline == math.inf:
            return
        # anyio's clock on asyncio (the loop's), without its backend lookup at every call
        deadline = loop.time() + timeout
        # Setting it re-arms the scope's timer (a cancelled handle and a new one), twice per
        # call; the deadline (30 min by default) moves on once it is 0.1 % behind (1.8 s).
        if deadline - scope.deadline >= timeout * _TOUCH_STALENESS:
            scope.deadline = deadline
