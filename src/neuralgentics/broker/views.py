"""What a role sees of the broker: the servers' summaries and tools, the catalog text, skills,
one tool's description, the servers' status. Read-only: nothing here changes the config, calls
a tool or writes an audit record (`Broker` is the front that holds the parts)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import mcp.types as types

from neuralgentics.broker import resources_prompts
from neuralgentics.broker.catalog import render_catalog
from neuralgentics.broker.catalog.render import NO_TOOLS
from neuralgentics.broker.catalog.resource_lines import ServerItems, render_content
from neuralgentics.broker.errors import AccessDenied, BrokerError, InvalidRequest, NotFound
from neuralgentics.broker.limits import check_names
from neuralgentics.broker.skillcatalog import SkillRecord, skills_for_role
from neuralgentics.token_counts import count_tokens

if TYPE_CHECKING:
    from neuralgentics.broker.service import Broker

logger = logging.getLogger(__name__)

_NONE = ServerItems()


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


class CatalogViews:
    """The broker's read side, over its launcher and its current policy and config."""

    def __init__(self, broker: Broker) -> None:
        self._b = broker

    def summaries(self, role: str | None = None) -> dict[str, str]:
        return {
            name: e.config.summary
            for name, e in self._b.launcher.entries.items()
            if role is None or self._b.policy.may_see_server(role, name)
        }

    async def tools_by_server(self, role: str | None) -> dict[str, list[types.Tool]]:
        """Downstream tools ``role`` may call, per server; cold servers are started to list them
        (once: the listing is kept across stops). A server that cannot start is left out."""
        names = [n for n in self._b.launcher.entries if self._b.policy.may_see_server(role, n)]

        async def one(name: str) -> tuple[str, list[types.Tool] | None]:
            try:
                return name, await self._b.launcher.tools(name)
            except BrokerError as exc:
                logger.warning("catalog: %s", exc.message)
                return name, None

        out: dict[str, list[types.Tool]] = {}
        for name, tools in await asyncio.gather(*(one(n) for n in names)):
            if tools is None:
                continue
            allowed = [t for t in tools if self._b.policy.may_call(role, name, t.name)]
            if allowed:
                out[name] = allowed
        return out

    async def catalog_text(self, role: str | None, budget_tokens: int | None = None) -> str:
        """The tools of servers in meta-tools mode and the role's skills (`render_catalog`),
        then what is not a tool — resources, templates, prompts — and which servers are
        passthrough (`catalog.resource_lines`, at most a third of the budget)."""
        budget_tokens = budget_tokens or self._b.config.catalog.budget_tokens
        tbs = await self.tools_by_server(role)
        seen = await resources_prompts.visible(self._b, role)
        items = {
            name: ServerItems(
                resources=c.resources or (),
                templates=c.templates or (),
                prompts=c.prompts or (),
                exposed=self._b.exposure.kinds(name, role),
            )
            for name, c in seen.content.items()
        }
        for name in tbs:
            expose = self._b.exposure.kinds(name, role)
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
        if not meta and extra and text.startswith(NO_TOOLS):
            # every tool the role may use is a passthrough tool (named in `extra`)
            text = text[len(NO_TOOLS) :].lstrip("\n")
        return "\n".join(part for part in (text, extra) if part)

    async def tools_by_server_within(
        self, role: str | None, wait: float, *, start: bool = True
    ) -> dict[str, list[types.Tool] | None]:
        """``tools_by_server``, waiting at most ``wait`` seconds for servers never listed: those
        still starting map to None (named without their tools) and go on listing in the
        background, so the next reader has them. ``start=False``: servers never listed are
        not started here (None at once; ``list_unlisted`` starts them later)."""
        launcher, policy = self._b.launcher, self._b.policy
        names = [n for n in launcher.entries if policy.may_see_server(role, n)]
        # the last listing (memory, then the on-disk cache), read here rather than in a task
        # each: a wait of 0 must not race the tasks that would only have read it
        known = {n: launcher.known_tools(n) for n in names}
        tasks = {
            n: asyncio.ensure_future(launcher.tools(n)) for n in names if known[n] is None and start
        }
        if tasks:
            await asyncio.wait(tasks.values(), timeout=wait)
        out: dict[str, list[types.Tool] | None] = {}
        for name in names:
            tools = known[name]
            if tools is None:
                task = tasks.get(name)
                if task is None or not task.done():
                    if task is not None:
                        task.add_done_callback(_quiet)
                    out[name] = None
                    continue
                if task.exception() is not None:
                    logger.warning("catalog: %s", task.exception())
                    continue
                tools = task.result()
            allowed = [t for t in tools if policy.may_call(role, name, t.name)]
            if allowed:
                out[name] = allowed
        return out

    async def list_unlisted(
        self, role: str | None, on_listed: Callable[[bool], Awaitable[None]] | None = None
    ) -> list[str]:
        """Start and list the servers ``role`` may see whose tools were never listed (a first
        start answered without them; run in the background): their lists reach the on-disk
        cache, so the next start's catalog names their tools. When that changes what the
        connection is listed directly (``expose: auto``), the fronts are told
        ``tools/list_changed``. ``on_listed(changed)`` runs after each listing (``changed``:
        the fronts were just told). Returns once each has listed or failed: the servers
        tried."""
        launcher = self._b.launcher
        names = [
            n
            for n in launcher.entries
            if self._b.policy.may_see_server(role, n) and launcher.known_tools(n) is None
        ]
        if not names:
            return []
        seen = [self._b.exposure.exposed_for(role)]

        async def one(name: str) -> None:
            try:
                await launcher.tools(name)
            except Exception:  # noqa: BLE001 - the launcher logged why; a call reports it
                return
            now = self._b.exposure.exposed_for(role)
            changed = now != seen[0]
            if changed:
                seen[0] = now
                self._b.catalog_generation += 1
                await self._b.front_sessions.notify("tools")
            if on_listed is not None:
                await on_listed(changed)

        await asyncio.gather(*(one(n) for n in names))
        return names

    async def skills(self, role: str | None) -> list[SkillRecord]:
        """The skills ``role`` may see (read in a thread: the registry may re-read files)."""
        records = await asyncio.to_thread(self._b.intents.skill_records)
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
        decision = self._b.policy.check(role, server, tool)
        if not decision and ".read_only:" in decision.rule and server in self._b.launcher.entries:
            # judged by its name: the server's own annotations, once listed, decide
            await self._b.launcher.tools(server)
            decision = self._b.policy.check(role, server, tool)
        if not decision:
            raise AccessDenied(
                f"role {role!r} may not use {server}/{tool}: denied by {decision.rule}",
                decision.rule,
            )
        if server not in self._b.launcher.entries:
            visible = sorted(
                n for n in self._b.launcher.entries if self._b.policy.may_see_server(role, n)
            )
            raise NotFound(
                f"no server named {server!r} among those role {role!r} may use "
                f"({', '.join(visible) or 'none'})"
            )
        tools = await self._b.launcher.tools(server)
        for t in tools:
            if t.name == tool:
                if self._b.policy.is_read_only(role):
                    # decided by name before the server was listed; now by its annotations
                    decision = self._b.policy.check(role, server, tool)
                    if not decision:
                        raise AccessDenied(
                            f"role {role!r} may not use {server}/{tool}: denied by {decision.rule}",
                            decision.rule,
                        )
                return t
        allowed = [t.name for t in tools if self._b.policy.may_call(role, server, t.name)]
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

    def servers_status(self) -> list[ServerStatus]:
        out = []
        for name, e in sorted(self._b.launcher.entries.items()):
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
        for name, c in sorted(self._b.config.servers.items()):
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

    def known_tools(self) -> dict[str, list[str] | None]:
        """Tool names per server as far as they are known without starting anything (the last
        listing, in memory or on disk); None for a server never listed."""
        out: dict[str, list[str] | None] = {}
        cache = self._b.launcher.tool_cache
        for name, e in self._b.launcher.entries.items():
            tools = e.tools
            if tools is None and cache is not None:
                try:
                    tools = cache.load(name, e.config)
                except Exception:  # noqa: BLE001 - unknown is a fine answer
                    tools = None
            out[name] = [t.name for t in tools] if tools is not None else None
        return out


def _quiet(task: asyncio.Future[Any]) -> None:
    """Retrieve a background listing's outcome (a failure is the launcher's to report)."""
    if not task.cancelled():
        task.exception()
