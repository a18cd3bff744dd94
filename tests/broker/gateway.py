"""A tiny recording HTTP forward proxy: stands in for an egress gateway in tests.

It records each request's method, absolute target and headers, then forwards it to the
target (one request per connection, ``Connection: close``) and pipes the response back.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from urllib.parse import urlsplit


@dataclass
class Seen:
    method: str
    target: str
    headers: dict[str, str]


@dataclass
class RecordingGateway:
    seen: list[Seen] = field(default_factory=list)
    server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        host, port = self.server.sockets[0].getsockname()[:2]
        return f"http://{host}:{port}"

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.server.wait_closed(), 2)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    k, v = line.split(":", 1)
                    headers[k.strip().lower()] = v.strip()
            body = b""
            if "content-length" in headers:
                body = await reader.readexactly(int(headers["content-length"]))
            self.seen.append(Seen(method, target, headers))
            url = urlsplit(target)
            up_r, up_w = await asyncio.open_connection(url.hostname, url.port or 80)
            path = url.path + (f"?{url.query}" if url.query else "")
            out = [f"{method} {path} HTTP/1.1"]
            for k, v in headers.items():
                if k not in ("proxy-connection", "connection", "keep-alive"):
                    out.append(f"{k}: {v}")
            out.append("connection: close")
            up_w.write(("\r\n".join(out) + "\r\n\r\n").encode("latin-1") + body)
            await up_w.drain()
            while chunk := await up_r.read(65536):
                writer.write(chunk)
                await writer.drain()
            up_w.close()
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        finally:
            writer.close()
