"""The broker's uvicorn protocol (one write per sized response) on a real socket.

A client must see the same HTTP as from stock uvicorn: sized answers complete and parseable
(several on one keep-alive connection), a streamed answer's headers as soon as the app
starts it (an SSE client waits for them before any event), and ``100 Continue`` before a
body it asked to send.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import uvicorn

from neuralgentics.broker.server.http_protocol import OneWriteHttpToolsProtocol

release = threading.Event()


async def app(scope, receive, send) -> None:  # noqa: ANN001 - a bare ASGI app
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    if scope["path"] == "/stream":
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        while not release.is_set():
            await asyncio.sleep(0.01)
        await send({"type": "http.response.body", "body": b"data: late\n\n"})
        return
    answer = b'{"echo": "' + body + b'"}'
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(answer)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": answer})


@contextlib.contextmanager
def serving() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(app, port=port, log_level="warning", http=OneWriteHttpToolsProtocol)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield port
    finally:
        release.set()
        server.should_exit = True
        thread.join(30)


def read_until(sock: socket.socket, marker: bytes, have: bytes = b"") -> bytes:
    while marker not in have:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed before {marker!r}; got {have!r}"
        have += chunk
    return have


def post(body: bytes, extra: bytes = b"") -> bytes:
    return b"POST /json HTTP/1.1\r\nhost: x\r\ncontent-length: %d\r\n%s\r\n%s" % (
        len(body),
        extra,
        body,
    )


def test_sized_answers_arrive_whole_on_a_kept_alive_connection() -> None:
    with serving() as port, socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        for word in (b"one", b"two"):
            sock.sendall(post(word))
            raw = read_until(sock, b'"}')
            head, _, body = raw.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200 OK")
            assert b"content-length: %d" % len(body) in head.lower()
            assert body == b'{"echo": "' + word + b'"}'


def test_a_streamed_answer_shows_its_headers_before_its_first_event() -> None:
    release.clear()
    with serving() as port, socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"GET /stream HTTP/1.1\r\nhost: x\r\n\r\n")
        head = read_until(sock, b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 OK") and b"text/event-stream" in head
        assert b"late" not in head  # the app has not sent its event yet
        release.set()
        assert b"data: late" in read_until(sock, b"late", head)


def test_expect_100_continue_is_answered_before_the_body_is_sent() -> None:
    with serving() as port, socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(
            post(b"", b"expect: 100-continue\r\n").replace(
                b"content-length: 0", b"content-length: 4"
            )
        )
        assert read_until(sock, b"\r\n\r\n").startswith(b"HTTP/1.1 100 Continue")
        sock.sendall(b"body")
        raw = read_until(sock, b'"}')
        assert raw.split(b"\r\n\r\n")[-1] == b'{"echo": "body"}'
