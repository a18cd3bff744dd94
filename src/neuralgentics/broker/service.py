"""The broker: config + access control + launcher + proxy + audit behind one object.

Both fronts (MCP over stdio / streamable HTTP, and REST) call these methods; nothing in a
front decides policy. Stable surface for the catalog and intent parts:

- ``await broker.tools_by_server(role) -> dict[str, list[mcp.types.Tool]]`` (only what
  ``role`` may call), ``broker.summaries(role) -> dict[str, str]``
- ``broker.may_call(role, server, tool) -> bool`` (its `AccessPolicy`, swapped on reload)
- ``await broker.call(role=, server=, tool=, arguments=, ...) -> mcp.types.CallToolResult``
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import mcp.types as types
import pydantic_core
from mcp.shared.exceptions import MCPError

from neuralgentics.broker import resources_prompts
from neuralgentics.broker.access import AccessPolicy
from neuralgentics.broker.argcheck import Check, quick_check
from neuralgentics.broker.audit import AuditRecord, AuditSink, open_sink
from neuralgentics.broker.audit.gate import FloodGate
from neuralgentics.broker.audit.record import redact
from neuralgentics.broker.catalog import ToolListCache, render_catalog
from neuralgentics.broker.catalog.content_cache import ContentCache
from neuralgentics.broker.catalog.resource_lines import ServerItems, render_content
from neuralgentics.broker.client import (
    ConnectionClosed,
    RequestTimedOut,
    current_session_id,
    from_session_error,
)
from neuralgentics.broker.config import (
    BrokerConfig,
    ConfigError,
    ServerConfig,
    default_config_path,
    env_references,
    load_config,
    save_config,
    with_server,
    without_server,
)
from neuralgentics.broker.errors import (
    AccessDenied,
    BrokerError,
    CallTimeout,
    Conflict,
    InvalidRequest,
    NotFound,
    ServerUnavailable,
)
from neuralgentics.broker.forward import Forwarder, calling_peer
from neuralgentics.broker.fronts import Fronts
from neuralgentics.broker.intent.tools import Intents, MatcherPool
from neuralgentics.broker.launcher import Launcher
from neuralgentics.broker.limits import check_arguments, check_names, check_size
from neuralgentics.broker.outputcheck import OutputCheck
from neuralgentics.broker.passthrough import Passthrough
from neuralgentics.broker.roles import Edit, KnownTools, RoleExists, UnknownRole, check_roles
from neuralgentics.broker.sandbox import describe
from neuralgentics.broker.skillcatalog import SkillRecord, skills_for_role
from neuralgentics.config import Settings
from neuralgentics.embeddings import embedder_from_settings
from neuralgentics.token_counts import count_tokens

logger = logging.getLogger(__name__)

_NONE = ServerItems()

ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]
R = TypeVar("R")


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


@dataclass
class ServerStatus:
    name: str
    transport: str
    state: str
    summary: str
    pid: int | None
    restarts: int
    inflight: int
    tools: int | None
    last_error: str | None
    stderr_tail: list[str] = field(default_factory=list)
    first_class: bool = False


def _note_failure(rec: AuditRecord, exc: BaseException) -> None:
    """Set a failed request's outcome, error and rule on its audit record (an exception this
    does not know leaves the record's own outcome, "error")."""
    if isinstance(exc, AccessDenied):
        rec.outcome, rec.error, rec.rule = "denied", exc.message, exc.rule
    elif isinstance(exc, (InvalidRequest, NotFound)):
        rec.outcome, rec.error = "invalid", exc.message
    elif isinstance(exc, BrokerError):
        rec.outcome = "timeout" if isinstance(exc, CallTimeout) else "error"
        rec.error = exc.message
    elif isinstance(exc, MCPError):
        rec.error = f"downstream error {exc.code}: {exc.message}"
    elif isinstance(exc, asyncio.CancelledError):
        rec.outcome, rec.error = "cancelled", "the caller cancelled the request"


class Broker:
    """`settings`: where its files go (tool lists, audit log) and the database a PostgreSQL
    audit sink falls back to. `intents`: the matchers behind find_tool and intent calls, and
    the skills they offer (the composer's; default: a model of its own, no skills)."""

    def __init__(
        self,
        config: BrokerConfig,
        config_path: Path | None = None,
        *,
        settings: Settings,
        intents: Intents | None = None,
    ) -> None:
        self.config = config
        self.config_path = config_path
        self.settings = settings
        _warn_about_rules(config)
        self.intents = intents or Intents(MatcherPool(embedder_from_settings(settings)))
        self.policy = AccessPolicy(config.roles, self.tool_hints)
        # Sampling and elicitation requests of downstream servers, to the client whose call
        # is in flight (forward.py).
        self.forwarder = Forwarder(self._write_audit, self._call_timeout_of)
        self.launcher = Launcher(
            config.brokered(),
            on_tools_changed=self._tools_changed,
            tool_cache=ToolListCache(settings.home / "broker" / "tools"),
            egress_gateway=settings.egress_gateway_url,
            content_cache=ContentCache(settings.home / "broker" / "content"),
            on_content_changed=self._content_changed,
            request_handlers=self.forwarder.handlers,
        )
        self.audit: AuditSink = open_sink(config.audit, settings)
        self.gate = FloodGate(config.audit.flood_burst, config.audit.flood_per_second)
        self._edit_lock = asyncio.Lock()
        self._validators: dict[tuple[str, str], _ArgumentCheck] = {}
        self._output_checks: dict[tuple[str, str], OutputCheck] = {}
        # Bumped when what a catalog shows may have changed (a reload, a server's tools).
        self.catalog_generation = 0
        # Client connections to tell when a downstream server's tools, resources or prompts
        # change (fronts.py).
        self.front_sessions = Fronts()
        # Tools of servers with `expose: tools`, listed directly (passthrough.py).
        self.passthrough = Passthrough(self)

    @classmethod
    @contextlib.asynccontextmanager
    async def open(
        cls,
        config_path: Path | str | None = None,
        config: BrokerConfig | None = None,
        *,
        settings: Settings,
        intents: Intents | None = None,
    ) -> AsyncIterator[Broker]:
        """Load the config (or use ``config``) and run the broker until the block exits.
        Without either, the default file (``<config dir>/broker.yaml``; missing: empty)."""
        # An in-memory config without a path is not persisted by add/remove (nor reloadable).
        path: Path | None
        if config is not None:
            path = Path(config_path) if config_path else None
            loaded = config
        elif config_path:
            path = Path(config_path)
            loaded = load_config(path)
        else:
            path = default_config_path(settings)
            loaded = load_config(path, missing_ok=True)
        broker = cls(loaded, path, settings=settings, intents=intents)
        try:
            yield broker
        finally:
            await broker.aclose()

    async def aclose(self) -> None:
        await self.launcher.aclose()
        for rec in self.gate.flush():
            await self._write_one(rec)
        self.audit.close()

    # -- access --------------------------------------------------------------------

    def resolve_role(self, fixed: str | None, argument: str | None = None) -> str | None:
        """The caller's role: pinned by ``--role`` / header, else the stamped argument, else default.

        A pinned role cannot be overridden by an argument (that would be privilege escalation).
        """
        if argument is not None and not isinstance(argument, str):
            raise InvalidRequest("'role' must be a string")
        if fixed and argument and argument != fixed:
            raise AccessDenied(
                f"role {argument!r} in the call does not match this connection's role {fixed!r}",
                rule="role pinned by --role or the X-Neuralgentics-Role header",
            )
        return fixed or argument or self.config.default_role

    def may_call(self, role: str | None, server: str, tool: str) -> bool:
        return self.policy.may_call(role, server, tool)

    def tool_hints(self, server: str, tool: str) -> types.ToolAnnotations | None:
        """The annotations ``server`` listed for ``tool`` (for read-only roles), if listed."""
        entry = self.launcher.entries.get(server) if hasattr(self, "launcher") else None
        for t in (entry.tools if entry is not None else None) or ():
            if t.name == tool:
                return t.annotations
        return None

    # -- catalog ---------------------------------------------------------------------

    def summaries(self, role: str | None = None) -> dict[str, str]:
        return {
            name: e.config.summary
            for name, e in self.launcher.entries.items()
            if role is None or self.policy.may_see_server(role, name)
        }

    async def tools_by_server(self, role: str | None) -> dict[str, list[types.Tool]]:
        """Downstream tools ``role`` may call, per server; cold servers are started to list them
        (once: the listing is kept across stops). A server that cannot start is left out."""
        names = [n for n in self.launcher.entries if self.policy.may_see_server(role, n)]

        async def one(name: str) -> tuple[str, list[types.Tool] | None]:
            try:
                return name, await self.launcher.tools(name)
            except BrokerError as exc:
                logger.warning("catalog: %s", exc.message)
                return name, None

        out: dict[str, list[types.Tool]] = {}
        for name, tools in await asyncio.gather(*(one(n) for n in names)):
            if tools is None:
                continue
            allowed = [t for t in tools if self.policy.may_call(role, name, t.name)]
            if allowed:
                out[name] = allowed
        return out

    async def catalog_text(self, role: str | None, budget_tokens: int | None = None) -> str:
        """The tools of servers in meta-tools mode and the role's skills (`render_catalog`),
        then what is not a tool — resources, templates, prompts — and which servers are
        passthrough (`catalog.resource_lines`, at most a third of the budget)."""
        budget_tokens = budget_tokens or self.config.catalog.budget_tokens
        tbs = await self.tools_by_server(role)
        seen = await resources_prompts.visible(self, role)
        items = {
            name: ServerItems(
                resources=c.resources or (),
                templates=c.templates or (),
                prompts=c.prompts or (),
                exposed=frozenset(self.launcher.entries[name].config.expose),
            )
            for name, c in seen.content.items()
        }
        for name in tbs:
            expose = frozenset(self.launcher.entries[name].config.expose)
            if "tools" in expose and name not in items:
                items[name] = ServerItems(exposed=expose)
        extra = render_content(items, seen.prompt_names, budget_tokens // 3)
        meta = {n: t for n, t in tbs.items() if "tools" not in items.get(n, _NONE).exposed}
        summaries = {n: s for n, s in self.summaries(role).items() if n in meta}
        skills = await self.skills(role)
        rest = max(1, budget_tokens - count_tokens(extra)) if extra else budget_tokens
        text = (
            render_catalog(meta, summaries, budget_tokens=rest, skills=skills).text
            if meta or skills or not extra
            else ""
        )
        return "\n".join(part for part in (text, extra) if part)

    async def tools_by_server_within(
        self, role: str | None, wait: float
    ) -> dict[str, list[types.Tool] | None]:
        """``tools_by_server``, waiting at most ``wait`` seconds for servers never listed: those
        still starting map to None (named without their tools) and go on listing in the
        background, so the next reader has them."""
        names = [n for n in self.launcher.entries if self.policy.may_see_server(role, n)]
        tasks = {n: asyncio.ensure_future(self.launcher.tools(n)) for n in names}
        if tasks:
            await asyncio.wait(tasks.values(), timeout=wait)
        out: dict[str, list[types.Tool] | None] = {}
        for name, task in tasks.items():
            if not task.done():
                task.add_done_callback(_quiet)
                out[name] = None
                continue
            if task.exception() is not None:
                logger.warning("catalog: %s", task.exception())
                continue
            allowed = [t for t in task.result() if self.policy.may_call(role, name, t.name)]
            if allowed:
                out[name] = allowed
        return out

    async def skills(self, role: str | None) -> list[SkillRecord]:
        """The skills ``role`` may see (read in a thread: the registry may re-read files)."""
        records = await asyncio.to_thread(self.intents.skill_records)
        return skills_for_role(records, role)

    async def describe_skill(self, role: str | None, skill: Any) -> dict[str, Any]:
        """One skill's instructions, if ``role`` may see it."""
        if not isinstance(skill, str) or not skill:
            raise InvalidRequest("'skill' must be a skill id (get_tool_list lists them)")
        visible = await self.skills(role)
        for record in visible:
            if record.id == skill:
                return {
                    "skill": record.id,
                    "name": record.name,
                    "description": record.description,
                    "instructions": record.body,
                }
        raise NotFound(
            f"no skill {skill[:64]!r} among those role {role!r} may see "
            f"({', '.join(r.id for r in visible) or 'none'})"
        )

    async def find_tool(self, role: str | None, server: str, tool: str) -> types.Tool:
        """The tool ``role`` may call, or an error that names only what ``role`` may see."""
        check_names(server, tool)
        decision = self.policy.check(role, server, tool)
        if not decision and ".read_only:" in decision.rule and server in self.launcher.entries:
            # judged by its name: the server's own annotations, once listed, decide
            await self.launcher.tools(server)
            decision = self.policy.check(role, server, tool)
        if not decision:
            raise AccessDenied(
                f"role {role!r} may not use {server}/{tool}: denied by {decision.rule}",
                decision.rule,
            )
        if server not in self.launcher.entries:
            visible = sorted(
                n for n in self.launcher.entries if self.policy.may_see_server(role, n)
            )
            raise NotFound(
                f"no server named {server!r} among those role {role!r} may use "
                f"({', '.join(visible) or 'none'})"
            )
        tools = await self.launcher.tools(server)
        for t in tools:
            if t.name == tool:
                if self.policy.is_read_only(role):
                    # decided by name before the server was listed; now by its annotations
                    decision = self.policy.check(role, server, tool)
                    if not decision:
                        raise AccessDenied(
                            f"role {role!r} may not use {server}/{tool}: denied by {decision.rule}",
                            decision.rule,
                        )
                return t
        allowed = [t.name for t in tools if self.policy.may_call(role, server, t.name)]
        raise NotFound(
            f"server {server!r} has no tool {tool!r} that role {role!r} may use "
            f"(it may use: {', '.join(allowed) or 'none'})"
        )

    async def describe_tool(self, role: str | None, server: str, tool: str) -> dict[str, Any]:
        t = await self.find_tool(role, server, tool)
        out: dict[str, Any] = {
            "server": server,
            "name": t.name,
            "description": t.description or "",
            "inputSchema": t.input_schema,
        }
        if t.output_schema:
            out["outputSchema"] = t.output_schema
        return out

    # -- calls -----------------------------------------------------------------------

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
        # there, so the record can always be written, whatever the checks below refuse.
        rec = AuditRecord.for_call(
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
            t = await self.find_tool(role, server, tool)
            self._validate_arguments(server, t, arguments)
            cfg = self.launcher.entry(server).config
            if cfg.command:  # a server the broker starts: the audit names its confinement
                rec.sandbox = describe(cfg.sandbox)
            token = current_session_id.set(session_id)
            # The client connection of this call, which the server's sampling/elicitation
            # requests go to (forward.py); a front without one is a client that cannot be asked.
            peer = calling_peer()
            try:
                async with self.launcher.use(server) as rt:
                    self.forwarder.enter(server, peer)
                    try:
                        if rt.direct is not None and progress is None:
                            data = await rt.direct.call_tool(tool, arguments, cfg.call_timeout)
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
                        self.forwarder.leave(server, peer)
            finally:
                current_session_id.reset(token)
            rec.outcome = "tool_error" if is_error else "ok"
            if is_error:
                rec.error = error
            return result
        except BaseException as exc:
            _note_failure(rec, exc)
            raise
        finally:
            rec.latency_ms = round((time.perf_counter() - t0) * 1000, 3)
            # Not shielded (that costs a task per call): the record is appended before the
            # first await in write(), so even a cancelled caller's record is on file.
            await self._write_audit(rec)

    async def audited(self, rec: AuditRecord, run: Callable[[], Awaitable[R]]) -> R:
        """Run one request (a resource read, a prompt) and write its record, whatever happens,
        as ``_call`` does for a tool call."""
        t0 = time.perf_counter()
        rec.bytes_in = len(pydantic_core.to_json(rec.args, fallback=str))
        try:
            result = await run()
            rec.outcome = "ok"
            return result
        except BaseException as exc:
            _note_failure(rec, exc)
            raise
        finally:
            rec.latency_ms = round((time.perf_counter() - t0) * 1000, 3)
            await self._write_audit(rec)

    async def _write_audit(self, rec: AuditRecord) -> None:
        """Through the flood gate: refusals past a caller's budget are counted, not written
        one by one (audit/gate.py), so they cannot rotate earlier records away."""
        for r in self.gate.admit(rec):
            await self._write_one(r)

    async def _write_one(self, rec: AuditRecord) -> None:
        try:
            await self.audit.write(rec)
        except Exception:  # noqa: BLE001 - the call's outcome must not depend on the log
            logger.exception("audit write failed")

    async def audit_refused(
        self,
        *,
        error: str,
        role: str | None = None,
        server: Any = "-",
        tool: Any = "-",
        arguments: Any = None,
        session_id: str | None = None,
        front: str = "",
        credential: str | None = None,
        outcome: str = "invalid",
        rule: str | None = None,
        connection: str | None = None,
        kind: str = "call",
    ) -> None:
        """Record a tools/call a front refused before it reached :meth:`call` (a body that is
        not JSON, nested past the parser's limit, not shaped like a call, a role it may not
        claim); with ``kind="intent"``, how an intent call was resolved (``dispatched`` to a
        tool, or ``unresolved`` and answered with candidates)."""
        rec = AuditRecord.for_call(
            role=role,
            server=str(server),
            tool=str(tool),
            arguments=arguments,
            outcome=outcome,
            error=error,
            rule=rule,
            session_id=session_id,
            front=front,
            credential=credential,
            connection=connection if connection != session_id else None,
            kind=kind,
        )
        await self._write_audit(rec)

    async def record_admin(
        self,
        action: str,
        target: str,
        outcome: str,
        *,
        credential: str | None,
        front: str,
        details: dict[str, Any] | None = None,
        error: str | None = None,
        role: str | None = None,
    ) -> None:
        """One audit record per admin operation, done or refused: who, what, on which server."""
        rec = AuditRecord.for_call(
            role=role,
            server=target,
            tool=action,
            arguments=details or {},
            outcome=outcome,
            error=error,
            front=front,
            credential=credential,
            kind="admin",
        )
        # Admin records are never gated: they are rare, and each one matters.
        await self._write_one(rec)

    # -- servers ---------------------------------------------------------------------

    def servers_status(self) -> list[ServerStatus]:
        out = []
        for name, e in sorted(self.launcher.entries.items()):
            rt = e.peek_runtime()
            stderr = list(rt.process.stderr_tail)[-20:] if rt and rt.process else e.last_stderr
            out.append(
                ServerStatus(
                    name=name,
                    transport=e.config.transport,
                    state=e.state,
                    summary=e.config.summary,
                    pid=rt.pid if rt else None,
                    restarts=e.restarts,
                    inflight=rt.inflight if rt else 0,
                    tools=len(e.tools) if e.tools is not None else None,
                    last_error=e.last_error,
                    stderr_tail=stderr,
                )
            )
        for name, c in sorted(self.config.servers.items()):
            if c.first_class:
                out.append(
                    ServerStatus(
                        name,
                        c.transport,
                        "first_class",
                        c.summary,
                        None,
                        0,
                        0,
                        None,
                        None,
                        first_class=True,
                    )
                )
        return out

    async def apply_config(self, config: BrokerConfig) -> dict[str, list[str]]:
        """Switch to ``config``: new policy at once; only added/removed/changed servers move."""
        self.config = config
        self.policy = AccessPolicy(config.roles, self.tool_hints)
        self.catalog_generation += 1
        _warn_about_rules(config)
        self.gate.burst, self.gate.per_second = (
            config.audit.flood_burst,
            config.audit.flood_per_second,
        )
        self._validators.clear()
        self._output_checks.clear()
        return await self.launcher.reload(config.brokered())

    async def reload(
        self, *, credential: str | None = "owner", front: str = "api"
    ) -> dict[str, list[str]]:
        """Re-read the config file (SIGHUP, POST /reload). An invalid file changes nothing and raises."""
        try:
            if self.config_path is None:
                raise ConfigError(
                    "this broker was given its config in memory: there is no file to reload"
                )
            async with self._edit_lock:
                config = load_config(self.config_path)
                changes = await self.apply_config(config)
        except ConfigError as exc:
            await self.record_admin(
                "reload", "*", "invalid", credential=credential, front=front, error=str(exc)
            )
            raise
        logger.info("config reloaded: %s", changes)
        await self.record_admin(
            "reload", "*", "ok", credential=credential, front=front, details={"changes": changes}
        )
        return changes

    async def add_server(
        self,
        name: str,
        server: dict[str, Any] | ServerConfig,
        *,
        replace: bool = False,
        credential: str | None = "owner",
        front: str = "api",
        remote: bool = False,
    ) -> ServerConfig:
        """Register a server on the running broker and persist it; a bad entry changes nothing.

        ``remote``: the entry came over the network. It may not reference the broker's
        environment (``${VAR}``): that would copy the broker's secrets to whoever may add
        servers. Such an entry is refused, naming the variables (config.env_references).
        """
        action = "servers.replace" if replace and name in self.config.servers else "servers.add"
        before = self.config.servers.get(name)
        details: dict[str, Any] = {"after": _entry_for_audit(server)}
        if before is not None:
            details["before"] = _entry_for_audit(before)

        def change(current: BrokerConfig) -> BrokerConfig:
            if remote and (refs := env_references(server)):
                raise InvalidRequest(
                    f"servers.{name}: an entry sent over HTTP may not reference the broker's environment "
                    f"({', '.join('${' + r + '}' for r in refs)}); put the value in the entry, or add the "
                    "server on the broker's machine with `neuralgentics broker add` (local config may use ${VAR})"
                )
            if name in current.servers and not replace:
                raise InvalidRequest(f"servers.{name}: a server named {name!r} already exists")
            try:
                return with_server(current, name, server)
            except ConfigError as exc:
                raise InvalidRequest(str(exc)) from None

        config = await self._admin_edit(
            action, name, change, credential=credential, front=front, details=details
        )
        return config.servers[name]

    async def remove_server(
        self, name: str, *, credential: str | None = "owner", front: str = "api"
    ) -> None:
        before = self.config.servers.get(name)
        details = {"before": _entry_for_audit(before)} if before is not None else {}

        def change(current: BrokerConfig) -> BrokerConfig:
            if name not in current.servers:
                raise NotFound(f"no server named {name!r}")
            return without_server(current, name)

        await self._admin_edit(
            "servers.remove", name, change, credential=credential, front=front, details=details
        )

    async def _admin_edit(
        self,
        action: str,
        target: str,
        change: Callable[[BrokerConfig], BrokerConfig],
        *,
        credential: str | None,
        front: str,
        details: dict[str, Any],
        after: Callable[[], Any] | None = None,
    ) -> BrokerConfig:
        """Under the edit lock: the config ``change`` makes of the current one (a BrokerError
        refuses it), persisted and applied; one admin record, done or refused. ``after``: what
        the record's ``details["after"]`` says once the edit is done."""
        try:
            async with self._edit_lock:
                config = change(self.config)
                if self.config_path is not None:
                    save_config(config, self.config_path)
                await self.apply_config(config)
        except BrokerError as exc:
            await self.record_admin(
                action,
                target,
                "invalid",
                credential=credential,
                front=front,
                details=details,
                error=exc.message,
            )
            raise
        if after is not None:
            details["after"] = after()
        await self.record_admin(
            action, target, "ok", credential=credential, front=front, details=details
        )
        return config

    # -- roles -----------------------------------------------------------------------

    def known_tools(self) -> dict[str, list[str] | None]:
        """Tool names per server as far as they are known without starting anything (the last
        listing, in memory or on disk); None for a server never listed."""
        out: dict[str, list[str] | None] = {}
        cache = self.launcher.tool_cache
        for name, e in self.launcher.entries.items():
            tools = e.tools
            if tools is None and cache is not None:
                try:
                    tools = cache.load(name, e.config)
                except Exception:  # noqa: BLE001 - unknown is a fine answer
                    tools = None
            out[name] = [t.name for t in tools] if tools is not None else None
        return out

    async def edit_roles(
        self,
        action: str,
        role: str,
        edit: Callable[[BrokerConfig, KnownTools], Edit],
        *,
        credential: str | None = "owner",
        front: str = "api",
    ) -> Edit:
        """Apply a role edit (``broker.roles``: add_role, remove_role, grant, revoke) to the
        running broker: validated against its servers and their known tools, persisted, the
        policy switched at once; one admin record, done or refused."""
        details: dict[str, Any] = {"before": _role_for_audit(self.config, role)}
        results: list[Edit] = []

        def change(current: BrokerConfig) -> BrokerConfig:
            try:
                results.append(edit(current, self.known_tools()))
            except UnknownRole as exc:
                raise NotFound(str(exc)) from None
            except RoleExists as exc:
                raise Conflict(str(exc)) from None
            except ConfigError as exc:
                raise InvalidRequest(str(exc)) from None
            return results[-1].config

        await self._admin_edit(
            action,
            role,
            change,
            credential=credential,
            front=front,
            details=details,
            after=lambda: results[-1].after,
        )
        result = results[-1]
        return result

    async def _tools_changed(self, server: str) -> None:
        self.catalog_generation += 1
        await self.front_sessions.notify("tools")

    async def _content_changed(self, server: str, kind: str) -> None:
        await self.front_sessions.notify("resources" if kind == "resources" else "prompts")

    def _call_timeout_of(self, server: str) -> float | None:
        entry = self.launcher.entries.get(server)
        return entry.config.call_timeout if entry is not None else None


def _quiet(task: asyncio.Future[Any]) -> None:
    """Retrieve a background listing's outcome (a failure is the launcher's to report)."""
    if not task.cancelled():
        task.exception()


def _warn_about_rules(config: BrokerConfig) -> None:
    """Rules naming a server that is not there are served (they match nothing) but said:
    `broker check` fails on them, `broker role` refuses to write them."""
    for problem in check_roles(config):
        if problem.severity == "error":
            logger.warning("%s (it matches nothing; `neuralgentics broker check`)", problem)


def _role_for_audit(config: BrokerConfig, role: str) -> dict[str, list[str]] | None:
    rc = config.roles.get(role)
    return None if rc is None else {"allow": list(rc.allow), "deny": list(rc.deny)}


def _entry_for_audit(server: dict[str, Any] | ServerConfig | Any) -> Any:
    """A server entry as an admin record keeps it: env and header values never (they hold
    credentials even when their names do not say so), the rest redacted like arguments."""
    data = (
        server.model_dump(mode="json", exclude_defaults=True)
        if isinstance(server, ServerConfig)
        else server
    )
    if not isinstance(data, dict):
        return redact(data)
    data = dict(data)
    for section in ("env", "headers"):
        if isinstance(data.get(section), dict):
            data[section] = {str(k): "[REDACTED]" for k in data[section]}
    return redact(data)


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
