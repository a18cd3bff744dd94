"""Spawn servers on demand, keep them warm, supervise, restart with back-off, reload.

Each warm server is owned by one supervisor task that holds its transport and
``ClientSession`` open (anyio scopes must close in the task that opened them) and watches
for: a stop request (idle timeout, reload, shutdown), the process exiting, or the
connection being reported lost by a call. Callers never touch the supervisor; they get the
runtime through the entry's lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol, TypeVar

import mcp.types as types
from mcp.shared.exceptions import MCPError

from neuralgentics.broker.client import CommandNotFound, ServerProcess, connect, list_all_tools
from neuralgentics.broker.client.listings import ContentKind, ServerContent, list_content
from neuralgentics.broker.config import ServerConfig
from neuralgentics.broker.errors import NotFound, ServerUnavailable
from neuralgentics.broker.launcher.entry import (
    MAX_CONSECUTIVE_FAILURES,
    STABLE_UPTIME,
    Runtime,
    ServerEntry,
)

logger = logging.getLogger(__name__)

# How long a changed or removed server's in-flight calls may finish before it is stopped.
DRAIN_SECONDS = 5.0

ToolsChanged = Callable[[str], Awaitable[None]]
# (server, "resources" | "prompts") -> None: a server's resource or prompt list changed.
ContentChanged = Callable[[str, ContentKind], Awaitable[None]]
# server -> (sampling callback, elicitation callback) for its session (None: not offered).
RequestHandlers = Callable[[str], tuple[Any, Any]]


class ToolCache(Protocol):
    def load(self, server: str, server_config: ServerConfig) -> list[types.Tool] | None: ...
    def save(self, server: str, server_config: ServerConfig, tools: list[types.Tool]) -> object: ...


class ContentCache(Protocol):
    def load(self, server: str, server_config: ServerConfig) -> ServerContent | None: ...
    def save(self, server: str, server_config: ServerConfig, content: ServerContent) -> object: ...


def _describe(exc: BaseException) -> str:
    """A one-line reason, digging through anyio's exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, CommandNotFound):
        return str(exc)
    if isinstance(exc, MCPError):
        return f"MCP error {exc.code}: {exc.message}"
    if isinstance(exc, TimeoutError):
        return "timed out"
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if type(exc).__name__ not in text else text


V = TypeVar("V")


def _load_cached(
    load: Callable[[str, ServerConfig], V | None], name: str, config: ServerConfig
) -> V | None:
    """A server's listing from its on-disk cache, or None."""
    try:
        return load(name, config)
    except Exception:  # noqa: BLE001 - a broken cache only costs a start
        return None


def _save_cached(
    save: Callable[[str, ServerConfig, V], object],
    name: str,
    config: ServerConfig,
    value: V,
    what: str,
) -> None:
    """Write a server's listing to its on-disk cache; a failure is logged, not raised."""
    try:
        save(name, config, value)
    except Exception as exc:  # noqa: BLE001
        logger.warning("could not cache the %s of %s: %s", what, name, exc)


class Launcher:
    def __init__(
        self,
        servers: dict[str, ServerConfig],
        on_tools_changed: ToolsChanged | None = None,
        tool_cache: ToolCache | None = None,
        *,
        egress_gateway: str | None = None,
        content_cache: ContentCache | None = None,
        on_content_changed: ContentChanged | None = None,
        request_handlers: RequestHandlers | None = None,
    ) -> None:
        self.egress_gateway = egress_gateway
        self.content_cache = content_cache
        self._on_content_changed = on_content_changed
        self._request_handlers = request_handlers
        self.entries: dict[str, ServerEntry] = {n: ServerEntry(n, c) for n, c in servers.items()}
        # Tool lists on disk (keyed by each server's launch config): the catalog of a cold
        # server is read from here instead of starting it.
        self.tool_cache = tool_cache
        self._tasks: set[asyncio.Task[Any]] = set()
        # Supervisors still starting their server (no runtime yet): nothing of theirs to drain.
        self._starting: set[asyncio.Task[Any]] = set()
        self._on_tools_changed = on_tools_changed
        self._closed = False

    # -- starting --------------------------------------------------------------------

    def entry(self, name: str) -> ServerEntry:
        entry = self.entries.get(name)
        if entry is None:
            raise NotFound(
                f"no server named {name!r} (known: {', '.join(sorted(self.entries)) or 'none'})"
            )
        return entry

    async def acquire(self, name: str) -> Runtime:
        """The warm runtime of ``name``, starting it if cold; concurrent callers share one start."""
        entry = self.entry(name)
        rt = await entry.get_runtime()
        if rt is not None:
            if not entry.is_dead(rt):
                return rt
            # Died and its supervisor has not noticed yet: never hand out a dead session.
            await entry.clear_runtime(rt)
        if self._closed:
            raise ServerUnavailable("the broker is shutting down")
        if entry.starting is None:
            now = time.monotonic()
            if entry.consecutive_failures >= MAX_CONSECUTIVE_FAILURES and now < entry.not_before:
                raise ServerUnavailable(
                    f"server {name!r} failed {entry.consecutive_failures} times in a row and is "
                    f"paused for {entry.not_before - now:.0f} s: {entry.describe_failure()}"
                )
            entry.starting = asyncio.get_running_loop().create_future()
            entry.state = "starting"
            self._spawn(self._supervise(entry, entry.starting))
        fut = entry.starting
        try:
            backoff = max(0.0, entry.not_before - time.monotonic())
            return await asyncio.wait_for(
                asyncio.shield(fut), entry.config.start_timeout + backoff + 5
            )
        except TimeoutError:
            raise ServerUnavailable(
                f"server {name!r} did not start within {entry.config.start_timeout:.0f} s"
            ) from None

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _supervise(self, entry: ServerEntry, fut: asyncio.Future[Runtime]) -> None:
        cfg, gen = entry.config, entry.generation
        rt: Runtime | None = None
        process: ServerProcess | None = None

        def on_spawn(sp: ServerProcess) -> None:
            nonlocal process
            process = sp

        me = asyncio.current_task()
        if me is not None:
            self._starting.add(me)
        try:
            delay = entry.not_before - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)

            async def on_message(message: Any) -> None:
                if isinstance(message, types.ToolListChangedNotification):
                    self._spawn(self._refresh_tools(entry, rt))
                elif isinstance(message, types.ResourceListChangedNotification):
                    self._spawn(self._refresh_content(entry, rt, "resources"))
                elif isinstance(message, types.PromptListChangedNotification):
                    self._spawn(self._refresh_content(entry, rt, "prompts"))

            sampling, elicitation = (
                self._request_handlers(entry.name) if self._request_handlers else (None, None)
            )
            async with asyncio.timeout(cfg.start_timeout) as start_deadline:
                async with contextlib.AsyncExitStack() as stack:
                    conn = await stack.enter_async_context(
                        connect(
                            cfg,
                            on_message,
                            on_spawn,
                            gateway=self.egress_gateway,
                            sampling=sampling,
                            elicitation=elicitation,
                        )
                    )
                    tools = await list_all_tools(conn.session)
                    content = await list_content(conn.session, conn.init.capabilities)
                    start_deadline.reschedule(None)
                    rt = Runtime(
                        conn.session, conn.process, gen, tools, conn.direct, content=content
                    )
                    rt.capabilities = conn.init.capabilities
                    installed = await entry.set_runtime(rt)
                    self._starting.discard(me)
                    if entry.starting is fut:
                        entry.starting = None
                    if not fut.done():
                        fut.set_result(rt)
                    if installed:
                        self._save_tools(entry.name, cfg, tools)
                        self._save_content(entry.name, cfg, content)
                        logger.info(
                            "server %s warm (pid %s, %d tools)", entry.name, rt.pid, len(tools)
                        )
                        await self._watch(entry, rt)
                    else:
                        # The config changed while this start ran: serve who waited, then go.
                        await self._drain(rt)
                    await stack.aclose()
        except asyncio.CancelledError:
            if not fut.done():
                fut.set_exception(ServerUnavailable("the broker is shutting down"))
            raise
        except BaseException as exc:  # noqa: BLE001 - any failure of a server is reported
            reason = _describe(exc)
            stderr = list(process.stderr_tail) if process else []
            code = process.returncode if process else None
            if rt is None:
                if entry.starting is fut:
                    entry.starting = None
                entry.note_failure(f"could not start: {reason}", stderr, code)
                msg = f"server {entry.name!r} could not start: {entry.describe_failure()}"
                logger.warning(msg)
                if not fut.done():
                    fut.set_exception(ServerUnavailable(msg))
            else:
                logger.warning("server %s connection ended: %s", entry.name, reason)
        finally:
            self._starting.discard(me)
            if entry.starting is fut:
                entry.starting = None
            if rt is not None:
                with contextlib.suppress(BaseException):
                    await asyncio.shield(entry.clear_runtime(rt))
                if not rt.stop.is_set() and not self._closed:
                    # Neither idle, reload nor shutdown asked for this: it crashed.
                    uptime = time.monotonic() - rt.started_at
                    if uptime > STABLE_UPTIME:
                        entry.consecutive_failures = 0
                    entry.restarts += 1
                    stderr = list(process.stderr_tail) if process else []
                    code = process.returncode if process else None
                    entry.note_failure("the server exited or its connection was lost", stderr, code)
                    logger.warning("server %s lost: %s", entry.name, entry.describe_failure())
            if entry.state == "starting" and entry.starting is None:
                entry.state = "cold"

    async def _watch(self, entry: ServerEntry, rt: Runtime) -> None:
        """Return when the runtime should end: stop asked, connection lost, process gone, idle."""
        waits = [asyncio.ensure_future(rt.stop.wait()), asyncio.ensure_future(rt.lost.wait())]
        if rt.process is not None:
            waits.append(asyncio.ensure_future(rt.process.exited.wait()))
        try:
            while True:
                idle_after = entry.config.idle_timeout
                timeout = None
                if idle_after > 0:
                    timeout = max(0.05, entry.last_used + idle_after - time.monotonic())
                done, _ = await asyncio.wait(
                    waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
                )
                if done:
                    # Detach first so no new call is routed to a dying session.
                    await entry.clear_runtime(rt)
                    if rt.stop.is_set() and not rt.lost.is_set():
                        await self._drain(rt)
                    return
                if rt.inflight == 0 and time.monotonic() - entry.last_used >= idle_after:
                    logger.info("server %s idle for %.0f s; stopping", entry.name, idle_after)
                    rt.stop.set()
        finally:
            for w in waits:
                w.cancel()

    async def _drain(self, rt: Runtime) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(rt.idle.wait(), DRAIN_SECONDS)

    async def _refresh_tools(self, entry: ServerEntry, rt: Runtime | None) -> None:
        if rt is None:
            return
        try:
            rt.tools = await list_all_tools(rt.session)
        except Exception as exc:  # noqa: BLE001
            logger.warning("server %s: re-listing tools failed: %s", entry.name, _describe(exc))
            return
        if await entry.get_runtime() is rt:
            entry.tools = rt.tools
            self._save_tools(entry.name, entry.config, rt.tools)
        if self._on_tools_changed is not None:
            await self._on_tools_changed(entry.name)

    async def _refresh_content(
        self, entry: ServerEntry, rt: Runtime | None, kind: ContentKind
    ) -> None:
        if rt is None:
            return
        try:
            rt.content = await list_content(rt.session, rt.capabilities, (kind,), rt.content)
        except Exception as exc:  # noqa: BLE001
            logger.warning("server %s: re-listing %s failed: %s", entry.name, kind, _describe(exc))
            return
        if await entry.get_runtime() is rt:
            entry.content = rt.content
            self._save_content(entry.name, entry.config, rt.content)
        if self._on_content_changed is not None:
            await self._on_content_changed(entry.name, kind)

    # -- calls -----------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def use(self, name: str) -> AsyncIterator[Runtime]:
        """A warm runtime held for one call: counted in flight, so drains wait for it."""
        rt = await self.acquire(name)
        entry = self.entries.get(name)
        rt.enter_call()
        try:
            yield rt
        finally:
            rt.leave_call()
            if entry is not None:
                entry.last_used = time.monotonic()

    async def tools(self, name: str) -> list[types.Tool]:
        """The server's tools: the last listing (in memory, then on disk), else start and list."""
        entry = self.entry(name)
        if entry.tools is None and self.tool_cache is not None:
            entry.tools = _load_cached(self.tool_cache.load, name, entry.config)
        if entry.tools is not None:
            return entry.tools
        rt = await self.acquire(name)
        return rt.tools

    def known_tools(self, name: str) -> list[types.Tool] | None:
        """The server's last tools listing (in memory, then on disk), without starting it;
        None when it was never listed."""
        entry = self.entry(name)
        if entry.tools is None and self.tool_cache is not None:
            entry.tools = _load_cached(self.tool_cache.load, name, entry.config)
        return entry.tools

    def known_content(self, name: str) -> ServerContent | None:
        """The server's last resources/prompts listing (in memory, then on disk), without
        starting it; None when it was never listed."""
        entry = self.entry(name)
        if entry.content is None and self.content_cache is not None:
            entry.content = _load_cached(self.content_cache.load, name, entry.config)
        return entry.content

    async def content(self, name: str) -> ServerContent:
        """The server's resources, templates and prompts: the last listing (in memory, then on
        disk), else start it and list them."""
        entry = self.entry(name)
        if entry.content is None and self.content_cache is not None:
            entry.content = _load_cached(self.content_cache.load, name, entry.config)
        if entry.content is not None:
            return entry.content
        rt = await self.acquire(name)
        return rt.content

    def _save_content(self, name: str, config: ServerConfig, content: ServerContent) -> None:
        if self.content_cache is not None:
            _save_cached(self.content_cache.save, name, config, content, "resources/prompts")

    def _save_tools(self, name: str, config: ServerConfig, tools: list[types.Tool]) -> None:
        if self.tool_cache is not None:
            _save_cached(self.tool_cache.save, name, config, tools, "tool list")

    # -- reload / stop ---------------------------------------------------------------

    async def reload(self, servers: dict[str, ServerConfig]) -> dict[str, list[str]]:
        """Apply a new server set: unchanged servers keep their sessions and calls."""
        old = self.entries
        added = [n for n in servers if n not in old]
        removed = [n for n in old if n not in servers]
        changed = [n for n in servers if n in old and old[n].config != servers[n]]
        stopping: list[Runtime] = []
        for name in removed:
            entry = old.pop(name)
            entry.generation += 1
            rt = await entry.clear_runtime()
            if rt is not None:
                stopping.append(rt)
        for name in changed:
            entry = old[name]
            entry.config = servers[name]
            entry.generation += 1
            entry.tools = None
            entry.content = None
            entry.reset_failures()
            rt = await entry.clear_runtime()
            if rt is not None:
                stopping.append(rt)
        for name in added:
            old[name] = ServerEntry(name, servers[name])
        for rt in stopping:
            # Its supervisor drains in-flight calls (up to DRAIN_SECONDS), then closes it.
            rt.stop.set()
        return {"added": added, "removed": removed, "changed": changed}

    async def stop(self, name: str) -> None:
        entry = self.entry(name)
        rt = await entry.clear_runtime()
        if rt is not None:
            rt.stop.set()

    async def aclose(self) -> None:
        """Stop every server; each process group is terminated (stdin close, TERM, KILL)."""
        self._closed = True
        for entry in self.entries.values():
            rt = entry.peek_runtime()
            if rt is not None:
                rt.stop.set()
        # A server still starting has no call to drain: stop waiting for it at once (its
        # process is terminated as its connection closes) rather than for the drain timeout.
        for task in self._starting:
            task.cancel()
        tasks = list(self._tasks)
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=DRAIN_SECONDS + 8)
            for t in pending:
                t.cancel()
            if pending:
                await asyncio.wait(pending, timeout=8)
