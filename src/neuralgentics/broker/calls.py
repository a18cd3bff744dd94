"""Tool calls: access, arguments, the call over the server's session or its direct pipe, the
result's outputSchema, one audit record per call (`Broker` is the front that holds the parts)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import mcp.types as types
import pydantic_core
from mcp.shared.exceptions import MCPError

from neuralgentics.broker.argcheck import Check, quick_check
from neuralgentics.broker.audit import AuditRecord
from neuralgentics.broker.audit.trail import note_failure
from neuralgentics.broker.client import (
    ConnectionClosed,
    RequestTimedOut,
    current_session_id,
    from_session_error,
)
from neuralgentics.broker.errors import CallTimeout, InvalidRequest, ServerUnavailable
from neuralgentics.broker.forward import calling_peer
from neuralgentics.broker.limits import check_arguments, check_names, check_size
from neuralgentics.broker.outputcheck import OutputCheck
from neuralgentics.broker.sandbox import describe

if TYPE_CHECKING:
    from neuralgentics.broker.service import Broker

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


@dataclass
class _ArgumentCheck:
    """How a tool's arguments are checked: the quick predicate for simple schemas, and
    jsonschema's validator, built on the first call the quick check cannot pass (importing
    jsonschema is ~0.15 s of a broker's start that most sessions never need)."""

    tool: types.Tool
    quick: Check | None = field(init=False)
    _full: Any = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.quick = quick_check(self.schema)

    @property
    def schema(self) -> dict[str, Any]:
        return self.tool.input_schema or {"type": "object"}

    def validator(self) -> Any:
        if self._full is None:
            import jsonschema

            self._full = jsonschema.validators.validator_for(self.schema)(self.schema)
        return self._full


class ToolCalls:
    """Calls through the broker, with the argument and output checks it keeps per tool."""

    def __init__(self, broker: Broker) -> None:
        self._b = broker
        self._validators: dict[tuple[str, str], _ArgumentCheck] = {}
        self._output_checks: dict[tuple[str, str], OutputCheck] = {}

    def forget_checks(self) -> None:
        """A new config may list the tools anew: their checks are built again."""
        self._validators.clear()
        self._output_checks.clear()

    def _validate_arguments(self, server: str, tool: types.Tool, arguments: dict[str, Any]) -> None:
        key = (server, tool.name)
        check = self._validators.get(key)
        if check is None or check.tool is not tool:
            check = self._validators[key] = _ArgumentCheck(tool)
        if check.quick is not None and check.quick(arguments):
            return  # plainly valid (argcheck.py); anything else is jsonschema's to judge
        errors = sorted(check.validator().iter_errors(arguments), key=lambda e: list(e.path))
        if errors:
            e = errors[0]
            where = "/".join(str(p) for p in e.path) or "(arguments)"
            raise InvalidRequest(
                f"arguments for {server}/{tool.name} do not match its input schema: {where}: {e.message}"
            )

    def _check_output(self, server: str, tool: types.Tool, result: dict[str, Any]) -> None:
        """A direct call's structured content against the tool's outputSchema, refused as the
        SDK session refuses it (outputcheck.py)."""
        key = (server, tool.name)
        check = self._output_checks.get(key)
        if check is None or check.tool is not tool:
            check = self._output_checks[key] = OutputCheck(tool)
        check.check(result)

    async def call(
        self,
        *,
        role: str | None,
        server: Any,
        tool: Any,
        arguments: Any = None,
        session_id: str | None = None,
        front: str = "",
        progress: ProgressFn | None = None,
        credential: str | None = None,
        connection: str | None = None,
    ) -> types.CallToolResult:
        """Check access, forward ``tools/call`` to the server, audit it.

        Over the server's one shared session; but a call without progress to a stdio server
        goes as plain JSON on the same pipe (``DirectCalls``): the SDK's per-request machinery
        was half of the broker's CPU per call. A tool's outputSchema is checked there as the
        session would check it (``outputcheck``).
        """
        result = await self._call(
            role,
            server,
            tool,
            arguments,
            session_id,
            front,
            progress,
            as_json=False,
            credential=credential,
            connection=connection,
        )
        assert isinstance(result, types.CallToolResult)
        return result

    async def call_json(
        self,
        *,
        role: str | None,
        server: Any,
        tool: Any,
        arguments: Any = None,
        session_id: str | None = None,
        front: str = "",
        credential: str | None = None,
        connection: str | None = None,
    ) -> dict[str, Any]:
        """``call``, with the result as the server's JSON (not validated: the front writing it
        validates it for its protocol version), so no model is built and dumped again."""
        result = await self._call(
            role,
            server,
            tool,
            arguments,
            session_id,
            front,
            None,
            as_json=True,
            credential=credential,
            connection=connection,
        )
        assert isinstance(result, dict)
        return result

    async def _call(
        self,
        role: str | None,
        server: Any,
        tool: Any,
        arguments: Any,
        session_id: str | None,
        front: str,
        progress: ProgressFn | None,
        *,
        as_json: bool,
        credential: str | None = None,
        connection: str | None = None,
    ) -> types.CallToolResult | dict[str, Any]:
        t0 = time.perf_counter()
        # Built from whatever came in (names of any length, any nesting): bounded and redacted
        # there, so the record can always be written, whatever the checks below refuse. The
        # redaction and digest run while the server works on the call (direct path), before
        # the SDK session sends it, or when the record is written (a refusal): `settle`.
        rec = AuditRecord.pending_call(
            role=role,
            server=str(server),
            tool=str(tool),
            arguments=arguments,
            outcome="error",
            session_id=session_id,
            front=front,
            credential=credential,
            connection=connection if connection != session_id else None,
        )
        try:
            check_names(server, tool)
            if arguments is None:
                arguments = {}
            if not isinstance(arguments, dict):
                raise InvalidRequest(
                    f"'arguments' must be an object, got {type(arguments).__name__}"
                )
            check_arguments(arguments)
            rec.bytes_in = len(pydantic_core.to_json(arguments, fallback=str))
            check_size(rec.bytes_in)
            t = await self._b.find_tool(role, server, tool)
            self._validate_arguments(server, t, arguments)
            cfg = self._b.launcher.entry(server).config
            if cfg.command:  # a server the broker starts: the audit names its confinement
                rec.sandbox = describe(cfg.sandbox)
            token = current_session_id.set(session_id)
            # The client connection of this call, which the server's sampling/elicitation
            # requests go to (forward.py); a front without one is a client that cannot be asked.
            peer = calling_peer()
            try:
                async with self._b.launcher.use(server) as rt:
                    self._b.forwarder.enter(server, peer)
                    try:
                        if rt.direct is not None and progress is None:
                            data = await rt.direct.call_tool(
                                tool, arguments, cfg.call_timeout, while_waiting=rec.settle
                            )
                            if t.output_schema is not None:
                                self._check_output(server, t, data)
                            rec.bytes_out = len(pydantic_core.to_json(data))
                            result: types.CallToolResult | dict[str, Any] = (
                                data
                                if as_json
                                else types.CallToolResult.model_validate(data, by_name=False)
                            )
                            is_error, error = data.get("isError") is True, _first_text_json(data)
                        else:
                            rec.settle()
                            try:
                                model = await rt.session.call_tool(
                                    tool,
                                    arguments,
                                    read_timeout_seconds=cfg.call_timeout,
                                    progress_callback=progress,  # type: ignore[arg-type]  # the SDK's ProgressFnT is this signature
                                )
                            except MCPError as exc:
                                raise from_session_error(exc) from None
                            if as_json:
                                result = model.model_dump(
                                    by_alias=True, mode="json", exclude_none=True
                                )
                                rec.bytes_out = len(pydantic_core.to_json(result))
                            else:
                                result = model
                                rec.bytes_out = len(
                                    model.model_dump_json(by_alias=True, exclude_none=True)
                                )
                            is_error, error = model.is_error, _first_text(model)
                    except ConnectionClosed:
                        rt.lost.set()
                        raise ServerUnavailable(
                            f"server {server!r} closed the connection during {tool!r} "
                            "(it crashed or was killed); the next call restarts it"
                        ) from None
                    except RequestTimedOut:
                        raise CallTimeout(
                            f"{server}/{tool} did not answer within {cfg.call_timeout:g} s "
                            "(call_timeout); the request was cancelled downstream"
                        ) from None
                    finally:
                        self._b.forwarder.leave(server, peer)
            finally:
                current_session_id.reset(token)
            rec.outcome = "tool_error" if is_error else "ok"
            if is_error:
                rec.error = error
            return result
        except BaseException as exc:
            note_failure(rec, exc)
            raise
        finally:
            rec.latency_ms = round((time.perf_counter() - t0) * 1000, 3)
            rec.settle()  # a call refused before it was sent (else a no-op)
            # Not shielded (that costs a task per call): the record is appended before the
            # first await in write(), so even a cancelled caller's record is on file.
            await self._b.trail.write(rec)


def _first_text(result: types.CallToolResult) -> str | None:
    for c in result.content:
        if isinstance(c, types.TextContent):
            return c.text[:500]
    return None


def _first_text_json(result: dict[str, Any]) -> str | None:
    if result.get("isError") is not True:
        return None
    content = result.get("content")
    for c in content if isinstance(content, list) else ():
        if isinstance(c, dict) and c.get("type") == "text" and isinstance(c.get("text"), str):
            return c["text"][:500]
    return None
