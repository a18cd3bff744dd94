"""``neuralgentics broker serve``: streamable HTTP at ``/mcp`` plus REST for native callers.

Many clients share one set of warm servers. The REST routes are `rest.router` (``GET /tools``,
``POST /call``, ``GET|POST /servers``, ``DELETE /servers/{name}``, ``POST /reload``,
``POST /match``, ``GET /health``); this module assembles the app: the broker opened in the
lifespan and handed to the routes, /mcp, the error handler and HTTPGuard.

Every route but ``GET /health`` needs a bearer token (``HTTPGuard``): the owner's
(``credentials.ensure_token``), or one bound to a role (``broker token add``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any

import pydantic_core
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from neuralgentics.broker.config import BrokerConfig
from neuralgentics.broker.errors import AccessDenied, InvalidRequest
from neuralgentics.broker.intent.tools import Intents
from neuralgentics.broker.limits import check_session_id, loads_pruned
from neuralgentics.broker.role_tokens import authenticator
from neuralgentics.broker.server import rest, rest_roles
from neuralgentics.broker.server.handlers import (
    ROLE_HEADER,
    SESSION_HEADER,
    Caller,
    build_server,
    http_caller,
    pinned_role,
    principal_of,
)
from neuralgentics.broker.server.http_fast import FastCall, HttpFastPath
from neuralgentics.broker.server.http_protocol import DirectMcp
from neuralgentics.broker.server.http_sessions import SessionBook
from neuralgentics.broker.server.instructions import (
    CONNECTION_ROLE,
    Instructions,
    token_counts_path,
)
from neuralgentics.broker.server.stdio import install_reload_handler
from neuralgentics.broker.service import Broker
from neuralgentics.config import Settings
from neuralgentics.credentials import Principal
from neuralgentics.http_errors import error as _error
from neuralgentics.http_errors import error_response, install_error_handlers
from neuralgentics.httpguard import HTTPGuard

logger = logging.getLogger(__name__)


def create_app(
    config_path: Path | str | None = None,
    config: BrokerConfig | None = None,
    host: str = "127.0.0.1",
    token: str | None = None,
    *,
    settings: Settings,
    intents: Intents | None = None,
) -> BrokerApp:
    """``token``: the owner's bearer token, required on every route but ``GET /health``
    (``serve_broker`` always passes one). None: no token check, for an app run in-process.
    ``settings`` and ``intents``: as for ``Broker.open`` (``neuralgentics.app.broker``)."""
    state: dict[str, Any] = {}

    # The MCP session manager exists only once the broker is open (inside the lifespan).
    manager_holder: dict[str, StreamableHTTPSessionManager] = {}

    def broker() -> Broker:
        return state["broker"]

    def manager() -> StreamableHTTPSessionManager:
        return manager_holder["m"]

    fast = HttpFastPath(broker, manager)
    book = SessionBook(manager, lambda: broker().config.sessions, fast.forget)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with Broker.open(
            config_path, config=config, settings=settings, intents=intents
        ) as broker:
            state["broker"] = broker
            install_reload_handler(broker)
            # the token counts of the last start: the catalog rendered at the first
            # `initialize` as last time, without loading the tokenizer (as `broker stdio`)
            state["instructions"] = Instructions(broker, counts=token_counts_path(broker))
            server = build_server(broker, http_caller, instructions=state["instructions"])
            # Sessions the fast path may answer for are noted as their clients initialize.
            server.middleware.append(fast.middleware)
            # Host/Origin are checked by HTTPGuard for every route, /mcp included (and without
            # regard to case: `Host: LOCALHOST` is loopback too); the SDK's own check is off.
            manager = StreamableHTTPSessionManager(app=server, security_settings=None)
            manager_holder["m"] = manager
            async with manager.run():
                yield

    app = FastAPI(title="neuralgentics broker", lifespan=lifespan)

    class _MCPEndpoint:
        # Raw ASGI; reached from BrokerApp (below), not through FastAPI's stack.
        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            principal = principal_of(_ScopeView(scope))
            headers = (scope.get("state") or {}).get("headers") or {
                k.decode("latin-1").lower(): v.decode("latin-1")
                for k, v in scope.get("headers") or []
            }
            try:
                role = pinned_role(principal, headers.get(ROLE_HEADER))
                check_session_id(headers.get(SESSION_HEADER), "X-Neuralgentics-Session")
            except (AccessDenied, InvalidRequest) as exc:
                await error_response(exc)(scope, receive, send)
                return
            # The session's role, for the catalog in `initialize`'s instructions: the SDK's
            # session task is started from this request and inherits the variable.
            connection_role = role or broker().config.default_role
            CONNECTION_ROLE.set(connection_role)
            # A session is served only for the credential that opened it (http_sessions.py).
            sid = headers.get("mcp-session-id")
            if sid is not None:
                if book.foreign(sid, principal):
                    await book.not_found()(scope, receive, send)
                    return
                with book.using(sid):
                    await self.serve(scope, receive, send, principal, headers, role)
                return
            await self.serve(scope, receive, send, principal, headers, role, True, connection_role)

        async def serve(
            self,
            scope: Scope,
            receive: Receive,
            send: Send,
            principal: Principal,
            headers: dict[str, str],
            role: str | None,
            opening: bool = False,
            connection_role: str | None = None,
        ) -> None:
            """The request, its session checked. ``opening``: the request names no session
            (an ``initialize`` opens one, for ``connection_role``)."""
            method = scope.get("method")
            admitted = False
            if method == "POST":
                body, receive = await _buffered(receive)

                def caller_of(sid: str) -> Caller:  # as `http_caller` builds it on the SDK path
                    session_id = headers.get(SESSION_HEADER) or sid
                    return Caller(role, session_id, "http", principal.label, connection=sid)

                # A header sent twice may be read as its first value by the SDK's Starlette
                # request and as its last one here: such a request is left to the SDK path.
                once = len(headers) == len(scope.get("headers") or ())
                if once and await fast.try_answer(headers, body, caller_of, send):
                    return
                if await _too_deep_for_the_sdk(body, principal, headers, scope, receive, send):
                    return
                if opening and b'"initialize"' in body:
                    refusal = await book.admit(principal)
                    if refusal is not None:
                        await refusal(scope, receive, send)
                        return
                    admitted = True
                    send = book.opening(principal, send)
                    await state["instructions"].prepare(connection_role)
            try:
                await StreamableHTTPASGIApp(manager())(scope, receive, send)
            finally:
                if admitted:
                    book.opened(principal)
            if method == "DELETE" and (sid := headers.get("mcp-session-id")):
                fast.forget(sid)

    async def _too_deep_for_the_sdk(
        body: bytes,
        principal: Principal,
        headers: dict[str, str],
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> bool:
        """A JSON-RPC message nested past the SDK parser's limit (200 levels) would get a bare
        parse error and no audit record: answer it here, with its id, and record it."""
        if body.count(b"{") + body.count(b"[") < 150:
            return False
        try:
            pydantic_core.from_json(body)
            return False
        except ValueError as exc:
            if "recursion" not in str(exc):
                return False  # not JSON at all: the SDK answers its parse error
        try:
            msg, _ = loads_pruned(body)
        except ValueError:
            return False
        if not isinstance(msg, dict):
            return False
        raw_params = msg.get("params")
        params: dict = raw_params if isinstance(raw_params, dict) else {}
        raw_call = params.get("arguments")
        call: dict = raw_call if isinstance(raw_call, dict) else {}
        error = "the request is nested deeper than this broker reads (200 levels; arguments may have 32)"
        try:
            role = pinned_role(principal, headers.get(ROLE_HEADER))
        except AccessDenied:
            role = principal.role
        await broker().audit_refused(
            error=error,
            role=role or (call.get("role") if isinstance(call.get("role"), str) else None),
            server=call.get("server", "-"),
            tool=call.get("tool", "-"),
            session_id=headers.get("mcp-session-id"),
            front="http",
            credential=principal.label,
        )
        rid = msg.get("id")
        answer = {
            "jsonrpc": "2.0",
            "id": rid if isinstance(rid, str | int) else None,
            "error": {"code": -32602, "message": error},
        }
        await JSONResponse(answer, status_code=400)(scope, receive, send)
        return True

    install_error_handlers(app)

    @app.exception_handler(MCPError)
    async def _downstream_error(request: Request, exc: MCPError) -> JSONResponse:
        return _error(502, "downstream_error", f"downstream server error: {exc.message}")

    app.dependency_overrides[rest.current_broker] = broker
    app.include_router(rest.router)
    app.include_router(rest_roles.router)

    # Host/Origin (DNS rebinding), the bearer token and body-size checks, for REST and /mcp
    # alike: one HTTPGuard in front of each.
    guard: dict[str, Any] = {
        "bind_host": host,
        "token": token,
        "authenticate": authenticator(lambda: broker().config),
        "open_paths": {"/health"},
    }
    app.add_middleware(HTTPGuard, **guard)
    mcp_guard = HTTPGuard(_JsonErrors(_MCPEndpoint()), **guard)

    def direct(raw: list[tuple[bytes, bytes]], body: bytes) -> Awaitable[bytes] | None:
        """A ``POST /mcp`` with its whole body, before any ASGI scope exists
        (``http_protocol.DirectMcpProtocol``): the answer to await when the fast path takes
        it and nothing on the way would refuse it — the same checks as ``mcp_guard`` and
        ``_MCPEndpoint`` — else None, and the request goes through them as usual."""
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in raw}  # names lower-case
        if len(headers) != len(raw):
            return None  # a header sent twice: the SDK path's (see `serve`)
        principal = mcp_guard.admits("POST", "/mcp", headers)
        sid = headers.get("mcp-session-id")
        if principal is None or sid is None or book.foreign(sid, principal):
            return None
        try:
            role = pinned_role(principal, headers.get(ROLE_HEADER))
            check_session_id(headers.get(SESSION_HEADER), "X-Neuralgentics-Session")
        except (AccessDenied, InvalidRequest):
            return None
        plan = fast.admit(headers, body)
        if not isinstance(plan, FastCall):
            # `notifications/cancelled` of a call here: `admit` cancelled it already; its 202
            # comes from the ASGI way in (which finds it cancelled, or already gone: both 202)
            return None
        session_id = headers.get(SESSION_HEADER) or sid  # as `caller_of` in `serve`
        caller = Caller(role, session_id, "http", principal.label, connection=sid)
        return _answered(plan, caller)

    async def _answered(plan: FastCall, caller: Caller) -> bytes:
        with book.using(plan.sid):
            return await fast.answer(plan, caller)

    return BrokerApp(app, mcp_guard, direct)


class BrokerApp:
    """What ``broker serve`` runs: ``/mcp`` goes straight to the MCP endpoint (behind its own
    HTTPGuard), everything else — REST, the lifespan — to the FastAPI app. FastAPI's
    middleware, routing and exception layers were ~5 % of the HTTP front's CPU per MCP call
    and do nothing for it (docs/benchmarks-broker.md, the HTTP front's profile)."""

    def __init__(self, api: FastAPI, mcp: ASGIApp, direct: DirectMcp | None = None) -> None:
        self.api = api
        self.mcp = mcp
        # what `http_protocol.DirectMcpProtocol` asks before giving a POST an ASGI scope
        self.direct_mcp = direct

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == "/mcp":
            await self.mcp(scope, receive, send)
        else:
            await self.api(scope, receive, send)


class _JsonErrors:
    """Outside FastAPI, an unexpected error on /mcp still gets the one error body (500)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception:
            logger.exception("/mcp failed")
            if started:
                raise
            await _error(500, "internal_error", "the broker failed to answer this request")(
                scope, receive, send
            )


class _ScopeView:
    """Enough of a Request for ``principal_of``."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope


async def _buffered(receive: Receive) -> tuple[bytes, Receive]:
    """Read the whole body (HTTPGuard has bounded it) and a ``receive`` that replays it."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"", receive
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    body = b"".join(chunks)
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return body, replay
