"""uvicorn's httptools protocol, writing a sized response's head and body as one segment.

uvicorn writes a response's status line and headers as soon as the app sends
``http.response.start``, then the body on ``http.response.body``: two ``send(2)`` calls, and
the client woken for the head before its body is there. In the profile of ``broker serve``
under the bench, the head's write was the front's costliest line (a wake-up of the client on
a loaded machine), and the body's the third. For a response that states its length — every
JSON answer on ``/mcp`` and every REST one — the head is held until the first body message and
both go out in one write. Streamed responses (SSE: no ``content-length``) and ``HEAD``
answers are written as before, so a client waiting for a stream's headers gets them at once.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import RequestResponseCycle

from neuralgentics.httphead import HeadCappedHttpToolsProtocol


class _OneWrite:
    """The cycle's transport: holds the head of a sized response until its body comes."""

    __slots__ = ("_transport", "_cycle", "_head", "_started")

    def __init__(self, transport: asyncio.Transport, cycle: RequestResponseCycle) -> None:
        self._transport = transport
        self._cycle = cycle
        self._head: bytes | None = None
        self._started = False

    def write(self, data: bytes) -> None:
        cycle = self._cycle
        if not self._started and cycle.response_started:
            # The first write once the response has started is its head (before it, only
            # an interim `100 Continue` is written, and that goes out as it comes).
            self._started = True
            # uvicorn has read content-length into `chunked_encoding` before writing the head
            if cycle.chunked_encoding is False and cycle.scope["method"] != "HEAD":
                self._head = data
                return
        if self._head is not None:
            data, self._head = self._head + data, None
        self._transport.write(data)

    def __getattr__(self, name: str) -> Any:  # close, is_closing, get_extra_info, …
        return getattr(self._transport, name)


class OneWriteHttpToolsProtocol(HeadCappedHttpToolsProtocol):
    """``uvicorn.run(..., http=OneWriteHttpToolsProtocol)``; the request head capped as on
    memini-core (``neuralgentics.httphead``)."""

    def _start_asgi_task(self, cycle: RequestResponseCycle, app: Any) -> None:
        cycle.transport = _OneWrite(cycle.transport, cycle)  # type: ignore[assignment]
        super()._start_asgi_task(cycle, app)
