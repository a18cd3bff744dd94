"""``neuralgentics broker serve``: streamable HTTP at ``/mcp`` plus REST for native callers.

Many clients share one set of warm servers. REST routes:
``GET /tools`` (the role's catalog), ``POST /call``, ``GET /servers``, ``POST /servers``,
``DELETE /servers/{name}``, ``POST /reload``, ``POST /match`` (intent), ``GET /health``. The caller's role comes
from the ``X-Neuralgentics-Role`` header (or ``role`` in the body/query when no header).
"""

from __future__ import annotations

import contextlib
import hmac
from collections.abc import AsyncIterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Header, Query, Request
from fastapi.responses import JSONResponse
from mcp.shared.exceptions import MCPError
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel, ConfigDict, Field
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from neuralgentics.broker.config import BrokerConfig, ConfigError
from neuralgentics.broker.errors import BrokerError
from neuralgentics.broker.intent.http import match_router
from neuralgentics.broker.server import build_server, http_caller
from neuralgentics.broker.service import Broker
from neuralgentics.broker.stdio import install_reload_handler
from neuralgentics.config import get_settings
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


def _error(exc: BrokerError) -> JSONResponse:
    body: dict[str, Any] = {"error": {"code": exc.code, "message": exc.message}}
    rule = getattr(exc, "rule", None)
    if rule:
        body["error"]["rule"] = rule
    return JSONResponse(body, status_code=exc.status)


class _TokenGate:
    """Bearer token on every route but /health when NEURALGENTICS_TOKEN is set."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.token and scope["type"] == "http" and scope.get("path") != "/health":
            headers = dict(scope.get("headers") or [])
            got = headers.get(b"authorization", b"").decode()
            if not hmac.compare_digest(got, f"Bearer {self.token}"):
                resp = JSONResponse(
                    {"error": {"code": 401, "message": "missing or wrong bearer token (NEURALGENTICS_TOKEN)"}},
                    status_code=401,
                )
                await resp(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(
    config_path: Path | str | None = None,
    config: BrokerConfig | None = None,
    host: str = "127.0.0.1",
) -> FastAPI:
    state: dict[str, Any] = {}

    # The MCP session manager exists only once the broker is open (inside the lifespan).
    manager_holder: dict[str, StreamableHTTPSessionManager] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with Broker.open(config_path, config=config) as broker:
            state["broker"] = broker
            install_reload_handler(broker)
            server = build_server(broker, http_caller)
            security = None
            if host in ("127.0.0.1", "localhost", "::1"):
                security = TransportSecuritySettings(
                    enable_dns_rebinding_protection=True,
                    allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
                    allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
                )
            manager = StreamableHTTPSessionManager(app=server, security_settings=security)
            manager_holder["m"] = manager
            async with manager.run():
                yield

    app = FastAPI(title="neuralgentics broker", lifespan=lifespan)

    class _MCPEndpoint:
        # An object, not a function: Starlette then routes every method to it as raw ASGI.
        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            await StreamableHTTPASGIApp(manager_holder["m"])(scope, receive, send)

    app.router.routes.append(Route("/mcp", endpoint=_MCPEndpoint()))

    def broker() -> Broker:
        return state["broker"]

    def role_of(header: str | None, other: str | None) -> str | None:
        return broker().resolve_role(header, other)

    @app.exception_handler(BrokerError)
    async def _broker_error(request: Request, exc: BrokerError) -> JSONResponse:
        return _error(exc)

    @app.exception_handler(MCPError)
    async def _downstream_error(request: Request, exc: MCPError) -> JSONResponse:
        return JSONResponse(
            {"error": {"code": exc.code, "message": f"downstream server error: {exc.message}"}},
            status_code=502,
        )

    @app.get("/health")
    async def health() -> dict[str, Any]:
        b = broker()
        states: dict[str, int] = {}
        for s in b.servers_status():
            states[s.state] = states.get(s.state, 0) + 1
        return {"status": "ok", "servers": states}

    @app.get("/tools")
    async def tools(
        role: str | None = Query(None),
        x_neuralgentics_role: str | None = Header(None),
    ) -> dict[str, Any]:
        r = role_of(x_neuralgentics_role, role)
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
        server: str,
        tool: str,
        role: str | None = Query(None),
        x_neuralgentics_role: str | None = Header(None),
    ) -> dict[str, Any]:
        return await broker().describe_tool(role_of(x_neuralgentics_role, role), server, tool)

    @app.post("/call")
    async def call(
        body: CallRequest,
        x_neuralgentics_role: str | None = Header(None),
        x_neuralgentics_session: str | None = Header(None),
    ) -> dict[str, Any]:
        r = role_of(x_neuralgentics_role, body.role)
        result = await broker().call(
            role=r,
            server=body.server,
            tool=body.tool,
            arguments=body.arguments,
            session_id=x_neuralgentics_session or body.session_id,
            front="rest",
        )
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)

    app.include_router(match_router(broker, role_of))  # POST /match (issue 5)

    @app.get("/servers")
    async def servers() -> list[dict[str, Any]]:
        return [asdict(s) for s in broker().servers_status()]

    @app.post("/servers", status_code=201)
    async def add_server(body: AddServerRequest) -> dict[str, Any]:
        entry = body.model_dump(exclude={"name", "replace"})
        cfg = await broker().add_server(body.name, entry, replace=body.replace)
        return {"name": body.name, "server": cfg.model_dump(mode="json", exclude_defaults=True)}

    @app.delete("/servers/{name}")
    async def remove_server(name: str) -> dict[str, Any]:
        await broker().remove_server(name)
        return {"removed": name}

    @app.post("/reload")
    async def reload() -> dict[str, Any]:
        try:
            return await broker().reload()
        except ConfigError as exc:
            return JSONResponse({"error": {"code": 400, "message": str(exc)}}, status_code=400)  # type: ignore[return-value]

    app.add_middleware(_TokenGate, token=get_settings().token)
    # Outermost: Host/Origin (DNS rebinding) and body-size checks for REST too, not only /mcp.
    app.add_middleware(HTTPGuard, bind_host=host)
    return app


def run_http(config_path: Path | str | None, host: str, port: int) -> None:
    import uvicorn

    settings = get_settings()
    if host not in ("127.0.0.1", "localhost", "::1") and not settings.token:
        raise SystemExit(
            f"refusing to bind {host}: set NEURALGENTICS_TOKEN to serve beyond loopback"
        )
    app = create_app(config_path, host=host)
    uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")
