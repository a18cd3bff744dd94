"""The broker's MCP front: one low-level ``Server`` offering the meta-tools.

The agent sees three small tools instead of every downstream schema:
``get_tool_list`` (the role's catalog), ``mcp_router_call`` (server, tool, arguments) and
``describe_tool`` (one tool's full input schema, on demand). The same ``Server`` is served
over stdio and over streamable HTTP; the front only says who the caller is.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.shared.exceptions import MCPError

from neuralgentics import __version__
from neuralgentics.broker import mcp_sdk
from neuralgentics.broker.errors import AccessDenied, BrokerError, InvalidRequest
from neuralgentics.broker.forward import current_peer
from neuralgentics.broker.intent.tools import (
    IntentError,
    call_by_intent,
    find_tool,
    with_intent_tools,
)
from neuralgentics.broker.limits import check_session_id
from neuralgentics.broker.server.instructions import BrokerServer, Instructions
from neuralgentics.broker.server.peer import SessionPeer, track
from neuralgentics.broker.server.resource_methods import content_handlers
from neuralgentics.broker.server.rpc_errors import as_mcp_error as _as_mcp_error
from neuralgentics.broker.service import Broker
from neuralgentics.credentials import OWNER, Principal

ROLE_HEADER = "x-neuralgentics-role"
# Where the OpenCode plugin stamps the calling agent's role and session on a passthrough tool's
# arguments (removed before the call; the meta-tools take `role` and `session_id` directly).
STAMP_KEY = "_neuralgentics"
SESSION_HEADER = "x-neuralgentics-session"

# Kept small: they are in every request the agent makes (OpenCode sends every tool each step).
# `role` and `session_id` are accepted on every meta-tool but not advertised: the OpenCode
# plugin stamps them after the model chose the call, and the model must not pick its own.
# Names are checked by the handlers (limits.check_names), not by the schema.
_STR = {"type": "string"}

META_TOOLS = [
    types.Tool(
        name="get_tool_list",
        description="List again the tools and skills your role may use.",
        input_schema={"type": "object", "properties": {}},
    ),
    types.Tool(
        name="mcp_router_call",
        description="Call a tool: server, tool, arguments (the tool's own).",
        input_schema={
            "type": "object",
            "properties": {"server": _STR, "tool": _STR, "arguments": {"type": "object"}},
            "required": ["server", "tool"],
        },
    ),
    types.Tool(
        name="describe_tool",
        description="A tool's input schema (server, tool), or a skill's instructions (skill).",
        input_schema={
            "type": "object",
            "properties": {"server": _STR, "tool": _STR, "skill": _STR},
        },
    ),
]
# The intent layer (broker/intent) adds find_tool and lets mcp_router_call take an `intent`.
META_TOOLS = with_intent_tools(META_TOOLS)
META_NAMES = [t.name for t in META_TOOLS]


@dataclass
class Caller:
    role: str | None
    # the calling agent's session when it said which (a stamped `session_id` argument, the
    # X-Neuralgentics-Session header, `broker stdio --session-id`), else the connection's
    session_id: str | None
    front: str
    # the credential behind the request, for the audit: owner, token:<label>, stdio
    credential: str | None = None
    # the transport's own session: a `broker stdio` process, an /mcp session id
    connection: str | None = None


def pinned_role(principal: Principal, asserted: str | None) -> str | None:
    """The role an HTTP request may act as. The owner credential may assert any role (header
    or, without one, the call's ``role`` argument); a role-bound token is its role, and
    asserting another is refused."""
    asserted = asserted or None
    if principal.owner:
        return asserted
    if principal.role is None:
        raise AccessDenied(
            "this request carries no credential that may call tools", rule="credential"
        )
    if asserted is not None and asserted != principal.role:
        raise AccessDenied(
            f"the credential {principal.label!r} is bound to role {principal.role!r}; "
            f"it may not act as role {asserted!r}",
            rule=f"tokens.{principal.label.removeprefix('token:')}.role",
        )
    return principal.role


def principal_of(request: Any) -> Principal:
    """The principal HTTPGuard put on the request; an app run in-process has none (owner)."""
    state = getattr(request, "scope", {}).get("state") or {}
    found = state.get("principal")
    return found if isinstance(found, Principal) else OWNER


def _text(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


def http_caller(ctx: ServerRequestContext[Any, Any]) -> Caller:
    """Role and session from the HTTP request (streamable HTTP front): the role the request's
    credential pins (``pinned_role``; a mismatch was refused before the SDK saw the request)."""
    req = ctx.request
    headers = getattr(req, "headers", None) or {}
    principal = principal_of(req)
    try:
        role = pinned_role(principal, headers.get(ROLE_HEADER))
    except AccessDenied:
        role = principal.role
    connection = headers.get("mcp-session-id") or None
    # the /mcp endpoint refused a malformed session header before the SDK saw the request
    sid = headers.get(SESSION_HEADER) or connection
    return Caller(
        role=role,
        session_id=sid,
        front="http",
        credential=principal.label,
        connection=connection,
    )


def stdio_caller(
    role: str | None, session_id: str | None = None
) -> Callable[[ServerRequestContext[Any, Any] | None], Caller]:
    """One stdio process serves one client: every request comes from the same caller (whose
    calls may still each name the agent session they come from)."""
    connection = f"stdio-{uuid.uuid4().hex[:12]}"
    caller = Caller(
        role=role,
        session_id=check_session_id(session_id, "--session-id") or connection,
        front="stdio",
        credential="stdio",
        connection=connection,
    )

    def caller_of(ctx: ServerRequestContext[Any, Any] | None) -> Caller:
        return caller

    return caller_of


def _progress_fn(ctx: ServerRequestContext[Any, Any]) -> Any:
    meta = ctx.meta or {}
    if not (meta.get("progress_token") or meta.get("progressToken")):
        return None  # nobody is listening: do not ask the downstream server for progress

    async def forward(progress: float, total: float | None, message: str | None) -> None:
        await ctx.session.report_progress(progress, total, message)

    return forward


async def route_call(
    broker: Broker,
    caller: Caller,
    name: str,
    arguments: dict[str, Any] | None,
    progress: Any = None,
    *,
    as_json: bool = False,
) -> types.CallToolResult | dict[str, Any]:
    """One ``tools/call`` of a meta-tool, for any front; broker errors become ``MCPError``.

    Shared by the SDK ``Server`` handler and the stdio front's fast path, so both answer
    alike (same results, same error codes and messages). ``as_json``: a forwarded call's
    result may come back as the downstream server's JSON (``Broker.call_json``), for a front
    that writes JSON itself.
    """
    args: dict[str, Any] = dict(arguments or {})
    try:
        # The agent's session, stamped on the call by the OpenCode plugin like the role: it
        # names the session in the audit and, downstream, in the egress gateway's header.
        stamped = args.pop("session_id", None)
        try:
            sid = check_session_id(stamped)
        except InvalidRequest as exc:
            if name == "mcp_router_call":
                await _audit_refused(broker, caller, args, exc)
            raise
        if sid is not None and sid != caller.session_id:
            caller = dataclasses.replace(caller, session_id=sid)
        if name == "mcp_router_call":
            try:
                role = broker.resolve_role(caller.role, args.get("role"))
            except BrokerError as exc:
                await _audit_refused(broker, caller, args, exc)
                raise
            unknown = set(args) - {"server", "tool", "arguments", "role", "intent"}
            if unknown:
                refused = InvalidRequest(
                    f"mcp_router_call: unknown argument(s) {', '.join(sorted(unknown))}; "
                    "put the tool's own arguments inside 'arguments'"
                )
                await _audit_refused(broker, caller, args, refused, role)
                raise refused
            if "intent" in args and "server" not in args and "tool" not in args:
                return await call_by_intent(
                    broker,
                    role=role,
                    intent=args["intent"],
                    arguments=args.get("arguments"),
                    session_id=caller.session_id,
                    front=caller.front,
                    progress=progress,
                    credential=caller.credential,
                    connection=caller.connection,
                )
            if "intent" in args:
                refused = InvalidRequest(
                    "mcp_router_call: give either 'intent' or 'server' and 'tool', not both"
                )
                await _audit_refused(broker, caller, args, refused, role)
                raise refused
            # values as the caller sent them: Broker.call checks names and shapes itself
            target: dict[str, Any] = {
                "role": role,
                "server": args.get("server"),
                "tool": args.get("tool"),
                "arguments": args.get("arguments"),
                "session_id": caller.session_id,
                "front": caller.front,
                "credential": caller.credential,
                "connection": caller.connection,
            }
            if as_json and progress is None:
                return await broker.call_json(**target)
            return await broker.call(**target, progress=progress)
        if name == "get_tool_list":
            role = broker.resolve_role(caller.role, args.get("role"))
            return _text(await broker.catalog_text(role))
        if name == "find_tool":
            role = broker.resolve_role(caller.role, args.pop("role", None))
            return _text(await find_tool(broker, role, args))
        if name == "describe_tool":
            role = broker.resolve_role(caller.role, args.get("role"))
            if "skill" in args:
                if "server" in args or "tool" in args:
                    raise InvalidRequest(
                        "describe_tool: give either 'skill' or 'server' and 'tool', not both"
                    )
                return _text(json.dumps(await broker.describe_skill(role, args["skill"]), indent=1))
            server: Any = args.get("server")  # describe_tool checks the names itself
            tool: Any = args.get("tool")
            info = await broker.describe_tool(role, server, tool)
            return _text(json.dumps(info, indent=1))
        # A passthrough tool (`expose: tools`): as the role `mcp_router_call` would run with —
        # the connection's, or the one the OpenCode plugin stamped under STAMP_KEY (a key of
        # its own: the tool's arguments may have a `role` of their own).
        tool_args, stamp = arguments, None
        if isinstance(arguments, dict) and STAMP_KEY in arguments:
            stamp = arguments[STAMP_KEY]
            tool_args = {k: v for k, v in arguments.items() if k != STAMP_KEY}
        if stamp is not None and not isinstance(stamp, dict):
            raise InvalidRequest(f"'{STAMP_KEY}' must be an object (role, session_id)")
        stamp = stamp or {}
        listed_for = broker.resolve_role(caller.role, None)
        role = broker.resolve_role(caller.role, stamp.get("role"))
        if (sid := check_session_id(stamp.get("session_id"))) is not None:
            caller = dataclasses.replace(caller, session_id=sid)
        # Named as the connection's tools/list showed it: a role the name is denied to gets
        # the router's denial (audited), not "unknown tool".
        found = await broker.passthrough.resolve(listed_for, name)
        if found is None and role != listed_for:
            found = await broker.passthrough.resolve(role, name)
        if found is None:  # a tool the role was not listed: Broker.call refuses it, audited
            found = await broker.passthrough.resolve_denied(name)
        if found is not None:
            direct: dict[str, Any] = {
                "role": role,
                "server": found[0],
                "tool": found[1],
                "arguments": tool_args,
                "session_id": caller.session_id,
                "front": caller.front,
                "credential": caller.credential,
            }
            if as_json and progress is None:
                return await broker.call_json(**direct)
            return await broker.call(**direct, progress=progress)
    except BrokerError as exc:
        raise _as_mcp_error(exc) from None
    except IntentError as exc:
        raise _as_mcp_error(InvalidRequest(str(exc))) from None
    raise MCPError(
        code=-32602,
        message=f"unknown tool {name!r}; this broker offers {', '.join(META_NAMES)}"
        + (" and the passthrough tools tools/list shows" if broker.passthrough.any() else ""),
    )


async def meta_tools_for(broker: Broker, role: str | None) -> list[types.Tool]:
    """The meta-tools a connection is listed: all of them while some server is behind the
    catalog; with every server's tools listed directly, only ``describe_tool`` when the role
    has skills to read (the instructions name them), else none — each costs tokens in every
    request. They stay callable either way."""
    if broker.exposure.brokered(role):
        return META_TOOLS
    if await broker.skills(role):
        return [t for t in META_TOOLS if t.name == "describe_tool"]
    return []


async def _audit_refused(
    broker: Broker, caller: Caller, args: dict[str, Any], exc: BrokerError, role: str | None = None
) -> None:
    """A call refused before it reached ``Broker.call`` is audited all the same."""
    await broker.audit_refused(
        error=exc.message,
        outcome="denied" if isinstance(exc, AccessDenied) else "invalid",
        rule=getattr(exc, "rule", None),
        role=role or caller.role,
        server=args.get("server", "-"),
        tool=args.get("tool", "-"),
        arguments=args.get("arguments"),
        session_id=caller.session_id,
        front=caller.front,
        credential=caller.credential,
        connection=caller.connection,
    )


def build_server(
    broker: Broker,
    caller_of: Callable[[ServerRequestContext[Any, Any]], Caller],
    *,
    track_sessions: bool = True,
    instructions: Instructions | None = None,
) -> ListChangedServer:
    """The SDK server of the meta-tools.

    ``track_sessions``: remember each front session so it is told when a downstream
    server's tools change; the stdio front registers itself instead (its fast path
    answers calls without an SDK session).
    """

    async def on_list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        if track_sessions:
            track(broker, ctx)
        try:
            role = broker.resolve_role(caller_of(ctx).role, None)
        except BrokerError as exc:
            raise _as_mcp_error(exc) from None
        tools = await meta_tools_for(broker, role)
        if broker.passthrough.any():
            tools = tools + (await broker.passthrough.listing(role))[1]
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if track_sessions:
            track(broker, ctx)
        caller = caller_of(ctx)
        # This call's client may be asked the server's sampling/elicitation (forward.py).
        token = current_peer.set(
            SessionPeer(
                ctx,
                role=caller.role,
                session_id=caller.session_id,
                front=caller.front,
                credential=caller.credential,
            )
        )
        try:
            result = await route_call(
                broker, caller, params.name, params.arguments, _progress_fn(ctx)
            )
        finally:
            current_peer.reset(token)
        assert isinstance(result, types.CallToolResult)  # as_json is off
        return result

    server = ListChangedServer(
        broker,
        "neuralgentics-broker",
        version=__version__,
        instructions_source=instructions or Instructions(broker),
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        **content_handlers(broker, caller_of),
    )
    # The SDK's default middleware is an OpenTelemetry span per message, a no-op without an
    # exporter (the broker has none) but not free: a span, a context, a callable's name per
    # request on the path that is not fast already.
    server.middleware = mcp_sdk.without_otel(server.middleware)
    return server


class ListChangedServer(BrokerServer):
    """The broker's SDK server, declaring ``listChanged`` for tools, resources and prompts whichever
    front runs it (the streamable HTTP manager asks with no options: it would say false).

    ``resources`` and ``prompts`` are declared only when some server may have them (it exposes
    them, lists some, or was never listed): a client adds tools of its own for a server that
    declares resources (OpenCode 1.18: its three ``*_mcp_resource*`` tools, 275 tokens in
    every request), which here would have nothing to read."""

    def __init__(self, broker: Broker, *args: Any, **kwargs: Any) -> None:
        self._broker = broker
        super().__init__(*args, **kwargs)

    def declares(self, what: str) -> bool:
        """Whether ``resources`` / ``prompts`` are declared now: some server may have them."""
        launcher = self._broker.launcher
        for name, entry in launcher.entries.items():
            if what in entry.config.exposed:
                return True
            known = launcher.known_content(name)
            if known is None:
                return True  # not listed yet: it may have some
            found = (known.resources or known.templates) if what == "resources" else known.prompts
            if found:
                return True
        return False

    def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
        caps = super().get_capabilities(*args, **kwargs)
        return caps.model_copy(
            update={
                "resources": caps.resources if self.declares("resources") else None,
                "prompts": caps.prompts if self.declares("prompts") else None,
            }
        )

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options
            or NotificationOptions(
                prompts_changed=True, resources_changed=True, tools_changed=True
            ),
            experimental_capabilities,
            extensions,
        )
