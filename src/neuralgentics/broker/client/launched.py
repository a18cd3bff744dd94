"""Servers the broker starts and then reaches over HTTP: ``command`` + ``url`` in one entry.

Many MCP servers only listen (streamable HTTP or SSE) and must be started first. The broker
spawns the command like a stdio server (`client.process`: own process group, dies with the
broker, output kept for error reports), waits until the URL answers, and only then connects;
the launcher supervises the process like any other (crash → restart with back-off, idle
stop, reload), because the runtime carries it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable

import anyio
import httpx2

from neuralgentics.broker.client.process import (
    ServerProcess,
    collect_lines,
    spawn,
    terminate,
    watch_exit,
)
from neuralgentics.broker.config import ServerConfig
from neuralgentics.broker.sandbox import launch


class ExitedBeforeListening(RuntimeError):
    """The launched process ended before its URL answered."""


async def wait_until_answers(url: str, sp: ServerProcess) -> None:
    """Return once an HTTP request to ``url`` gets any response (a 404 or 405 is an answer:
    something listens there); fail as soon as the process exits. Unbounded here: the
    launcher bounds the whole start by the entry's ``start_timeout``."""
    delay = 0.05
    # Straight to the child, never through a proxy from the environment or the egress
    # gateway: this only asks whether our own process listens yet.
    async with httpx2.AsyncClient(trust_env=False, timeout=httpx2.Timeout(2.0)) as client:
        while True:
            if sp.returncode is not None:
                raise ExitedBeforeListening(
                    f"the server process exited with code {sp.returncode} before {url} answered"
                )
            try:
                # Headers are enough: an SSE endpoint answers with a stream that never ends.
                async with client.stream("GET", url, headers={"Accept": "text/event-stream"}):
                    return
            except httpx2.HTTPError:
                pass
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(sp.exited.wait(), delay)
            delay = min(delay * 2, 0.5)


@contextlib.asynccontextmanager
async def launched_process(
    config: ServerConfig,
    on_spawn: Callable[[ServerProcess], None] | None = None,
    gateway: str | None = None,
) -> AsyncIterator[ServerProcess]:
    """Start ``config.command`` (under bwrap when its entry asks), yield its process once
    ``config.url`` answers; stop it (TERM, then KILL its group) when the block exits."""
    assert config.command is not None and config.url is not None
    run = launch(config, gateway)
    sp = await spawn(run.command, run.args, run.env, config.cwd)
    if on_spawn is not None:
        on_spawn(sp)
    output_done = anyio.Event()

    async def read_output() -> None:
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(collect_lines, sp.proc.stdout, sp)
                tg.start_soon(collect_lines, sp.proc.stderr, sp)
        finally:
            output_done.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(read_output)
        tg.start_soon(watch_exit, sp)
        try:
            await wait_until_answers(config.url, sp)
            yield sp
        finally:
            with anyio.CancelScope(shield=True):
                await terminate(sp, ask_first=False)
                with anyio.move_on_after(0.5):
                    await output_done.wait()
            tg.cancel_scope.cancel()
