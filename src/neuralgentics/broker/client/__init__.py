"""The broker as an MCP *client* of the downstream servers (the SDK's `mcp.client` side; the
agent-facing side is `broker.server`): one long-lived ``ClientSession`` per downstream server,
over stdio (`client.stdio`), streamable HTTP or SSE (`client.http`); an HTTP or SSE server
with a ``command`` is started first and reached once its URL answers (`client.launched`).
``connect(config)`` opens the transport, initializes the session and yields a
:class:`Connection`; the launcher keeps it open for as long as the server is warm."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import mcp.types as types
from mcp import ClientSession
from mcp.client.session import ElicitationFnT, SamplingFnT
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from neuralgentics import __version__
from neuralgentics.broker.client.errors import ConnectionClosed, RequestTimedOut, from_session_error
from neuralgentics.broker.client.http import SESSION_HEADER, current_session_id, make_http_client
from neuralgentics.broker.client.launched import launched_process
from neuralgentics.broker.client.process import CommandNotFound, ServerProcess
from neuralgentics.broker.client.stdio import DirectCalls, stdio_transport
from neuralgentics.broker.config import ServerConfig
from neuralgentics.broker.sandbox import launch

NotificationHandler = Callable[[Any], Awaitable[None]]

CLIENT_INFO = types.Implementation(name="neuralgentics-broker", version=__version__)


@dataclass
class Connection:
    session: ClientSession
    init: types.InitializeResult
    process: ServerProcess | None
    # Plain tools/call on a stdio server's pipe, beside the session (see DirectCalls).
    direct: DirectCalls | None = None


@contextlib.asynccontextmanager
async def connect(
    config: ServerConfig,
    on_message: NotificationHandler | None = None,
    on_spawn: Callable[[ServerProcess], None] | None = None,
    *,
    gateway: str | None = None,
    sampling: SamplingFnT | None = None,
    elicitation: ElicitationFnT | None = None,
) -> AsyncIterator[Connection]:
    """Open the transport and an initialized session; both close when the block exits.

    ``gateway``: an HTTP proxy every request to an HTTP server goes through (egress gateway).

    ``sampling`` / ``elicitation``: answer the server's ``sampling/createMessage`` and
    ``elicitation/create`` requests (the broker forwards them to its own client); given, the
    session declares those capabilities, so servers offer what needs them.

    ``on_spawn`` receives the server's process (a stdio server's, or a launched HTTP
    server's) as soon as it exists, so a server that dies during start-up can still be
    reported with its exit code and stderr.
    """
    async with contextlib.AsyncExitStack() as stack:
        process: ServerProcess | None = None
        direct: DirectCalls | None = None
        # the SDK's stream types differ per transport; ClientSession takes any of them
        read: Any
        write: Any
        if config.transport == "stdio":
            assert config.command is not None
            run = launch(config, gateway)  # bwrap around it when its entry asks
            read, write, process, direct = await stack.enter_async_context(
                stdio_transport(run.command, run.args, run.env, config.cwd, on_spawn)
            )
        else:
            assert config.url is not None
            if config.command is not None:
                # Launched: the process first; connect once its URL answers.
                process = await stack.enter_async_context(
                    launched_process(config, on_spawn, gateway)
                )
            read, write = await stack.enter_async_context(
                _http_transport(config, config.url, gateway)
            )

        async def message_handler(message: Any) -> None:
            if on_message is not None:
                await on_message(message)

        session = await stack.enter_async_context(
            ClientSession(
                read,
                write,
                message_handler=message_handler,
                client_info=CLIENT_INFO,
                sampling_callback=sampling,
                elicitation_callback=elicitation,
            )
        )
        init = await session.initialize()
        yield Connection(session=session, init=init, process=process, direct=direct)


@contextlib.asynccontextmanager
async def _http_transport(
    config: ServerConfig, url: str, gateway: str | None
) -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's streamable HTTP or SSE client streams for ``url``."""
    headers = config.expanded_headers() or None
    if config.transport == "streamable_http":
        async with (
            make_http_client(headers=headers, gateway=gateway) as client,
            streamable_http_client(url, http_client=client) as (read, write),
        ):
            yield read, write
    else:
        async with sse_client(
            url,
            headers=headers,
            httpx_client_factory=functools.partial(make_http_client, gateway=gateway),
        ) as (read, write):
            yield read, write


async def list_all_tools(session: ClientSession) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(100):  # bounded: a server that pages forever does not hang the broker
        result = await session.list_tools(
            params=types.PaginatedRequestParams(cursor=cursor) if cursor else None
        )
        tools.extend(result.tools)
        cursor = result.next_cursor
        if not cursor:
            break
    return tools


__all__ = [
    "SESSION_HEADER",
    "CommandNotFound",
    "ConnectionClosed",
    "Connection",
    "DirectCalls",
    "RequestTimedOut",
    "ServerProcess",
    "connect",
    "current_session_id",
    "from_session_error",
    "list_all_tools",
    "make_http_client",
]
