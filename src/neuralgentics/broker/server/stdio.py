"""``neuralgentics broker stdio``: the broker as one MCP server on stdin/stdout."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from mcp import types
from mcp.server.lowlevel.server import NotificationOptions

from neuralgentics.broker.config import ConfigError
from neuralgentics.broker.intent.tools import Intents
from neuralgentics.broker.server import stdio_prelude
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
        # Servers whose tools were never listed (the first start in a home) are not waited
        # for, nor started before the first answers are out: their start would take the
        # cores the answers need (docs/broker.md, "The first start in a home").
        instructions = Instructions(broker, counts=token_counts_path(broker), list_wait=0.0)
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
            notes = NotificationOptions(
                tools_changed=True, resources_changed=True, prompts_changed=True
            )

            def capabilities() -> dict[str, bool]:
                # what a start now would declare of what depends on the servers' listings
                return {kind: server.declares(kind) for kind in ("resources", "prompts")}

            listing = asyncio.ensure_future(
                _list_after_answers(
                    broker,
                    instructions,
                    capabilities,
                    front.listed if front.writes else None,
                    role,
                )
            )
            listing.add_done_callback(_report)
            try:
                await server.run(read, write, server.create_initialization_options(notes))
            finally:
                listing.cancel()


async def _list_after_answers(
    broker: Broker,
    instructions: Instructions,
    capabilities: Callable[[], dict[str, bool]],
    listed: asyncio.Event | None,
    role: str | None,
) -> None:
    """Once the client's first ``tools/list`` is answered (at once off pipes, where the SDK's
    transport gives no such signal): start and list the servers never listed, for the
    connection's role or, without one, for every role (what its instructions name). Then the
    next start's answers are this start's with their tools (``StartAnswers``): the
    instructions and capabilities (a server listed without resources no longer declares
    them) again after each listing, and a tools/list the client asks again after being told
    it changed."""
    if listed is not None:
        await listed.wait()
    answers = stdio_prelude.current()
    if answers is not None:
        answers.record_again("tools/list")
    fixed = role or broker.config.default_role
    roles = [fixed] if fixed is not None else sorted(broker.config.roles)

    async def restate(tools_changed: bool) -> None:
        if answers is not None:
            if tools_changed:  # the recorded tools/list no longer holds, unless asked again
                answers.forget("tools/list")
            text = await instructions.prepare(fixed)
            answers.restate_initialize(text, capabilities())

    await asyncio.gather(*(broker.list_unlisted(r, restate) for r in roles))


def _report(task: asyncio.Future[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.warning(
            "broker stdio: listing the servers never listed failed: %s", task.exception()
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
