"""The MCP SDK's internals the broker relies on, in one place (issue 33, item 5).

The SDK has no public way to do a few things the broker's fronts need: find a streamable
HTTP session's transport by its id and end one (``http_sessions`` evicts a credential's least
recently used session; ``http_fast`` answers calls on it), reach the connection behind a
per-request ``ServerSession`` (one key for all of a client's requests), map a handler's
exception to the wire error exactly as its dispatcher does, drop the OpenTelemetry middleware
it installs by default, and build downstream HTTP clients with its default timeouts. Each of
these goes through a function here and nowhere else; ``tests/broker/test_mcp_sdk_contract.py``
runs each against the installed SDK and fails when the SDK changes one of them, and
pyproject.toml pins ``mcp`` to the minor version they were checked against (2.3).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT
from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data

if TYPE_CHECKING:  # the server side is not imported by the client side's users
    from mcp.server.streamable_http import StreamableHTTPServerTransport
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

__all__ = [
    "DEFAULT_SSE_READ_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "connection_key",
    "discard_session",
    "error_data",
    "handshake_session_id",
    "idle_scope",
    "on_connection_close",
    "session_ids",
    "session_transport",
    "without_otel",
]

# The SDK's own HTTP client defaults (``create_mcp_http_client``), which ours copy.
DEFAULT_TIMEOUT: float = MCP_DEFAULT_TIMEOUT
DEFAULT_SSE_READ_TIMEOUT: float = MCP_DEFAULT_SSE_READ_TIMEOUT

# A handler's exception as its wire ErrorData (MCPError's own, a pydantic ValidationError as
# INVALID_PARAMS), None for anything else: the SDK dispatcher's mapping.
error_data = handler_exception_to_error_data


def session_ids(manager: StreamableHTTPSessionManager) -> dict[str, Any]:
    """The sessions the manager serves now, by id (its private ``_server_instances``: read
    only, never changed here)."""
    return manager._server_instances


def session_transport(
    manager: StreamableHTTPSessionManager, sid: str
) -> StreamableHTTPServerTransport | None:
    """The transport of session ``sid``, or None when the manager has no such session."""
    return manager._server_instances.get(sid)


async def discard_session(
    manager: StreamableHTTPSessionManager, sid: str, transport: StreamableHTTPServerTransport
) -> None:
    """End session ``sid`` as the SDK ends an expired one (forgotten and terminated)."""
    await manager._discard_session(sid, transport)


def idle_scope(transport: Any) -> Any:
    """The cancel scope whose deadline expires the session as idle (None before it is set)."""
    return getattr(transport, "idle_scope", None)


def connection_key(session: Any) -> object:
    """What identifies the client connection behind a (per-request) ServerSession.

    The SDK builds a ServerSession per request around the connection's ``Connection``, which
    it does not expose publicly; it is the one thing all of a connection's requests share.
    """
    return getattr(session, "_connection", session)


def handshake_session_id(conn: object) -> str | None:
    """The streamable HTTP session id of a handshake-era ``Connection`` (one with an
    ``initialize`` gate); None for anything else."""
    sid = getattr(conn, "session_id", None)
    if sid and hasattr(conn, "initialize_accepted"):
        return str(sid)
    return None


def on_connection_close(conn: object, callback: Callable[..., Any], *args: Any) -> None:
    """Run ``callback(*args)`` when the connection closes (its ``exit_stack``), if it has one."""
    exit_stack = getattr(conn, "exit_stack", None)
    if exit_stack is not None:
        exit_stack.callback(callback, *args)


def without_otel(middleware: list[Any]) -> list[Any]:
    """The server middleware less the OpenTelemetry span the SDK installs by default."""
    return [m for m in middleware if type(m).__name__ != "OpenTelemetryMiddleware"]
