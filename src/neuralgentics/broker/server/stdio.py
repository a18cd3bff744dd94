"""``neuralgentics broker stdio``: the broker as one MCP server on stdin/stdout."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from mcp import types
from mcp.server.lowlevel.server import NotificationOptions

from neuralgentics.broker.config import ConfigError
from neuralgentics.broker.intent.tools import Intents
from neuralgentics.broker.server.handlers import build_server, route_call, stdio_caller
from neuralgentics.broker.server.instructions import (
    CONNECTION_ROLE,
    Instructions,
    token_counts_path,
)
from neuralgentics.broker.server.stdio_transport import broker_stdio_transport
from neuralgentics.broker.service import Broker
from neuralgentics.config import Settings

logger = logging.getLogger(__name__)


def install_reload_handler(broker: Broker) -> None:
    """SIGHUP re-reads the config; a bad file is logged and changes nothing."""
    loop = asyncio.get_running_loop()

    async def reload() -> None:
        try:
            await broker.reload(credential="signal", front="signal")
        except ConfigError as exc:
            logger.error("SIGHUP: config not reloaded: %s", exc)

    def on_hup() -> None:
        asyncio.ensure_future(reload())

    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGHUP, on_hup)


def install_stop_handlers(task: asyncio.Task[object]) -> None:
    """SIGTERM/SIGINT cancel the main task so every server is stopped before exit."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, task.cancel)


async def serve_stdio(
    config_path: Path | str | None,
    role: str | None,
    *,
    settings: Settings,
    intents: Intents,
    session_id: str | None = None,
) -> None:
    main = asyncio.current_task()
    assert main is not None
    install_stop_handlers(main)
    async with Broker.open(config_path, settings=settings, intents=intents) as broker:
        install_reload_handler(broker)
        caller_of = stdio_caller(role, session_id)
        caller = caller_of(None)

        async def fast_call(
            name: str, arguments: dict[str, Any]
        ) -> types.CallToolResult | dict[str, Any]:
            return await route_call(broker, caller, name, arguments, as_json=True)

        def accepts(name: str) -> bool:
            # mcp_router_call, and a passthrough tool's name (as on the HTTP front): an
            # unknown name gets route_call's answer either way.
            return name == "mcp_router_call" or broker.passthrough.any()

        async def refused(msg: dict[str, Any] | None, error: str) -> None:
            params = (msg or {}).get("params")
            call = params.get("arguments") if isinstance(params, dict) else None
            call = call if isinstance(call, dict) else {}
            await broker.audit_refused(
                error=error,
                role=caller.role,
                server=call.get("server", "-"),
                tool=call.get("tool", "-"),
                session_id=caller.session_id,
                front=caller.front,
                credential=caller.credential,
                connection=caller.connection,
            )

        # The connection's catalog goes into the instructions of `initialize` (the first thing
        # the client sends): prepared now, for the role every call here has by default.
        # Rendering it counts tokens: with the counts of the last start, the same catalog
        # is rendered without loading the tokenizer (token_counts.py).
        instructions = Instructions(broker, counts=token_counts_path(broker))
        connection_role = role or broker.config.default_role
        CONNECTION_ROLE.set(connection_role)
        await instructions.prepare(connection_role)
        async with broker_stdio_transport(fast_call, refused, accepts) as (read, write, front):
            # On pipes the front answers fast-path calls itself, so it (not an SDK
            # session) is the one told about tool-list changes.
            if front.writes:
                broker.front_sessions.add(front)
            server = build_server(
                broker, caller_of, track_sessions=not front.writes, instructions=instructions
            )
            await server.run(
                read,
                write,
                server.create_initialization_options(
                    NotificationOptions(
                        tools_changed=True, resources_changed=True, prompts_changed=True
                    )
                ),
            )


def run(main: Coroutine[Any, Any, None]) -> None:
    """On uvloop where it is installed (not on Windows): once the SDK's per-request work was
    out of the way, the event loop was the largest share left of the broker's CPU per call,
    and uvloop took about a tenth off it (docs/benchmarks-broker.md)."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
    else:
        uvloop.run(main)
