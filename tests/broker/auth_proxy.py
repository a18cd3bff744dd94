"""An HTTP proxy that adds the owner's bearer token, for clients that cannot send headers
(the MCP conformance suite). Everything else — Host, Origin, body, streamed answers — passes
through unchanged, so the broker's own checks are what the client sees."""

from __future__ import annotations

from typing import Any

import httpx
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse

_HOP = {
    "connection",
    "keep-alive",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "content-length",
}


def auth_proxy(upstream: str, token: str) -> Any:
    client = httpx.AsyncClient(base_url=upstream, timeout=httpx.Timeout(60.0, read=None))

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        request = Request(scope, receive)
        headers = [(k, v) for k, v in request.headers.raw if k.decode().lower() not in _HOP]
        headers.append((b"authorization", f"Bearer {token}".encode()))
        upstream_request = client.build_request(
            request.method,
            request.url.path + (f"?{request.url.query}" if request.url.query else ""),
            headers=headers,
            content=await request.body(),
        )
        response = await client.send(upstream_request, stream=True)
        out_headers = {k: v for k, v in response.headers.items() if k.lower() not in _HOP}
        await StreamingResponse(
            response.aiter_raw(),
            status_code=response.status_code,
            headers=out_headers,
            background=BackgroundTask(response.aclose),
        )(scope, receive, send)

    return app
