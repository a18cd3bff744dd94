"""A cap on a request's head (request line and headers) before uvicorn's parser holds it.

uvicorn's httptools protocol (both fronts run it) puts no limit on the head: httptools joins
a header value's pieces with ``+=`` on every read and uvicorn joins the URL the same way, so
one 96 MiB header cost time quadratic in its size on the event loop — ``/health`` and every
other request of the process stalled for 22-32 s, before HTTPGuard or any token check
(issue 29, item 4). Every production server caps the head (nginx 8 KiB per line and 32 KiB
together by default, Node 16 KiB); here a head past ``MAX_HEAD_BYTES`` is answered
``431 Request Header Fields Too Large`` and the connection closed, having fed the parser at
most that many bytes of it.

``uvicorn.run(..., http=HeadCappedHttpToolsProtocol)``.
"""

from __future__ import annotations

import asyncio
import json

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from neuralgentics.errors import error_body

# Request line and headers together; a browser's cookies and a bearer token fit many times.
MAX_HEAD_BYTES = 64 * 1024
# After the 431: what is still read (and dropped, unparsed) so that the client, still sending,
# gets the answer rather than a reset; past this, or after LINGER_SECONDS, the socket closes.
DISCARD_BYTES = 1024 * 1024
LINGER_SECONDS = 2.0


class HeadCappedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, refusing a request head past ``MAX_HEAD_BYTES``."""

    max_head_bytes = MAX_HEAD_BYTES

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._in_head = True  # the next bytes are a request's head
        self._head_bytes = 0
        self._discard: int | None = None  # refused: bytes still read and dropped

    def on_headers_complete(self) -> None:
        self._in_head = False
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._in_head, self._head_bytes = True, 0

    def data_received(self, data: bytes) -> None:
        if self._discard is not None:
            self._discard -= len(data)
            if self._discard <= 0:
                self.transport.close()
            return
        if not self._in_head:
            super().data_received(data)
            return
        room = self.max_head_bytes - self._head_bytes
        if len(data) <= room:
            self._head_bytes += len(data)
            super().data_received(data)
            return
        # Only what the cap allows goes to the parser: the head may end within it.
        super().data_received(data[:room])
        if self.transport.is_closing():
            return  # the parser refused it already (400)
        if self._in_head:
            self._refuse()
            return
        self.data_received(data[room:])  # the body (and perhaps the next head, counted)

    def _refuse(self) -> None:
        self.logger.warning("refused a request head over %d bytes", self.max_head_bytes)
        body = json.dumps(
            error_body(
                "header_too_large",
                f"the request line and headers are over {self.max_head_bytes // 1024} KiB",
            )
        ).encode()
        self.transport.write(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
            b"content-type: application/json\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n"
            b"connection: close\r\n\r\n" + body
        )
        # Closing now, with the client's bytes unread, would send it a reset that can beat
        # the answer: end our side, drop what still comes for a while, then close.
        self._discard = DISCARD_BYTES
        if self.transport.can_write_eof():
            self.transport.write_eof()
        asyncio.get_running_loop().call_later(LINGER_SECONDS, self.transport.close)
