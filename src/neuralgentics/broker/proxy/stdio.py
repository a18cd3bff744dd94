"""Stdio transport to a downstream server, with the process handle the launcher supervises.

The SDK's ``stdio_client`` hides its process; the launcher needs the pid, the exit, and the
server's stderr, and the child must die with the broker. So the process is spawned here
(own process group; on Linux ``PR_SET_PDEATHSIG`` so a crashed broker takes it along) and
framed as newline-delimited JSON-RPC onto the same anyio streams ``ClientSession`` reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import shutil
import signal
import sys
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import anyio
import mcp.types as types
from anyio.abc import ObjectSendStream
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

logger = logging.getLogger(__name__)

_STDERR_LINES = 200
# One JSON-RPC message per line; tool results (images, files) can be large.
_LINE_LIMIT = 64 * 1024 * 1024


def _die_with_parent() -> None:
    # Runs in the child between fork and exec: SIGKILL it when the broker dies, however.
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class CommandNotFound(OSError):
    pass


class PipeSendStream(ObjectSendStream[SessionMessage]):
    """The session's write stream, writing each message straight into the server's stdin.

    A memory stream plus a writer task cost a task hand-off (an event-loop turn) per
    message; writing in ``send`` keeps the order and the backpressure (``drain``) without it.
    A broken pipe surfaces as ``BrokenResourceError``, as a closed memory stream would.
    """

    def __init__(self, stdin: asyncio.StreamWriter) -> None:
        self._stdin = stdin
        self._closed = False

    async def send(self, item: SessionMessage) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        data = item.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
        try:
            self._stdin.write(data)
            await self._stdin.drain()
        except (BrokenPipeError, ConnectionResetError, RuntimeError) as exc:
            raise anyio.BrokenResourceError from exc

    def close(self) -> None:
        self._closed = True

    async def aclose(self) -> None:
        self._closed = True


@dataclass
class StdioProcess:
    """The live process of a stdio server: pid, exit, and the tail of its stderr."""

    proc: asyncio.subprocess.Process
    stderr_tail: deque[str] = field(default_factory=lambda: deque(maxlen=_STDERR_LINES))
    exited: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode


async def _terminate(sp: StdioProcess) -> None:
    """Close stdin (the MCP way to ask a server to exit), then TERM, then KILL the group."""
    proc = sp.proc
    if proc.stdin is not None:
        with contextlib.suppress(Exception):
            proc.stdin.close()
    for sig, wait in ((None, 2.0), (signal.SIGTERM, 2.0), (signal.SIGKILL, 2.0)):
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


@contextlib.asynccontextmanager
async def stdio_transport(
    command: str,
    args: list[str],
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    on_spawn: Callable[[StdioProcess], None] | None = None,
) -> AsyncIterator[
    tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception],
        PipeSendStream,
        StdioProcess,
    ]
]:
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
        limit=_LINE_LIMIT,
    )
    sp = StdioProcess(proc)
    if on_spawn is not None:
        on_spawn(sp)
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    assert proc.stdin is not None
    write_stream = PipeSendStream(proc.stdin)

    async def read_stdout() -> None:
        assert proc.stdout is not None
        async with read_writer:
            while True:
                try:
                    line = await proc.stdout.readline()
                except (ValueError, asyncio.LimitOverrunError) as exc:
                    await read_writer.send(exc)
                    continue
                if not line:
                    return  # EOF: the session sees the connection close
                if not line.strip():
                    continue
                try:
                    msg = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                except ValueError as exc:
                    sp.stderr_tail.append(f"[broker] not JSON-RPC on stdout: {line[:200]!r}")
                    await read_writer.send(exc)
                    continue
                try:
                    await read_writer.send(SessionMessage(msg))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return

    stderr_done = anyio.Event()

    async def read_stderr() -> None:
        assert proc.stderr is not None
        try:
            while True:
                try:
                    line = await proc.stderr.readline()
                except (ValueError, asyncio.LimitOverrunError):
                    continue
                if not line:
                    return
                sp.stderr_tail.append(line.decode("utf-8", "replace").rstrip())
        finally:
            stderr_done.set()

    async def watch_exit() -> None:
        await proc.wait()
        sp.exited.set()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_stdout)
            tg.start_soon(read_stderr)
            tg.start_soon(watch_exit)
            try:
                yield read_stream, write_stream, sp
            finally:
                with anyio.CancelScope(shield=True):
                    await _terminate(sp)
                    # Its last words (why it died) are what the launcher reports.
                    with anyio.move_on_after(0.5):
                        await stderr_done.wait()
                tg.cancel_scope.cancel()
    finally:
        for s in (read_stream, write_stream):
            s.close()
