"""List a server's tools with the SDK's own clients (for `neuralgentics broker refresh`).

The running broker lists tools over its long-lived sessions and saves them to the cache itself;
this is for filling the cache from the command line (`broker refresh`, `broker
import --apply`, `doctor`) and for measuring real servers. An HTTP server is reached with the
broker's own HTTP client (`client.connect`'s transport), so ``EGRESS_GATEWAY_URL`` routes these
requests — and the expanded secret headers — through the gateway as it does the broker's
(issue 29, item 13: they went straight to the server).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import PaginatedRequestParams, Tool

from neuralgentics.broker.catalog.cache import ToolListCache
from neuralgentics.broker.catalog.content_cache import ContentCache
from neuralgentics.broker.client import _http_transport
from neuralgentics.broker.client.listings import ServerContent, list_content
from neuralgentics.broker.config import ServerConfig
from neuralgentics.broker.sandbox import launch

if TYPE_CHECKING:
    from neuralgentics.config import Settings

# A server that pages forever must not hang refresh.
MAX_PAGES = 100


@asynccontextmanager
async def open_session(
    config: ServerConfig, errlog: TextIO = sys.stderr, gateway: str | None = None
) -> AsyncIterator[ClientSession]:
    """An initialised ClientSession to the server, over its configured transport. HTTP goes
    through ``gateway`` (the commands pass ``Settings.egress_gateway_url``)."""
    if config.transport == "stdio":
        run = launch(config, gateway)  # bwrap around it when its entry asks
        params = StdioServerParameters(
            command=run.command, args=run.args, env=run.env or None, cwd=config.cwd
        )
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session
    else:
        assert config.url is not None
        async with _http_transport(config, config.url, gateway) as (read, write):
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
    config: ServerConfig,
    timeout: float | None = None,
    errlog: TextIO = sys.stderr,
    gateway: str | None = None,
) -> list[Tool]:
    """Start (or connect to) the server, list its tools, close it. ``gateway``: the egress
    gateway HTTP goes through (``Settings.egress_gateway_url``)."""
    with anyio.fail_after(timeout if timeout is not None else config.start_timeout + 30):
        async with open_session(config, errlog=errlog, gateway=gateway) as session:
            return await list_all_tools(session)


async def fetch_listing(
    config: ServerConfig,
    timeout: float | None = None,
    errlog: TextIO = sys.stderr,
    gateway: str | None = None,
) -> tuple[list[Tool], ServerContent]:
    """``fetch_tools``, and the resources, templates and prompts the server declares (so a
    broker started later knows, before its first client's ``initialize``, whether any server
    has resources: OpenCode adds three tools of its own for a server that declares them)."""
    with anyio.fail_after(timeout if timeout is not None else config.start_timeout + 30):
        async with open_session(config, errlog=errlog, gateway=gateway) as session:
            tools = await list_all_tools(session)
            content = await list_content(session, session.server_capabilities)
            return tools, content


@dataclass
class Listed:
    """One server listed into the cache: its tool count, or why it failed (with the last lines
    of its stderr)."""

    name: str
    tools: int | None = None
    error: str | None = None
    stderr_tail: list[str] = field(default_factory=list)


def refresh_one(
    name: str,
    config: ServerConfig,
    cache: ToolListCache,
    timeout: float,
    gateway: str | None = None,
    content_cache: ContentCache | None = None,
) -> Listed:
    """Start the server, list its tools into ``cache``, stop it (``broker refresh``, ``broker
    add``, ``broker import``). Never raises for the server's own failure: it is reported."""
    # The server's stderr goes to a file (a terminal would interleave it with our output);
    # its last lines explain a failure.
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as errlog:
        try:
            if content_cache is None:
                tools = anyio.run(fetch_tools, config, timeout, errlog, gateway)
            else:
                tools, content = anyio.run(fetch_listing, config, timeout, errlog, gateway)
                content_cache.save(name, config, content)
        except Exception as exc:  # noqa: BLE001 - report every server, whatever went wrong
            reason = " ".join(str(exc).split()) or type(exc).__name__
            errlog.seek(0)
            tail = [line.rstrip() for line in errlog.read().splitlines() if line.strip()][-5:]
            return Listed(name, error=reason[:300], stderr_tail=[t[:300] for t in tail])
    cache.save(name, config, tools)
    return Listed(name, tools=len(tools))


def list_unlisted(settings: Settings, timeout: float = 30.0) -> list[Listed]:
    """List every brokered server the cache holds no tools for (``opencode install``).

    A first ``broker stdio`` start answers at once and does not wait for servers it has never
    listed (docs/broker.md, "The first start in a home"), so without this the first session's
    instructions would name no tool of a server written into broker.yaml by hand. Servers list
    side by side; a failure is reported and changes nothing."""
    from concurrent.futures import ThreadPoolExecutor

    from neuralgentics.broker.config import default_config_path, load_config

    cfg = load_config(default_config_path(settings), missing_ok=True)
    cache = ToolListCache(settings.home / "broker" / "tools")
    contents = ContentCache(settings.home / "broker" / "content")
    servers = cfg.brokered()
    todo = [name for name in sorted(servers) if cache.load(name, servers[name]) is None]
    gateway = settings.egress_gateway_url
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(
            pool.map(lambda n: refresh_one(n, servers[n], cache, timeout, gateway, contents), todo)
        )
