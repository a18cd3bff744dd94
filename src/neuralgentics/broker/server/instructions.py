"""The role's catalog in the broker's MCP ``instructions``: no catalog round trip.

OpenCode (1.18) puts every MCP server's ``instructions`` from ``initialize`` into the system
prompt of every agent (read in its source; docs/opencode.md). With the compact catalog there, the agent
can call ``mcp_router_call`` first; ``get_tool_list`` stays for a refresh after
``tools/list_changed`` (the instructions are only read at ``initialize``).

Instructions are sent once per connection, at ``initialize``, and the SDK asks the ``Server``
for them synchronously. So the text is prepared before (``prepare``: ``broker stdio`` before
it serves; the /mcp front when an ``initialize`` request arrives) for the connection's role,
and ``BrokerServer.instructions`` reads the prepared text of the role in ``CONNECTION_ROLE``
— a context variable the front sets, which the SDK's session task inherits (it is started
from the request that opened the session).
"""

from __future__ import annotations

import asyncio
import contextvars
from pathlib import Path
from typing import Any

from mcp.server.lowlevel import Server

from neuralgentics.broker.catalog import count_tokens, render_catalog
from neuralgentics.broker.catalog.render import SKILLS_HEAD
from neuralgentics.broker.service import Broker
from neuralgentics.token_counts import load_counts, save_counts, warm_encoding

# What the broker's instructions always say (also when no catalog can be given).
GUIDE = (
    "Tools of other MCP servers are reached through this broker: mcp_router_call(server, tool, "
    "arguments) calls one, describe_tool(server, tool) shows its arguments, find_tool(intent) "
    "searches them, get_tool_list lists them again."
)
NO_ROLE = " This connection has no role yet: get_tool_list shows what you may use."
# A connection without a role (the owner's, with no default_role: OpenCode's one connection,
# whose calls each carry the calling agent's role) is shown what some role may use.
ANY_ROLE = "Your agent's role may use some of (each call is checked against it):"

# Seconds `initialize` waits for servers never listed when `catalog.list_wait` is unset:
# `broker serve`'s (a daemon: its first connection comes well after its start). `broker stdio`
# passes 0: it is started with every session and its client waits for it (stdio.py).
DEFAULT_LIST_WAIT = 3.0

_UNSET = object()
# The role of the connection being served (set by the front before the SDK sees a request).
CONNECTION_ROLE: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "neuralgentics_connection_role", default=_UNSET
)


def token_counts_path(broker: Broker) -> Path:
    """Where a broker's fronts remember their token counts between starts."""
    return broker.settings.home / "broker" / "token-counts.json"


class Instructions:
    """The instructions text per role, prepared ahead of ``initialize``; forgotten when the
    broker's tools or config change (then prepared again for the next connection).

    Rendering counts tokens. With ``counts`` (``<home>/broker/token-counts.json``) the counts
    of the last start are remembered and the new ones saved after each render, so a start
    rendering the catalog it rendered last time never loads the tokenizer
    (``token_counts.py``); when that file holds nothing (the first start in a home) the
    tokenizer is loaded on a thread at once, while the servers list their tools."""

    def __init__(
        self, broker: Broker, counts: Path | None = None, *, list_wait: float = DEFAULT_LIST_WAIT
    ) -> None:
        self.broker = broker
        self._counts = counts
        # the front's wait for never-listed servers when `catalog.list_wait` is unset; 0: they
        # are not started here (the front starts them after its first answers)
        self._list_wait = list_wait
        if counts is not None and not load_counts(counts):
            if broker.config.catalog.in_instructions and broker.config.servers:
                warm_encoding()
        self._texts: dict[str | None, str] = {}
        # the last text prepared per role, complete or not: what initialize answers
        self._latest: dict[str | None, str] = {}
        self._generation = -1

    def _current(self) -> int:
        return self.broker.catalog_generation

    async def prepare(self, role: str | None) -> str:
        if self._generation != self._current():
            self._texts.clear()  # tools or config changed since: render again
            self._generation = self._current()
        text = self._texts.get(role)
        if text is None:
            generation = self._generation
            text, complete = await self.render(role)
            if self._counts is not None:
                save_counts(self._counts)  # nothing new: no write
            # a server still listing its tools is named without them: try again next time
            if complete and generation == self._current():
                self._texts[role] = text
            self._latest[role] = text
        return text

    def list_wait(self) -> float:
        """Seconds a render waits for servers never listed (``catalog.list_wait``, else the
        front's default)."""
        wait = self.broker.config.catalog.list_wait
        return self._list_wait if wait is None else wait

    async def _listed_within(self, role: str | None) -> dict[str, list[Any] | None]:
        wait = self.list_wait()
        return await self.broker.tools_by_server_within(role, wait, start=wait > 0)

    async def render(self, role: str | None) -> tuple[str, bool]:
        """(text, whether every server's tools were known)."""
        cfg = self.broker.config.catalog
        # Servers whose tools the connection is listed directly are not in the catalog.
        exposed = self.broker.exposure.exposed_for(role)
        brokered = bool(self.broker.exposure.brokered(role))
        if not cfg.in_instructions and brokered:
            return GUIDE, True
        if role is None:
            roles = sorted(self.broker.config.roles)
            if not roles:
                return (GUIDE + NO_ROLE if brokered else ""), True
            tbs, skills = await self._union(roles)
            header = f"{GUIDE}\n{ANY_ROLE}"
        else:
            tbs = await self._listed_within(role)
            skills = await self.broker.skills(role)
            header = f"{GUIDE}\nRole {role} may use:"
        # decided again: listing the servers above may have told their tools' costs
        exposed = self.broker.exposure.exposed_for(role)
        brokered = bool(self.broker.exposure.brokered(role))
        tbs = {n: t for n, t in tbs.items() if n not in exposed}
        if not brokered:
            # Every tool is listed as it is: no meta-tools to explain, no catalog; only the
            # role's skills, read with describe_tool (kept listed for them:
            # handlers.meta_tools_for).
            if not skills:
                return "", True
            return f"{SKILLS_HEAD}: {', '.join(sk.id for sk in skills)}", True
        summaries = {n: s for n, s in self.broker.summaries(None).items() if n in tbs}
        view = render_catalog(
            tbs,
            summaries,
            budget_tokens=cfg.instructions_budget_tokens,
            skills=skills,
            header=header,
            # in every request: skills by name (get_tool_list describes them)
            describe_skills=False,
        )
        return view.text, all(t is not None for t in tbs.values())

    async def _union(self, roles: list[str]) -> tuple[dict[str, list[Any] | None], list[Any]]:
        """What any of ``roles`` may use: each server's tools some role may call, and the
        skills some role may see (each once, in the config's order)."""
        per_role = await asyncio.gather(*(self._listed_within(r) for r in roles))
        tbs: dict[str, list[Any] | None] = {}
        for listing in per_role:
            for server, tools in listing.items():
                if tools is None:
                    tbs.setdefault(server, None)
                    continue
                have = tbs.get(server) or []
                names = {t.name for t in have}
                tbs[server] = have + [t for t in tools if t.name not in names]
        skills: dict[str, Any] = {}
        for r in roles:
            for record in await self.broker.skills(r):
                skills.setdefault(record.id, record)
        order = list(self.broker.launcher.entries)
        return {n: tbs[n] for n in order if n in tbs}, list(skills.values())

    def text_for(self, role: Any) -> str:
        """What ``initialize`` answers: the prepared text, or the guide alone."""
        if role is _UNSET:
            return GUIDE
        return self._latest.get(role, GUIDE + NO_ROLE if role is None else GUIDE)

    def tokens(self, role: str | None) -> int:
        return count_tokens(self._latest.get(role, GUIDE))


class BrokerServer(Server[Any]):
    """The SDK ``Server`` whose ``instructions`` are the connection's role's catalog."""

    def __init__(self, *args: Any, instructions_source: Instructions, **kwargs: Any) -> None:
        self._source = instructions_source
        super().__init__(*args, **kwargs)

    @property
    def instructions(self) -> str | None:
        return self._source.text_for(CONNECTION_ROLE.get()) or None

    @instructions.setter
    def instructions(self, value: str | None) -> None:
        pass  # always the source's (Server.__init__ assigns the attribute)
