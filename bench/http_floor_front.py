"""The least any streamable-HTTP front can cost, for bench/broker.py's `--floor` paths.

    python bench/http_floor_front.py canned|forward PORT COMMAND [ARGS...]

Raw asyncio streams on uvloop, no HTTP library, no checks, no audit: it reads a request,
answers `initialize` and `tools/list` itself (one tool, `mcp_router_call`, so the SDK client
does not list the tools again on every call), `202` for notifications, `405` for GET/DELETE,
and a `tools/call` of `mcp_router_call` either at once with the echo's answer (`canned`: the
client and the TCP hops only) or by writing the inner call on the downstream server's stdin
and relaying its answer (`forward`: the four process hops every front makes). What a path
adds on top of these is the front's own work; what these add over a direct stdio call is the
same SDK client's HTTP side and the wake-ups, which no front can remove.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from typing import Any

import uvloop

SID = uuid.uuid4().hex.encode()
REASONS = {200: b"OK", 202: b"Accepted", 405: b"Method Not Allowed"}
TOOLS = {"tools": [{"name": "mcp_router_call", "inputSchema": {"type": "object"}}]}


class Downstream:
    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.ids = 0

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
        self.reader = asyncio.ensure_future(self.read())
        params = {"protocolVersion": "2025-06-18", "capabilities": {}}
        await self.request("initialize", {**params, "clientInfo": {"name": "f", "version": "1"}})
        assert self.proc.stdin is not None
        self.proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    async def read(self) -> None:
        assert self.proc.stdout is not None
        while line := await self.proc.stdout.readline():
            msg = json.loads(line)
            fut = self.pending.pop(msg.get("id"), None)
            if fut is not None:
                fut.set_result(msg)

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.ids += 1
        fut = asyncio.get_running_loop().create_future()
        self.pending[self.ids] = fut
        msg = {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params}
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        return await fut


def response(status: int, body: bytes = b"") -> bytes:
    head = b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n" % (
        status,
        REASONS[status],
        len(body),
    )
    return head + b"mcp-session-id: " + SID + b"\r\n\r\n" + body


async def answer(msg: dict[str, Any], mode: str, down: Downstream) -> dict[str, Any]:
    method, params = msg["method"], msg.get("params") or {}
    if method == "initialize":
        info = {"name": "floor", "version": "1"}
        version = params["protocolVersion"]
        return {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
    if method == "tools/list":
        return TOOLS
    if method == "tools/call":
        call = params["arguments"]
        if mode == "canned":
            text = "Echo: " + call["arguments"]["message"]
            return {"content": [{"type": "text", "text": text}], "isError": False}
        inner = {"name": call["tool"], "arguments": call["arguments"]}
        return (await down.request("tools/call", inner))["result"]
    return {}


async def serve(mode: str, port: int, argv: list[str]) -> None:
    down = Downstream(argv)
    if mode == "forward":
        await down.start()

    async def connection(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        while True:
            try:
                head = await r.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            lines = head.decode("latin-1").split("\r\n")
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            body = await r.readexactly(int(headers.get("content-length", "0")))
            if not lines[0].startswith("POST "):
                w.write(response(405))
                continue
            msg = json.loads(body)
            if "id" not in msg:
                w.write(response(202))
                continue
            result = await answer(msg, mode, down)
            out = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
            w.write(response(200, json.dumps(out).encode()))

    server = await asyncio.start_server(connection, "127.0.0.1", port)
    await server.serve_forever()


if __name__ == "__main__":
    uvloop.run(serve(sys.argv[1], int(sys.argv[2]), sys.argv[3:]))
