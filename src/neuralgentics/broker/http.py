"""``neuralgentics broker serve``: streamable HTTP at ``/mcp`` plus REST for native callers.

Many clients share one set of warm servers. REST routes:
``GET /tools`` (the role's catalog), ``POST /call``, ``GET /servers``, ``POST /servers``,
``DELETE /servers/{name}``, ``POST /reload``, ``POST /match`` (intent), ``GET /health``.

Every route but ``GET /health`` needs a bearer token (``HTTPGuard``): the owner's
(``credentials.ensure_token``), or one bound to a role (``broker token add``). The caller's
role is the ``X-Neuralgentics-Role`` header (or ``role`` in the body/query when there is no
header) when the owner asserts it, and the token's own role otherwise (``pinned_role``).
Admin routes (``POST``/``DELETE /servers``, ``/reload``) need the owner token and write an
audit record, done or refused.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pydantic_core
from fastapi import FastAPI, Header, Query, Request
from fastapi.responses import JSONResponse
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from neuralgentics.broker.config import BrokerConfig, ConfigError
from neuralgentics.broker.errors import AccessDenied, BrokerError
from neuralgentics.broker.intent.http import match_router
from neuralgentics.broker.limits import loads_pruned
from neuralgentics.broker.server import ROLE_HEADER, build_server, http_caller, pinned_role, principal_of
from neuralgentics.broker.service import Broker
from neuralgentics.broker.stdio import install_reload_handler
from neuralgentics.broker.intent.tools import Intents
from neuralgentics.broker.tokens import authenticator
from neuralgentics.config import Settings
from neuralgentics.credentials import Principal
from neuralgentics.http_errors import error as _error
from neuralgentics.http_errors import error_response, install_error_handlers
from neuralgentics.httpguard import HTTPGuard

class CallRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    server: str = Field(min_length=1)
    tool: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)
    role: str | None = None
    session_id: str | None = None


class AddServerRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1)
    replace: bool = False


def _validation_message(errors: list[Any]) -> tuple[str, str | None]:
    first = errors[0] if errors else {}
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
    msg = first.get("msg", "invalid request")
    return (f"{where}: {msg}" if where else msg), (where or None)


def create_app(
    config_path: Path | str | None = None,
    config: BrokerConfig | None = None,
    host: str = "127.0.0.1",
    token: str | None = None,
    *,
    settings: Settings,
    intents: Intents | None = None,
) -> FastAPI:
    """``token``: the owner's bearer token, required on every route but ``GET /health``
    (``serve_broker`` always passes one). None: no token check, for an app run in-process.
    ``settings`` and ``intents``: as for ``Broker.open`` (``neuralgentics.app.broker``)."""
    state: dict[str, Any] = {}

    # The MCP session manager exists only once the broker is open (inside the lifespan).
    manager_holder: dict[str, StreamableHTTPSessionManager] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with Broker.open(config_path, config=config, settings=settings, intents=intents) as broker:
            state["broker"] = broker
            install_reload_handler(broker)
            server = build_server(broker, http_caller)
            # Host/Origin are checked by HTTPGuard for every route, /mcp included (and without
            # regard to case: `Host: LOCALHOST` is loopback too); the SDK's own check is off.
            manager = StreamableHTTPSessionManager(app=server, security_settings=None)
            manager_holder["m"] = manager
            async with manager.run():
                yield

    app = FastAPI(title="neuralgentics broker", lifespan=lifespan)

    def broker() -> Broker:
        return state["broker"]

    class _MCPEndpoint:
        # An object, not a function: Starlette then routes every method to it as raw ASGI.
        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            principal = principal_of(_ScopeView(scope))
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
            try:
                pinned_role(principal, headers.get(ROLE_HEADER))
            except AccessDenied as exc:
                await error_response(exc)(scope, receive, send)
                return
            if scope.get("method") == "POST":
                body, receive = await _buffered(receive)
                if await _too_deep_for_the_sdk(body, principal, headers, scope, receive, send):
                    return
            await StreamableHTTPASGIApp(manager_holder["m"])(scope, receive, send)

    async def _too_deep_for_the_sdk(
        body: bytes, principal: Principal, headers: dict[str, str], scope: Scope, receive: Receive, send: Send
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
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        call = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
        error = "the request is nested deeper than this broker reads (200 levels; arguments may have 32)"
        try:
            role = pinned_role(principal, headers.get(ROLE_HEADER))
        except AccessDenied:
            role = principal.role
        await broker().audit_refused(
            error=error, role=role or (call.get("role") if isinstance(call.get("role"), str) else None),
            server=call.get("server", "-"), tool=call.get("tool", "-"),
            session_id=headers.get("mcp-session-id"), front="http", credential=principal.label,
        )
        rid = msg.get("id")
        answer = {"jsonrpc": "2.0", "id": rid if isinstance(rid, str | int) else None,
                  "error": {"code": -32602, "message": error}}
        await JSONResponse(answer, status_code=400)(scope, receive, send)
        return True

    app.router.routes.append(Route("/mcp", endpoint=_MCPEndpoint()))

    def role_of(request: Request, header: str | None, other: str | None) -> str | None:
        return broker().resolve_role(pinned_role(principal_of(request), header), other)

    async def require_owner(request: Request, action: str, target: str) -> Principal:
        principal = principal_of(request)
        if not principal.owner:
            message = f"{action} needs the owner credential; {principal.label!r} may only call tools as its role"
            await broker().record_admin(action, target, "denied", credential=principal.label, front="rest",
                                        error=message, role=principal.role)
            raise AccessDenied(message, rule="admin operations: owner credential only")
        return principal

    install_error_handlers(app)

    @app.exception_handler(MCPError)
    async def _downstream_error(request: Request, exc: MCPError) -> JSONResponse:
        return _error(502, "downstream_error", f"downstream server error: {exc.message}")

    @app.get("/health")
    async def health() -> dict[str, Any]:
        b = broker()
        states: dict[str, int] = {}
        for s in b.servers_status():
            states[s.state] = states.get(s.state, 0) + 1
        return {"status": "ok", "servers": states}

    @app.get("/tools")
    async def tools(
        request: Request,
        role: str | None = Query(None),
        x_neuralgentics_role: str | None = Header(None),
    ) -> dict[str, Any]:
        r = role_of(request, x_neuralgentics_role, role)
        b = broker()
        tbs = await b.tools_by_server(r)
        summaries = b.summaries(r)
        return {
            "role": r,
            "servers": {
                name: {
                    "summary": summaries.get(name, ""),
                    "tools": [{"name": t.name, "description": t.description or ""} for t in ts],
                }
                for name, ts in sorted(tbs.items())
            },
            "text": await b.catalog_text(r),
        }

    @app.get("/tools/{server}/{tool}")
    async def describe(
        request: Request,
        server: str,
        tool: str,
        role: str | None = Query(None),
        x_neuralgentics_role: str | None = Header(None),
    ) -> dict[str, Any]:
        return await broker().describe_tool(role_of(request, x_neuralgentics_role, role), server, tool)

    @app.post("/call")
    async def call(
        request: Request,
        x_neuralgentics_role: str | None = Header(None),
        x_neuralgentics_session: str | None = Header(None),
    ) -> Any:
        # The body is read here, not by FastAPI, so that a call refused for its shape (not
        # JSON, nested past the parser's limit, fields missing) is audited like any other.
        principal = principal_of(request)
        raw = await request.body()
        refused = dict(front="rest", credential=principal.label, session_id=x_neuralgentics_session)
        try:
            data = pydantic_core.from_json(raw)
        except ValueError as exc:
            deep = "recursion" in str(exc)
            message = ("the request body is nested deeper than this broker reads (200 levels; arguments may have 32)"
                       if deep else f"the request body is not JSON: {exc}")
            seen: Any = None
            with contextlib.suppress(ValueError):
                seen, _ = loads_pruned(raw)
            seen = seen if isinstance(seen, dict) else {}
            await broker().audit_refused(error=message, role=x_neuralgentics_role or principal.role,
                                         server=seen.get("server", "-"), tool=seen.get("tool", "-"), **refused)
            return _error(400, "invalid_json", message)
        try:
            body = CallRequest.model_validate(data)
        except ValidationError as exc:
            message, where = _validation_message(exc.errors())
            seen = data if isinstance(data, dict) else {}
            await broker().audit_refused(error=message, role=x_neuralgentics_role or principal.role,
                                         server=seen.get("server", "-"), tool=seen.get("tool", "-"),
                                         arguments=seen.get("arguments"), **refused)
            return _error(422, "invalid_input", message, where)
        try:
            r = role_of(request, x_neuralgentics_role, body.role)
        except BrokerError as exc:
            await broker().audit_refused(error=exc.message, role=x_neuralgentics_role or body.role,
                                         server=body.server, tool=body.tool, arguments=body.arguments,
                                         outcome="denied" if isinstance(exc, AccessDenied) else "invalid",
                                         rule=getattr(exc, "rule", None), **refused)
            raise
        result = await broker().call(
            role=r,
            server=body.server,
            tool=body.tool,
            arguments=body.arguments,
            session_id=x_neuralgentics_session or body.session_id,
            front="rest",
            credential=principal.label,
        )
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)

    app.include_router(match_router(broker, role_of))  # POST /match (issue 5)

    @app.get("/servers")
    async def servers(
        request: Request,
        role: str | None = Query(None),
        x_neuralgentics_role: str | None = Header(None),
    ) -> list[dict[str, Any]]:
        """Every server for the owner; for a role (asserted, or a role token's own) only the
        servers it may see, without their process details."""
        principal = principal_of(request)
        r = pinned_role(principal, x_neuralgentics_role or role)
        statuses = broker().servers_status()
        if principal.owner and r is None:
            return [asdict(s) for s in statuses]
        policy = broker().policy
        out = []
        for s in statuses:
            if s.first_class or not policy.may_see_server(r, s.name):
                continue
            seen = asdict(s)
            for private in ("pid", "stderr_tail", "last_error"):
                seen.pop(private)
            out.append(seen)
        return out

    @app.post("/servers", status_code=201)
    async def add_server(request: Request, body: AddServerRequest) -> dict[str, Any]:
        action = "servers.replace" if body.replace else "servers.add"
        principal = await require_owner(request, action, body.name)
        entry = body.model_dump(exclude={"name", "replace"})
        cfg = await broker().add_server(body.name, entry, replace=body.replace, credential=principal.label,
                                        front="rest", remote=True)
        return {"name": body.name, "server": cfg.model_dump(mode="json", exclude_defaults=True)}

    @app.delete("/servers/{name}")
    async def remove_server(request: Request, name: str) -> dict[str, Any]:
        principal = await require_owner(request, "servers.remove", name)
        await broker().remove_server(name, credential=principal.label, front="rest")
        return {"removed": name}

    @app.post("/reload")
    async def reload(request: Request) -> Any:
        principal = await require_owner(request, "reload", "*")
        try:
            return await broker().reload(credential=principal.label, front="rest")
        except ConfigError as exc:
            return _error(400, "invalid_config", str(exc))

    # Outermost: Host/Origin (DNS rebinding), the bearer token and body-size checks, for REST
    # and /mcp alike.
    app.add_middleware(
        HTTPGuard,
        bind_host=host,
        token=token,
        authenticate=authenticator(lambda: broker().config),
        open_paths={"/health"},
    )
    return app


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
