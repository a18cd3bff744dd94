"""A stdio MCP server for broker fault and security tests.

Tools: `echo`, `pid`, `env` (its own environment as JSON), `wait`, `garbage` (writes lines of
non-JSON to stdout, then answers), `flood` (writes MiB to stderr, then answers), `fail` (an
error result quoting its message, as a downstream error quotes what it was sent).
`--flood-stderr` also floods stderr from a thread for as long as the server runs.
"""

import asyncio
import json
import os
import sys
import threading

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent

app = MCPServer("probe")


@app.tool()
def echo(text: str, api_key: str = "", password: str = "") -> str:
    return text


@app.tool()
def pid() -> str:
    return str(os.getpid())


@app.tool()
def env() -> str:
    return json.dumps(dict(os.environ))


@app.tool()
async def wait(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return f"waited {seconds}"


@app.tool()
def garbage(lines: int = 3) -> str:
    sys.stdout.flush()
    for i in range(lines):
        os.write(1, b"this is not JSON-RPC %d {[\n" % i)
    return "after garbage"


@app.tool()
def flood(mib: int = 4) -> str:
    block = b"E" * 1023 + b"\n"
    for _ in range(mib * 1024):
        os.write(2, block)
    return f"flooded {mib} MiB"


@app.tool()
def fail(message: str) -> CallToolResult:
    # An error result, not an exception: the SDK's exception path formats a traceback of the
    # whole message, seconds for a large one.
    return CallToolResult(
        is_error=True, content=[TextContent(type="text", text=f"could not process {message}")]
    )


def _flood_forever() -> None:
    block = b"noise " * 170 + b"\n"
    while True:
        os.write(2, block)


if __name__ == "__main__":
    if "--flood-stderr" in sys.argv:
        threading.Thread(target=_flood_forever, daemon=True).start()
    app.run()
