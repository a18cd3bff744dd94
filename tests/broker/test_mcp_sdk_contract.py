"""The MCP SDK internals the broker relies on (``broker/mcp_sdk.py``), run against the
installed SDK: each test fails when the SDK changes one of them, before a front breaks in a
way only a live client would notice (an evicted session that lives on, a fast path that never
answers, a wrong error code)."""

from __future__ import annotations

import inspect
import pathlib
import re
import tomllib
from typing import Any

import anyio
import httpx
import mcp.types as types
import pytest
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ValidationError

from neuralgentics.broker import mcp_sdk

VERSION = "2025-06-18"  # a handshake-era version, as OpenCode 1.18 speaks
# the client's initialize, as the SDK's own types dump it
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": types.InitializeRequestParams(
        protocol_version=VERSION,
        capabilities=types.ClientCapabilities(),
        client_info=types.Implementation(name="contract", version="1"),
    ).model_dump(by_alias=True, mode="json", exclude_none=True),
}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


async def test_a_session_is_found_by_id_seen_through_its_connection_and_discarded() -> None:
    seen: dict[str, Any] = {}

    async def note(ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        result = await call_next(ctx)
        if ctx.method == "initialize":
            seen["conn"] = mcp_sdk.connection_key(ctx.session)
        return result

    server: Server[Any] = Server("contract")
    server.middleware.append(note)
    manager = StreamableHTTPSessionManager(app=server, security_settings=None)
    closed: list[str] = []
    transport = httpx.ASGITransport(app=StreamableHTTPASGIApp(manager))
    async with manager.run():
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            with anyio.fail_after(10):
                r = await client.post("/mcp", json=INIT, headers=HEADERS)
        assert r.status_code == 200, r.text
        sid = r.headers["mcp-session-id"]

        # the manager's sessions by id, and one's transport
        assert sid in mcp_sdk.session_ids(manager)
        sdk_transport = mcp_sdk.session_transport(manager, sid)
        assert sdk_transport is not None and not sdk_transport.is_terminated
        assert mcp_sdk.session_transport(manager, "no-such-session") is None
        # the idle deadline the fast path moves on (the manager's idle timeout is set)
        assert manager.session_idle_timeout is not None
        scope = mcp_sdk.idle_scope(sdk_transport)
        assert isinstance(scope, anyio.CancelScope)

        # the connection behind the per-request ServerSession, its handshake state
        conn = seen["conn"]
        assert conn is not None and type(conn).__name__ == "Connection"
        assert mcp_sdk.handshake_session_id(conn) == sid
        assert conn.initialize_accepted is True
        assert conn.protocol_version == VERSION
        assert conn.client_capabilities is not None
        assert conn.client_capabilities.sampling is None
        mcp_sdk.on_connection_close(conn, closed.append, sid)

        # ending a session as the SDK ends an expired one
        await mcp_sdk.discard_session(manager, sid, sdk_transport)
        assert sid not in mcp_sdk.session_ids(manager)
        assert sdk_transport.is_terminated
        with anyio.fail_after(5):
            while not closed:
                await anyio.sleep(0.01)
    assert closed == [sid]


def test_a_session_without_a_connection_is_its_own_key() -> None:
    thing = object()
    assert mcp_sdk.connection_key(thing) is thing
    assert mcp_sdk.handshake_session_id(thing) is None
    mcp_sdk.on_connection_close(thing, pytest.fail)  # no exit stack: nothing registered


def test_handler_errors_map_as_the_sdk_dispatcher_maps_them() -> None:
    err = mcp_sdk.error_data(MCPError(-32602, "bad arguments"))
    assert err is not None and (err.code, err.message) == (-32602, "bad arguments")

    class M(BaseModel):
        n: int

    try:
        M.model_validate({"n": "x"})
    except ValidationError as exc:
        invalid = mcp_sdk.error_data(exc)
    assert invalid is not None and invalid.code == types.INVALID_PARAMS
    assert mcp_sdk.error_data(RuntimeError("boom")) is None


def test_the_default_middleware_is_one_opentelemetry_span_which_is_dropped() -> None:
    server: Server[Any] = Server("contract")
    names = [type(m).__name__ for m in server.middleware]
    assert names == ["OpenTelemetryMiddleware"]
    assert mcp_sdk.without_otel(server.middleware) == []


def test_http_client_defaults_are_the_sdks() -> None:
    from mcp.shared._httpx_utils import create_mcp_http_client

    params = inspect.signature(create_mcp_http_client).parameters
    assert "timeout" in params
    assert (mcp_sdk.DEFAULT_TIMEOUT, mcp_sdk.DEFAULT_SSE_READ_TIMEOUT) == (30.0, 300.0)
    sdk_client = create_mcp_http_client()
    assert sdk_client.timeout.connect == mcp_sdk.DEFAULT_TIMEOUT
    assert sdk_client.timeout.read == mcp_sdk.DEFAULT_SSE_READ_TIMEOUT


def test_mcp_is_pinned_to_the_minor_version_installed() -> None:
    """The pin in pyproject.toml is the minor version these checks ran against."""
    pyproject = pathlib.Path(__file__).resolve().parents[2] / "pyproject.toml"
    deps = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    (pin,) = [d for d in deps if re.match(r"mcp[<>=]", d)]
    major, minor = _installed()
    assert pin == f"mcp>={major}.{minor},<{major}.{minor + 1}"


def _installed() -> tuple[int, int]:
    from importlib.metadata import version

    major, minor = version("mcp").split(".")[:2]
    return int(major), int(minor)
