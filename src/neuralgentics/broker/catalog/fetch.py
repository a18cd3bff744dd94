"""List a server's tools with the SDK's own clients (for `neuralgentics broker refresh`).

The running broker lists tools over its long-lived sessions and saves them to the cache itself;
this is for filling the cache from the command line and for measuring real servers.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TextIO

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import PaginatedRequestParams, Tool

from neuralgentics.broker.catalog.cache import ToolListCache
from neuralgentics.broker.config import ServerConfig

# A server that pages forever must not hang refresh.
MAX_PAGES = 100


@asynccontextmanager
async def open_session(
    config: ServerConfig, errlog: TextIO = sys.stderr
) -> AsyncIterator[ClientSession]:
    """An initialised ClientSession to the server, over its configured transport."""
    if config.transport == "stdio":
        assert config.command is not None
        params = StdioServerParameters(
            command=config.command,
            args=config.expanded_args(),
            env=config.expanded_env() or None,
            cwd=config.cwd,
        )
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session
    elif config.transport == "streamable_http":
        assert config.url is not None
        async with create_mcp_http_client(headers=config.expanded_headers()) as http:
            async with streamable_http_client(config.url, http_client=http) as streams:
                read, write = streams[0], streams[1]
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    yield session
    else:
        assert config.url is not None
        async with sse_client(config.url, headers=config.expanded_headers()) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


async def list_all_tools(session: ClientSession) -> list[Tool]:
    """Every page of tools/list."""
    tools: list[Tool] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        result = await session.list_tools(
            params=PaginatedRequestParams(cursor=cursor) if cursor else None
        )
        tools.extend(result.tools)
        cursor = result.next_cursor
        if not cursor:
            break
    return tools


async def fetch_tools(
    config: ServerConfig, timeout: float | None = None, errlog: TextIO = sys.stderr
) -> list[Tool]:
    """Start (or connect to) the server, list its tools, close it."""
    with anyio.fail_after(timeout if timeout is not None else config.start_timeout + 30):
        async with open_session(config, errlog=errlog) as session:
            return await list_all_tools(session)


@dataclass
class Listed:
    """One server listed into the cache: its tool count, or why it failed (with the last lines
    of its stderr)."""

    name: str
    tools: int | None = None
    error: str | None = None
    stderr_tail: list[str] = field(default_factory=list)


def refresh_one(name: str, config: ServerConfig, cache: ToolListCache, timeout: float) -> Listed:
    """Start the server, list its tools into ``cache``, stop it (``broker refresh``, ``broker
    add``, ``broker import``). Never raises for the server's own failure: it is reported."""
    # The server's stderr goes to a file (a terminal would interleave it with our output);
    # its last lines explain a failure.
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as errlog:
        try:
            tools = anyio.run(fetch_tools, config, timeout, errlog)
        except Exception as exc:  # noqa: BLE001 - report every server, whatever went wrong
            reason = " ".join(str(exc).split()) or type(exc).__name__
            errlog.seek(0)
            tail = [line.rstrip() for line in errlog.read().splitlines() if line.strip()][-5:]
            return Listed(name, error=reason[:300], stderr_tail=[t[:300] for t in tail])
    cache.save(name, config, tools)
    return Listed(name, tools=len(tools))
