"""How a downstream call failed on the broker's side of the connection, as opposed to the
server answering with an error.

The SDK session reports both as ``MCPError``, and its own "Connection closed" uses code
-32000, which is also the first code of the range JSON-RPC leaves to servers: a server's
``{"code": -32000, "message": "rate limited"}`` must not restart it as a crash.
"""

from __future__ import annotations

from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT


class ConnectionClosed(Exception):
    """The connection ended (the server exited or was killed) before the answer came."""


class RequestTimedOut(Exception):
    """No answer within the call's timeout; the server was sent ``notifications/cancelled``."""


def from_session_error(exc: MCPError) -> Exception:
    """The session's own failures as the exceptions above; a server's error unchanged."""
    if exc.code == CONNECTION_CLOSED and exc.message == "Connection closed":
        return ConnectionClosed()
    if exc.code == REQUEST_TIMEOUT:
        return RequestTimedOut()
    return exc
