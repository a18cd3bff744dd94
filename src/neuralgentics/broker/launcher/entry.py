"""A downstream server's entry: its config, its state, and its runtime behind one lock.

The runtime (session, process handle, pipes) is set and cleared only by
:meth:`ServerEntry.set_runtime` / :meth:`ServerEntry.clear_runtime`, and read only by
:meth:`ServerEntry.get_runtime`, all under the entry's lock, so a reader can never see a
half-torn-down process.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Literal

import mcp.types as types
from mcp import ClientSession

from neuralgentics.broker.client import DirectCalls, ServerProcess
from neuralgentics.broker.client.listings import ServerContent
from neuralgentics.broker.config import ServerConfig

State = Literal["cold", "starting", "warm", "failed"]

# Crash back-off: the first restart is immediate, then the entry's `restart_backoff` (0.25 s by
# default) doubling up to this cap.
BACKOFF_CAP = 5.0
# This many failed starts/crashes in a row mark the server failed ...
MAX_CONSECUTIVE_FAILURES = 5
# ... and calls fail fast for this long before another start is tried.
FAILED_COOLDOWN = 30.0
# A runtime that stayed up this long resets the crash count.
STABLE_UPTIME = 30.0


@dataclass(eq=False)
class Runtime:
    """One live connection to a server; replaced wholesale on restart."""

    session: ClientSession
    process: ServerProcess | None
    generation: int
    tools: list[types.Tool]
    direct: DirectCalls | None = None
    # resources, templates, prompts (what the server declared it has)
    content: ServerContent = field(default_factory=ServerContent)
    capabilities: types.ServerCapabilities | None = None
    started_at: float = field(default_factory=time.monotonic)
    inflight: int = 0
    idle: asyncio.Event = field(default_factory=asyncio.Event)
    # set: stop on purpose (idle, reload, shutdown); lost: the connection broke.
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    lost: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.idle.set()

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def enter_call(self) -> None:
        self.inflight += 1
        self.idle.clear()

    def leave_call(self) -> None:
        self.inflight -= 1
        if self.inflight <= 0:
            self.inflight = 0
            self.idle.set()


class ServerEntry:
    def __init__(self, name: str, config: ServerConfig) -> None:
        self.name = name
        self.config = config
        self.generation = 0
        self.state: State = "cold"
        self._lock = asyncio.Lock()
        self._runtime: Runtime | None = None
        # The start in progress, shared by every caller that arrives while it runs.
        self.starting: asyncio.Future[Runtime] | None = None
        # Last known tool list: kept across stops so the catalog needs no cold start.
        self.tools: list[types.Tool] | None = None
        # Likewise its resources, templates and prompts.
        self.content: ServerContent | None = None
        self.restarts = 0
        self.consecutive_failures = 0
        self.last_error: str | None = None
        self.last_stderr: list[str] = []
        self.last_exit_code: int | None = None
        self.not_before = 0.0  # monotonic time before which no start is tried
        self.last_used = time.monotonic()

    async def set_runtime(self, rt: Runtime) -> bool:
        """Install ``rt``; refused when the config changed since it was started."""
        async with self._lock:
            if rt.generation != self.generation:
                return False
            self._runtime = rt
            self.tools = rt.tools
            self.content = rt.content
            self.state = "warm"
            return True

    async def clear_runtime(self, rt: Runtime | None = None) -> Runtime | None:
        """Detach the runtime (only ``rt`` when given) so no new call can reach it."""
        async with self._lock:
            cur = self._runtime
            if cur is None or (rt is not None and cur is not rt):
                return None
            self._runtime = None
            if self.state == "warm":
                self.state = "cold"
            return cur

    async def get_runtime(self) -> Runtime | None:
        async with self._lock:
            return self._runtime

    def peek_runtime(self) -> Runtime | None:
        """Unlocked read for status display only (never for calls)."""
        return self._runtime

    def is_dead(self, rt: Runtime) -> bool:
        return rt.lost.is_set() or (rt.process is not None and rt.process.returncode is not None)

    def note_failure(self, error: str, stderr: list[str], exit_code: int | None = None) -> None:
        """Count a failed start or a crash; the state moves only if no newer start is underway."""
        self.consecutive_failures += 1
        self.last_error = error
        self.last_stderr = stderr[-20:]
        self.last_exit_code = exit_code
        now = time.monotonic()
        idle = self.starting is None and self._runtime is None
        if self.consecutive_failures >= MAX_CONSECUTIVE_FAILURES:
            if idle:
                self.state = "failed"
            self.not_before = now + FAILED_COOLDOWN
        else:
            if idle:
                self.state = "cold"
            n = self.consecutive_failures
            first = self.config.restart_backoff
            self.not_before = now + (0.0 if n <= 1 else min(first * 2 ** (n - 2), BACKOFF_CAP))

    def reset_failures(self) -> None:
        self.consecutive_failures = 0
        self.not_before = 0.0
        if self.state == "failed":
            self.state = "cold"

    def describe_failure(self) -> str:
        parts = [self.last_error or "unknown error"]
        if self.last_exit_code is not None:
            parts.append(f"exit code {self.last_exit_code}")
        if self.last_stderr:
            parts.append("stderr: " + " | ".join(self.last_stderr[-5:]))
        return "; ".join(parts)
