"""The stdio transport of the broker's front, on asyncio pipes.

The SDK's ``stdio_server`` reads stdin and writes stdout through worker threads (one
thread hand-off per message each way); on a busy two-core machine that alone added
milliseconds per call. Here fd 0/1 are read and written as non-blocking asyncio pipes.
Like the SDK, the real descriptors are moved aside first — fd 0 then reads /dev/null and
fd 1 goes to stderr — so nothing else in the process can corrupt the protocol stream.
When stdin/stdout are not pipes (a file, a terminal), the SDK's transport is used.

Fast path: once the handshake is done, a plain ``tools/call`` of ``mcp_router_call`` or of a
passthrough tool (``expose: tools``; which names qualify is the caller's ``accepts``) — no
``_meta``: no progress token, no 2026 envelope; from a client that declared neither sampling
nor elicitation, which only the SDK session can ask it — is answered here instead of going
through the SDK server's relay, dispatcher, middleware and per-version result sieve — about
half the broker's CPU per call. It runs the same handler (``server.route_call``), maps errors
with the SDK's own ``handler_exception_to_error_data`` (``mcp_sdk.error_data``), and honours
``notifications/cancelled`` (the request is cancelled and not answered, as the SDK does).
Everything else (initialize, tools/list, other meta-tools, progress, pings) still goes
through the SDK ``Server``.

A line the SDK cannot read (not JSON, not JSON-RPC, or nested past its parser's 200 levels)
is answered here — the SDK drops such a line without a word, and a client waits forever — with
the JSON-RPC error and, for a ``tools/call``, an audit record (``refused``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import mcp.types as types
import pydantic_core
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import CONNECTION_CLOSED
from mcp_types.methods import serialize_server_result
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from neuralgentics.broker import mcp_sdk
from neuralgentics.broker.limits import loads_pruned
from neuralgentics.broker.server import stdio_prelude

logger = logging.getLogger(__name__)

# (tool name, arguments) -> its result (a model, or already the server's JSON); raises
# MCPError like an SDK handler would.
FastCall = Callable[[str, dict[str, Any]], Awaitable[types.CallToolResult | dict[str, Any]]]
# tool name -> whether the fast path answers a call of it
Accepts = Callable[[str], bool]
# (the message as far as it could be read, or None; the error told the client) -> None:
# records a refused tools/call.
Refused = Callable[[dict[str, Any] | None, str], Awaitable[None]]

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
TOO_DEEP = "the request is nested deeper than this broker reads (200 levels; arguments may have 32)"

_LINE_LIMIT = 64 * 1024 * 1024
# At EOF, how long requests on the SDK path may still take to answer (each downstream call is
# bounded by its own call_timeout; this bounds a request the SDK never answers).
EOF_DRAIN_SECONDS = 120.0


def _is_pipe_or_socket(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


_REQUEST_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
_PARAMS_KEYS = frozenset({"name", "arguments"})


def _request_key(rid: object) -> tuple[type, object]:
    return (type(rid), rid)  # JSON-RPC ids 1 and "1" are different requests


class StdioFront:
    """The fast path's state: handshake seen, calls in flight, the pipe to write to."""

    def __init__(
        self,
        writer: asyncio.StreamWriter | None,
        fast_call: FastCall | None,
        refused: Refused | None = None,
        accepts: Accepts | None = None,
    ) -> None:
        self._writer = writer
        self._fast_call = fast_call
        self._accepts = accepts or _router_only
        self._refused = refused
        self._init_id: tuple[type, object] | None = None
        # The SDK answered `initialize` (pre-2026): notifications may be written.
        self._initialized = False
        # ... and the fast path is on: the client declared neither sampling nor elicitation,
        # whose requests (forwarded from a downstream server during a call) only the SDK
        # session can send it and match to their answers.
        self.ready = False
        self._fast_ok = True
        self._version = ""  # the negotiated protocol version
        self._inflight: dict[tuple[type, object], asyncio.Task[None]] = {}
        self._cancelled: set[tuple[type, object]] = set()
        # Requests the SDK server has read and not answered yet.
        self._sdk_open: set[tuple[type, object]] = set()
        # Set once the client's first `tools/list` was answered (written, or sent by the
        # prelude): the start's answers are out, servers never listed may start now.
        self.listed = asyncio.Event()
        self._list_ids: set[tuple[type, object]] = set()

    # -- what the SDK path sees go by --------------------------------------------------

    @property
    def writes(self) -> bool:
        """True when this front writes the pipe itself (fast path and notifications on)."""
        return self._writer is not None

    def saw_inbound(self, msg: Any) -> bool:
        """Note the handshake and the SDK path's open requests; a cancel of a fast-path call
        is handled here (True)."""
        if isinstance(msg, types.JSONRPCRequest):
            self._sdk_open.add(_request_key(msg.id))
            if msg.method == "tools/list" and not self.listed.is_set():
                self._list_ids.add(_request_key(msg.id))
            if msg.method == "initialize":
                self._init_id = _request_key(msg.id)
                caps = (msg.params or {}).get("capabilities")
                if isinstance(caps, dict) and (
                    caps.get("sampling") is not None or caps.get("elicitation") is not None
                ):
                    self._fast_ok = False
        elif isinstance(msg, types.JSONRPCNotification) and msg.method == "notifications/cancelled":
            rid = (msg.params or {}).get("requestId")
            key = _request_key(rid)
            task = self._inflight.get(key) if isinstance(rid, str | int) else None
            if task is not None:
                self._cancelled.add(key)
                task.cancel()
                return True
            self._sdk_open.discard(key)  # the SDK will not answer it
        return False

    def saw_outbound(self, msg: Any) -> None:
        if isinstance(msg, types.JSONRPCResponse | types.JSONRPCError) and msg.id is not None:
            self._sdk_open.discard(_request_key(msg.id))
        if isinstance(msg, types.JSONRPCResponse) and _request_key(msg.id) == self._init_id:
            version = (msg.result or {}).get("protocolVersion")
            # The handshake is the legacy era; a 2026 connection (per-request envelope)
            # never sends `initialize` and stays entirely on the SDK path.
            if isinstance(version, str) and version not in MODERN_PROTOCOL_VERSIONS:
                self._version = version
                self._initialized = True
                self.ready = self._fast_ok

    def answered(self, msg: Any) -> None:
        """``msg`` went out (or the prelude had sent it): notes the first tools/list answer."""
        if (
            self._list_ids
            and isinstance(msg, types.JSONRPCResponse | types.JSONRPCError)
            and _request_key(msg.id) in self._list_ids
        ):
            self._list_ids.clear()
            self.listed.set()

    # -- the fast path ----------------------------------------------------------------

    def try_fast(self, line: bytes) -> bool:
        """Start answering ``line`` here if it is a plain call of a tool ``accepts``; else False."""
        if not self.ready or self._fast_call is None or b'"tools/call"' not in line:
            return False
        try:
            req = pydantic_core.from_json(line)
        except ValueError:
            return False  # the SDK path answers with its parse error
        if not isinstance(req, dict) or req.keys() - _REQUEST_KEYS:
            return False
        rid, params = req.get("id"), req.get("params")
        if (
            req.get("jsonrpc") != "2.0"
            or req.get("method") != "tools/call"
            or not isinstance(rid, str | int)
            or isinstance(rid, bool)
            or not isinstance(params, dict)
            or params.keys() - _PARAMS_KEYS
        ):
            return False
        name = params.get("name")
        if not isinstance(name, str) or not self._accepts(name):
            return False
        args = params.get("arguments")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            return False
        key = _request_key(rid)
        if key in self._inflight:
            return False  # a duplicate id: leave the SDK's rules to answer it
        self._inflight[key] = asyncio.get_running_loop().create_task(
            self._answer(rid, key, name, args)
        )
        return True

    async def _answer(
        self, rid: str | int, key: tuple[type, object], name: str, args: dict[str, Any]
    ) -> None:
        assert self._fast_call is not None
        try:
            result = await self._fast_call(name, args)
            if isinstance(result, types.CallToolResult):
                result = result.model_dump(by_alias=True, mode="json", exclude_none=True)
            # Validated and shaped for the negotiated version exactly as the SDK server does
            # (its per-version sieve drops fields that version does not have); a server's
            # malformed result is an error here, as it is on the SDK path.
            dumped = serialize_server_result("tools/call", self._version, result)
            # A server may leave isError out; the SDK path's model always says it.
            dumped.setdefault("isError", False)
            body: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "result": dumped}
        except asyncio.CancelledError:
            if key in self._cancelled:
                return  # the peer cancelled it: never answered (spec MUST NOT)
            # Shutdown: answer so the client is not left waiting, as the SDK dispatcher does.
            if self._writer is not None and not self._writer.is_closing():
                closed = {"code": CONNECTION_CLOSED, "message": "Connection closed"}
                self._writer.write(
                    pydantic_core.to_json({"jsonrpc": "2.0", "id": rid, "error": closed}) + b"\n"
                )
            raise
        except Exception as exc:  # every failure is answered, as the SDK does
            error = mcp_sdk.error_data(exc)
            if error is None:
                logger.exception("%s raised", name)
                error = types.ErrorData(code=0, message=str(exc))  # the SDK dispatcher's catch-all
            body = {
                "jsonrpc": "2.0",
                "id": rid,
                "error": error.model_dump(by_alias=True, mode="json", exclude_none=True),
            }
        finally:
            self._inflight.pop(key, None)
            self._cancelled.discard(key)
        await self._write(pydantic_core.to_json(body) + b"\n")

    async def refuse(self, line: bytes) -> None:
        """Answer a line the SDK could not read: Parse error when it is not JSON, the depth
        limit when it is too deep to parse, Invalid Request otherwise; with the request's id
        when one can be read (JSON-RPC says null otherwise)."""
        msg: Any = None
        pruned = False
        with contextlib.suppress(ValueError, RecursionError):
            msg, pruned = loads_pruned(line)
        rid = msg.get("id") if isinstance(msg, dict) else None
        if not isinstance(rid, str | int) or isinstance(rid, bool):
            rid = None
        if not isinstance(msg, dict):
            code, message = PARSE_ERROR, "Parse error: the line is not a JSON object"
        elif pruned:
            code, message = types.INVALID_PARAMS, TOO_DEEP
        else:
            code, message = INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message"
        if (
            isinstance(msg, dict)
            and msg.get("method") == "tools/call"
            and self._refused is not None
        ):
            try:
                await self._refused(msg, message)
            except Exception:  # noqa: BLE001 - the client is answered whatever the audit does
                logger.exception("audit of a refused line failed")
        if isinstance(msg, dict) and "id" not in msg and "method" in msg:
            return  # a notification: never answered, even when malformed
        body = {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}
        await self._write(pydantic_core.to_json(body) + b"\n")

    async def _write(self, data: bytes) -> None:
        if self._writer is None or self._writer.is_closing():
            return
        self._writer.write(data)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            await self._writer.drain()

    async def drain_calls(self) -> None:
        """At EOF: let calls already read finish and answer (a client may close stdin and wait,
        e.g. ``neuralgentics broker stdio < requests.jsonl`` from a pipe) — on the fast path,
        and on the SDK path, whose server would otherwise cancel them at EOF."""
        while self._inflight:
            await asyncio.gather(*list(self._inflight.values()), return_exceptions=True)
        deadline = asyncio.get_running_loop().time() + EOF_DRAIN_SECONDS
        while self._sdk_open and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.02)

    async def cancel_calls(self) -> None:
        """At shutdown: stop the calls in flight (each answers "Connection closed"), bounded."""
        tasks = list(self._inflight.values())
        for t in tasks:
            t.cancel()
        if tasks:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 2.0)

    async def send_tool_list_changed(self) -> None:
        """Registered in ``Broker.front_sessions`` in place of an SDK session."""
        await self._notify(b"notifications/tools/list_changed")

    async def send_resource_list_changed(self) -> None:
        await self._notify(b"notifications/resources/list_changed")

    async def send_prompt_list_changed(self) -> None:
        await self._notify(b"notifications/prompts/list_changed")

    async def _notify(self, method: bytes) -> None:
        if self._initialized:
            await self._write(b'{"jsonrpc":"2.0","method":"' + method + b'"}\n')


def _router_only(name: str) -> bool:
    return name == "mcp_router_call"


@contextlib.asynccontextmanager
async def broker_stdio_transport(
    fast_call: FastCall | None = None,
    refused: Refused | None = None,
    accepts: Accepts | None = None,
) -> AsyncIterator[tuple[Any, Any, StdioFront]]:
    """(read stream, write stream) for the SDK server, and the front (fast path, notifications)."""
    if not (_is_pipe_or_socket(0) and _is_pipe_or_socket(1)):
        async with stdio_server() as (read, write):
            yield read, write, StdioFront(None, None)
        return

    in_fd, out_fd = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_LINE_LIMIT)
    # The start's first answers: recorded for the next start, or already sent from the last
    # one's (stdio_prelude), then the lines the prelude read come first.
    answers = stdio_prelude.current()
    if answers is not None and answers.feed:
        reader.feed_data(answers.feed)
        answers.feed = b""
    rtransport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(in_fd, "rb", buffering=0)
    )
    wtransport, wprotocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(out_fd, "wb", buffering=0)
    )
    writer = asyncio.StreamWriter(wtransport, wprotocol, None, loop)
    front = StdioFront(writer, fast_call, refused, accepts)

    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](16)

    async def read_stdin() -> None:
        async with read_writer:
            while True:
                try:
                    line = await reader.readline()
                except (ValueError, asyncio.LimitOverrunError):
                    # over _LINE_LIMIT: the rest of the line was dropped unread
                    await front.refuse(b"")
                    continue
                if not line:
                    await front.drain_calls()
                    return
                if not line.strip():
                    continue
                if answers is not None and answers.active:
                    answers.saw_request(line)
                if front.try_fast(line):
                    continue
                try:
                    msg = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                except ValueError:
                    await front.refuse(line)
                    continue
                if front.saw_inbound(msg):
                    continue
                await read_writer.send(SessionMessage(msg))

    async def write_stdout() -> None:
        async with write_reader:
            async for sm in write_reader:
                front.saw_outbound(sm.message)
                data = sm.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                if (
                    answers is not None
                    and answers.active
                    and isinstance(sm.message, types.JSONRPCResponse | types.JSONRPCError)
                    and answers.saw_answer(sm.message.id, data.encode())
                ):
                    if "tools/list" in answers.stale:
                        answers.stale.discard("tools/list")
                        writer.write(
                            b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n'
                        )
                    front.answered(sm.message)
                    continue  # the prelude answered it
                writer.write(data.encode())
                try:
                    await writer.drain()
                except (BrokenPipeError, ConnectionResetError):
                    return
                front.answered(sm.message)

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_stdin)
            tg.start_soon(write_stdout)
            yield read_stream, write_stream, front
            tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await front.cancel_calls()
        rtransport.close()
        wtransport.close()
