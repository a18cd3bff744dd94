"""Stdio transport to a downstream server, with the process handle the launcher supervises.

The SDK's ``stdio_client`` hides its process; the launcher needs the pid, the exit, and the
server's stderr, and the child must die with the broker. So the process is spawned by
`client.process` (own process group; on Linux ``PR_SET_PDEATHSIG`` so a crashed broker takes
it along) and framed here as newline-delimited JSON-RPC onto the same anyio streams
``ClientSession`` reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import mcp.types as types
import pydantic_core
from anyio.abc import ObjectSendStream
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from neuralgentics.broker.client.errors import ConnectionClosed, RequestTimedOut
from neuralgentics.broker.client.process import (
    ServerProcess,
    collect_lines,
    spawn,
    terminate,
    watch_exit,
)

logger = logging.getLogger(__name__)


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


# Ids of direct calls: strings with this prefix; ClientSession numbers its requests 0, 1, 2…
_DIRECT_ID_PREFIX = "ng-"
_DIRECT_ID_MARK = b'"ng-'


class DirectCalls:
    """``tools/call`` written as JSON on the session's own pipe, answered as JSON.

    Why: in the broker's profile ``ClientSession.call_tool`` was half of the CPU per
    forwarded call (an OpenTelemetry span, anyio backend lookups, a memory stream per
    request, the result validated twice and then dumped again by the front). The
    ``ClientSession`` still owns the connection — ``initialize``, ``tools/list``,
    notifications, and any call that wants progress; these calls only borrow its pipe, with
    ids of their own (``ng-<n>`` strings: the session's are integers, so they never clash),
    and their responses are taken off the pipe before the session would see them. The
    caller gets the result as the server sent it; validating it is the front's job (its
    per-version result sieve validates anyway).

    Errors: ``MCPError`` with the server's error; ``RequestTimedOut`` after ``timeout`` (the
    server is sent ``notifications/cancelled``, as the SDK does); ``ConnectionClosed`` when
    the pipe breaks or the server exits mid-call.
    """

    def __init__(self, stdin: asyncio.StreamWriter) -> None:
        self._stdin = stdin
        # the loop the pipe belongs to (``get_running_loop`` is a getpid(2) per call)
        self._loop = asyncio.get_running_loop()
        self._ids = itertools.count(1)
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._closed = False

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        timeout: float | None,
        while_waiting: Callable[[], None] | None = None,
    ) -> dict[str, Any]:
        """The server's answer to ``tools/call`` of ``name``. ``while_waiting`` runs once the
        request is on the pipe, before waiting for the answer: work the caller needs done
        anyway (the audit record's redaction) then overlaps the server's."""
        if self._closed:
            raise ConnectionClosed
        rid = f"{_DIRECT_ID_PREFIX}{next(self._ids)}"
        request = {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        loop = self._loop
        fut = loop.create_future()
        self._pending[rid] = fut
        # A timer on the future rather than asyncio.wait_for: no waiter future and callbacks
        # per call on the hot path.
        timer = loop.call_later(timeout, _expire, fut) if timeout else None
        try:
            try:
                self._stdin.write(pydantic_core.to_json(request) + b"\n")
                await self._stdin.drain()
            except (BrokenPipeError, ConnectionResetError, RuntimeError):
                raise ConnectionClosed from None
            if while_waiting is not None:
                while_waiting()
            try:
                message = await fut
            except RequestTimedOut:
                self._cancel(rid, f"timed out after {timeout}s")
                raise
            except asyncio.CancelledError:
                self._cancel(rid, "the caller cancelled the request")
                raise
        finally:
            if timer is not None:
                timer.cancel()
            self._pending.pop(rid, None)
        if "error" in message:
            error = message["error"] if isinstance(message["error"], dict) else {}
            raise MCPError(
                code=error.get("code", 0) if isinstance(error.get("code"), int) else 0,
                message=str(error.get("message", "")),
                data=error.get("data"),
            )
        result = message.get("result")
        if not isinstance(result, dict):
            raise MCPError(
                code=-32603, message="the server answered tools/call without a result object"
            )
        return result

    def _cancel(self, rid: str, reason: str) -> None:
        if self._closed or self._stdin.is_closing():
            return
        note = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": rid, "reason": reason},
        }
        with contextlib.suppress(Exception):
            self._stdin.write(pydantic_core.to_json(note) + b"\n")

    def take(self, line: bytes) -> bool:
        """Resolve the direct call ``line`` answers; False if it is not the answer to one."""
        if _DIRECT_ID_MARK not in line:
            return False
        try:
            message = pydantic_core.from_json(line)
        except ValueError:
            return False
        rid = message.get("id") if isinstance(message, dict) else None
        if not (isinstance(rid, str) and rid.startswith(_DIRECT_ID_PREFIX)) or "method" in message:
            return False
        # Ours even when nobody waits any more (a call that timed out or was cancelled):
        # the session would only log an answer to a request it never sent.
        fut = self._pending.get(rid)
        if fut is not None and not fut.done():
            fut.set_result(message)
        return True

    def close(self) -> None:
        """The pipe is gone: every call still waiting fails as the session's would."""
        self._closed = True
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(ConnectionClosed())


def _expire(fut: asyncio.Future[dict[str, Any]]) -> None:
    if not fut.done():
        fut.set_exception(RequestTimedOut())


@contextlib.asynccontextmanager
async def stdio_transport(
    command: str,
    args: list[str],
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    on_spawn: Callable[[ServerProcess], None] | None = None,
) -> AsyncIterator[
    tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception],
        PipeSendStream,
        ServerProcess,
        DirectCalls,
    ]
]:
    sp = await spawn(command, args, env, cwd)
    proc = sp.proc
    if on_spawn is not None:
        on_spawn(sp)
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    assert proc.stdin is not None
    write_stream = PipeSendStream(proc.stdin)
    direct = DirectCalls(proc.stdin)

    async def read_stdout() -> None:
        assert proc.stdout is not None
        async with read_writer:
            try:
                while True:
                    try:
                        line = await proc.stdout.readline()
                    except (ValueError, asyncio.LimitOverrunError) as exc:
                        await read_writer.send(exc)
                        continue
                    if not line:
                        return  # EOF: the session sees the connection close
                    if not line.strip() or direct.take(line):
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
            finally:
                direct.close()

    stderr_done = anyio.Event()

    async def read_stderr() -> None:
        try:
            await collect_lines(proc.stderr, sp)
        finally:
            stderr_done.set()

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_stdout)
            tg.start_soon(read_stderr)
            tg.start_soon(watch_exit, sp)
            try:
                yield read_stream, write_stream, sp, direct
            finally:
                with anyio.CancelScope(shield=True):
                    await terminate(sp)
                    # Its last words (why it died) are what the launcher reports.
                    with anyio.move_on_after(0.5):
                        await stderr_done.wait()
                tg.cancel_scope.cancel()
    finally:
        direct.close()
        for s in (read_stream, write_stream):
            s.close()
