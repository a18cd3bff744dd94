"""A deliberately misbehaving stdio MCP server for fault tests (timeouts, cancellation).

`wait` sleeps for the given seconds; `hang` never answers; `pid` reports its process id.
"""

import asyncio
import os

from mcp.server.mcpserver import MCPServer

app = MCPServer("slow")


@app.tool()
async def wait(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return f"waited {seconds}"


@app.tool()
async def hang() -> str:
    await asyncio.Event().wait()
    return "never"


@app.tool()
def pid() -> str:
    return str(os.getpid())


if __name__ == "__main__":
    app.run()
