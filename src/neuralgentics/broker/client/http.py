"""HTTP clients for downstream streamable-HTTP and SSE servers.

Each server gets its own client. With a gateway (``Settings.egress_gateway_url``, from
``EGRESS_GATEWAY_URL``, handed down by the broker) every request goes through that gateway (as an HTTP proxy), and every request carries the originating
caller's session id in ``X-Neuralgentics-Session`` so the gateway can correlate traffic.
The session id rides a context variable: the SDK's transports run each outgoing message
in the sender's context, so the header names the caller whose call caused the request.
"""

from __future__ import annotations

import contextvars
from typing import Any

import httpx2

from neuralgentics.broker import mcp_sdk

SESSION_HEADER = "X-Neuralgentics-Session"

# The session id of the caller whose request is being forwarded right now.
current_session_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "neuralgentics_broker_session_id", default=None
)


async def _stamp_session(request: httpx2.Request) -> None:
    sid = current_session_id.get()
    if sid:
        request.headers[SESSION_HEADER] = sid


def make_http_client(
    headers: dict[str, str] | None = None,
    timeout: httpx2.Timeout | None = None,
    auth: httpx2.Auth | None = None,
    *,
    gateway: str | None = None,
) -> httpx2.AsyncClient:
    """An httpx2 client shaped like the SDK's default, plus gateway and session header.

    Also usable as the SDK's ``httpx_client_factory`` for ``sse_client``.
    """
    kwargs: dict[str, Any] = {
        "timeout": timeout
        or httpx2.Timeout(mcp_sdk.DEFAULT_TIMEOUT, read=mcp_sdk.DEFAULT_SSE_READ_TIMEOUT),
        "event_hooks": {"request": [_stamp_session]},
        # A configured gateway is the only route out; the environment's proxies are not.
        "trust_env": False,
    }
    if headers:
        kwargs["headers"] = headers
    if auth is not None:
        kwargs["auth"] = auth
    if gateway:
        kwargs["proxy"] = gateway
    return httpx2.AsyncClient(**kwargs)
