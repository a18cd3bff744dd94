"""A blocking HTTP client for an ASGI app run in this process.

`neuralgentics memory ... --local` sends the request the running service would get and has it
answered by the same app over the store directly, so both modes validate, answer and fail
alike. httpx's `ASGITransport` (its documented way to call an app in-process) is async; one
blocking portal keeps a single event loop for all of a command's calls, as a served app has.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

import anyio.from_thread
import httpx
from anyio.from_thread import BlockingPortal


class AsgiClient:
    """What the commands use of `httpx.Client`, answered by the app. A response comes back
    whole (the transport reads the app's body to its end), so `stream` hands it out read."""

    def __init__(self, portal: BlockingPortal, client: httpx.AsyncClient) -> None:
        self._portal = portal
        self._client = client

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        return self._portal.call(partial(self._client.request, method, url, **kwargs))

    def post(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", url, **kwargs)

    @contextmanager
    def stream(self, method: str, url: str, **kwargs: Any) -> Iterator[httpx.Response]:
        yield self.request(method, url, **kwargs)


@contextmanager
def asgi_client(app: Any) -> Iterator[AsgiClient]:
    """A client of `app` for the block; the app's exceptions reach the caller."""
    # as a loopback caller: what a local user's command is
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 0))
    with anyio.from_thread.start_blocking_portal() as portal:
        client = httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")
        try:
            yield AsgiClient(portal, client)
        finally:
            portal.call(client.aclose)
