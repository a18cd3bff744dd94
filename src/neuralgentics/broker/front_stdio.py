"""The stdio transport of the broker's front, on asyncio pipes.

The SDK's ``stdio_server`` reads stdin and writes stdout through worker threads (one
thread hand-off per message each way); on a busy two-core machine that alone added
milliseconds per call. Here fd 0/1 are read and written as non-blocking asyncio pipes.
Like the SDK, the real descriptors are moved aside first — fd 0 then reads /dev/null and
fd 1 goes to stderr — so nothing else in the process can corrupt the protocol stream.
When stdin/stdout are not pipes (a file, a terminal), the SDK's transport is used.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp.types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

_LINE_LIMIT = 64 * 1024 * 1024


def _is_pipe_or_socket(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@contextlib.asynccontextmanager
async def broker_stdio_transport() -> AsyncIterator[tuple[Any, Any]]:
    if not (_is_pipe_or_socket(0) and _is_pipe_or_socket(1)):
        async with stdio_server() as streams:
            yield streams
        return

    in_fd, out_fd = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_LINE_LIMIT)
    rtransport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(in_fd, "rb", buffering=0)
    )
    wtransport, wprotocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(out_fd, "wb", buffering=0)
    )
    writer = asyncio.StreamWriter(wtransport, wprotocol, None, loop)

    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](16)

    async def read_stdin() -> None:
        async with read_writer:
            while True:
                try:
                    line = await reader.readline()
                except (ValueError, asyncio.LimitOverrunError) as exc:
                    await read_writer.send(exc)
                    continue
                if not line:
                    return
                if not line.strip():
                    continue
                try:
                    msg = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                except ValueError as exc:
                    await read_writer.send(exc)
                    continue
                await read_writer.send(SessionMessage(msg))

    async def write_stdout() -> None:
        async with write_reader:
            async for sm in write_reader:
                data = sm.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                writer.write(data.encode())
                try:
                    await writer.drain()
                except (BrokenPipeError, ConnectionResetError):
                    return

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_stdin)
            tg.start_soon(write_stdout)
            yield read_stream, write_stream
            tg.cancel_scope.cancel()
    finally:
        rtransport.close()
        wtransport.close()
