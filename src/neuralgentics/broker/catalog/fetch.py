"""List a server's tools with the SDK's own clients (for `neuralgentics broker refresh`).

The running broker lists tools over its long-lived sessions and saves them to the cache itself;
this is for filling the cache from the command line and for measuring real servers.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TextIO

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import PaginatedRequestParams, Tool

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
            args=config.args,
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
