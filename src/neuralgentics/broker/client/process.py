"""A downstream server's process: spawned, watched, and stopped the same way whatever it speaks.

A stdio server talks MCP on the process's stdin/stdout (`client.stdio`); a launched HTTP or
SSE server (``command`` + ``url``) is started here and then reached over its URL
(`client.launched`). Either way the launcher needs the pid, the exit and the tail of the
server's output, and the child must die with the broker: each runs in its own process group,
on Linux with ``PR_SET_PDEATHSIG`` (SIGKILL when the broker dies, even by SIGKILL).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import shutil
import signal
import sys
from collections import deque
from dataclasses import dataclass, field

from mcp.client.stdio import get_default_environment

_TAIL_LINES = 200
# One JSON-RPC message per line on a stdio server's stdout; tool results can be large.
LINE_LIMIT = 64 * 1024 * 1024


class CommandNotFound(OSError):
    pass


def _die_with_parent() -> None:
    # Runs in the child between fork and exec: SIGKILL it when the broker dies, however.
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


@dataclass
class ServerProcess:
    """The live process of a server: pid, exit, and the tail of what it wrote to stderr
    (and, for a launched HTTP server, to stdout: nothing else reads it)."""

    proc: asyncio.subprocess.Process
    stderr_tail: deque[str] = field(default_factory=lambda: deque(maxlen=_TAIL_LINES))
    exited: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode


async def spawn(
    command: str,
    args: list[str],
    env: dict[str, str] | None = None,
    cwd: str | None = None,
) -> ServerProcess:
    """Start ``command`` with stdin, stdout and stderr as pipes, in a process group of its own.

    The environment is the SDK's safe default set (PATH, HOME, …) plus ``env``: a server
    never inherits the broker's secrets unless its entry names them.
    """
    exe = shutil.which(command) if os.sep not in command else command
    if exe is None or not os.path.exists(exe):
        raise CommandNotFound(f"command {command!r} not found on PATH")
    proc = await asyncio.create_subprocess_exec(
        exe,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=get_default_environment() | (env or {}),
        cwd=cwd,
        start_new_session=True,
        preexec_fn=_die_with_parent,
        limit=LINE_LIMIT,
    )
    return ServerProcess(proc)


async def collect_lines(
    stream: asyncio.StreamReader | None, sp: ServerProcess, prefix: str = ""
) -> None:
    """Keep the tail of a stream the broker does not otherwise read (stderr; a launched
    server's stdout), so a server that fails can be reported with its last words."""
    if stream is None:
        return
    while True:
        try:
            line = await stream.readline()
        except (ValueError, asyncio.LimitOverrunError):
            continue
        if not line:
            return
        sp.stderr_tail.append(prefix + line.decode("utf-8", "replace").rstrip())


async def watch_exit(sp: ServerProcess) -> None:
    await sp.proc.wait()
    sp.exited.set()


async def terminate(sp: ServerProcess, *, ask_first: bool = True) -> None:
    """Close stdin (the MCP way to ask a stdio server to exit), then TERM, then KILL the group.

    ``ask_first=False`` (a launched HTTP server, which does not read stdin): TERM at once."""
    proc = sp.proc
    if proc.stdin is not None:
        with contextlib.suppress(Exception):
            proc.stdin.close()
    steps = ((None, 2.0), (signal.SIGTERM, 2.0), (signal.SIGKILL, 2.0))
    for sig, wait in steps if ask_first else steps[1:]:
        if sig is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, sig)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(sp.exited.wait(), wait)
        if proc.returncode is not None:
            # The server is gone; anything it left in its group goes too.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            return
