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
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from uvicorn.protocols.http.flow_control import HIGH_WATER_LIMIT
from uvicorn.protocols.http.httptools_impl import RequestResponseCycle
from uvicorn.protocols.utils import get_client_addr

from neuralgentics.errors import error_body
from neuralgentics.httphead import HeadCappedHttpToolsProtocol

# what /mcp answers when it fails unexpectedly (as `http._JsonErrors`)
_INTERNAL_ERROR = json.dumps(
    error_body("internal_error", "the broker failed to answer this request")
).encode()


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


# (the request's headers, names lower-cased; its whole body) -> the JSON answer to await, or
# None to serve the request the usual way (``BrokerApp.direct_mcp``, ``broker/server/http``)
DirectMcp = Callable[[list[tuple[bytes, bytes]], bytes], Awaitable[bytes] | None]

_access = logging.getLogger("uvicorn.access")


def _fits_unpaused(headers: list[tuple[bytes, bytes]]) -> bool:
    """Whether the body states a length uvicorn reads without pausing. Past
    ``HIGH_WATER_LIMIT`` uvicorn pauses reading until the app's ``receive`` resumes it; the
    direct path has no ``receive``, so a larger body (a 600 kB call, found by CI) would wait
    forever. Those, and chunked bodies, take the usual way; a fast-path call is a few hundred
    bytes."""
    for name, value in headers:
        if name == b"content-length":
            return value.isdigit() and int(value) <= HIGH_WATER_LIMIT
    return False


class _DirectCycle:
    """Stands in for uvicorn's ``RequestResponseCycle`` while a ``POST /mcp`` is read for the
    direct path: uvicorn's parser callbacks fill ``body`` and call ``message_event.set()`` on
    each piece, at the end (``more_body`` False) and when the client goes away."""

    __slots__ = (
        "protocol",
        "scope",
        "body",
        "more_body",
        "response_complete",
        "disconnected",
        "keep_alive",
        "started",
    )

    def __init__(self, protocol: DirectMcpProtocol, scope: Any, keep_alive: bool) -> None:
        self.protocol = protocol
        self.scope = scope
        self.body = bytearray()
        self.more_body = True
        self.response_complete = False
        self.disconnected = False
        self.keep_alive = keep_alive
        self.started = False

    @property
    def message_event(self) -> _DirectCycle:
        return self

    def set(self) -> None:
        if not self.more_body and not self.started and not self.disconnected:
            self.started = True
            self.protocol._direct(self)


class DirectMcpProtocol(OneWriteHttpToolsProtocol):
    """Answers a fast-path ``POST /mcp`` (``http_fast``) without ASGI: no scope handed on, no
    ``RequestResponseCycle``, no middleware, no ``send`` messages — the app's ``direct_mcp``
    gets the headers and the body and returns the answer, written here as one response. The
    profile of ``broker serve`` (docs/benchmarks-broker.md) had uvicorn's cycle, the ASGI
    layers (HTTPGuard's wrappers, the error tracker, the endpoint) and ``send`` at about a
    third of a call's Python time. Whatever ``direct_mcp`` declines (any check that would
    refuse, any request the fast path does not take) gets a real cycle with the body already
    read and runs the usual way, so every refusal and every SDK answer is the one it was."""

    def on_headers_complete(self) -> None:
        direct: DirectMcp | None = getattr(self.app, "direct_mcp", None)
        if (
            direct is None
            or self.url != b"/mcp"
            or self.parser.get_method() != b"POST"
            or self.parser.get_http_version() != "1.1"
            or self.expect_100_continue
            or self.parser.should_upgrade()
            or self.limit_concurrency is not None
            or (self.cycle is not None and not self.cycle.response_complete)  # pipelined
            or not _fits_unpaused(self.headers)
        ):
            super().on_headers_complete()
            return
        self._in_head = False  # as HeadCappedHttpToolsProtocol.on_headers_complete
        self.scope["method"] = "POST"
        self.scope["path"] = "/mcp"
        self.scope["raw_path"] = b"/mcp"
        self.scope["query_string"] = b""
        keep_alive = self.parser.should_keep_alive()
        self.cycle = _DirectCycle(self, self.scope, keep_alive)  # type: ignore

    def _direct(self, cycle: _DirectCycle) -> None:
        """The whole body is in: answer it directly, or hand it to the app as uvicorn would."""
        body = bytes(cycle.body)
        try:
            answer = self.app.direct_mcp(cycle.scope["headers"], body)
        except Exception:
            # a bug of ours in a check: the request still gets the usual way's answer (raised
            # here, it would end in the parser as a 400 for a well-formed request)
            self.logger.exception("the direct /mcp path failed; served through ASGI")
            answer = None
        if answer is None:
            self._to_asgi(cycle, body)
            return
        task = self.loop.create_task(self._answer(cycle, answer))
        task.add_done_callback(self.tasks.discard)
        self.tasks.add(task)

    def _to_asgi(self, cycle: _DirectCycle, body: bytes) -> None:
        event = asyncio.Event()
        event.set()
        real = RequestResponseCycle(
            scope=cycle.scope,
            transport=self.transport,
            flow=self.flow,
            logger=self.logger,
            access_logger=self.access_logger,
            access_log=self.access_log,
            default_headers=self.server_state.default_headers,
            message_event=event,
            expect_100_continue=False,
            keep_alive=cycle.keep_alive,
            on_response=self.on_response_complete,
        )
        real.body = bytearray(body)
        real.more_body = False
        if self.cycle is cycle:  # type: ignore[comparison-overlap]
            self.cycle = real
        self._start_asgi_task(real, self.app)

    async def _answer(self, cycle: _DirectCycle, answer: Awaitable[bytes]) -> None:
        try:
            payload = await answer
        except Exception:
            # `direct_mcp` answers every failure of a call itself; this is a bug of ours
            self.logger.exception("/mcp failed")
            payload, status = _INTERNAL_ERROR, b"500 Internal Server Error"
            cycle.keep_alive = False
            ctype = b"application/json"
        else:
            status, ctype = b"200 OK", b"application/json"
        if cycle.disconnected:
            return
        head = [b"HTTP/1.1 ", status, b"\r\n"]
        for name, value in self.server_state.default_headers:
            head += [name, b": ", value, b"\r\n"]
        head += [b"content-type: ", ctype, b"\r\ncontent-length: ", str(len(payload)).encode()]
        for name, value in cycle.scope["headers"]:
            if name == b"mcp-session-id" and status == b"200 OK":
                head += [b"\r\nmcp-session-id: ", value]
        if not cycle.keep_alive:
            head.append(b"\r\nconnection: close")
        head += [b"\r\n\r\n", payload]
        self.transport.write(b"".join(head))  # head and body in one segment
        if self.access_log and _access.isEnabledFor(logging.INFO):
            self.access_logger.info(
                '%s - "%s %s HTTP/%s" %d',
                get_client_addr(cycle.scope),
                "POST",
                "/mcp",
                "1.1",
                int(status[:3]),
            )
        cycle.response_complete = True
        if not cycle.keep_alive:
            self.transport.close()
        self.on_response_complete()
