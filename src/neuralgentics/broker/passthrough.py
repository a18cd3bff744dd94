"""Passthrough: the tools of servers with ``expose: tools`` (or ``auto``, when cheaper:
`broker.exposure`) listed on the broker's own
``tools/list`` beside the meta-tools, as ``<server>_<tool>`` (`broker.namespace`).

Listed only for what the connection's role may call, called through ``Broker.call`` like
``mcp_router_call`` (same access check, schema check, audit, direct pipe), so exposing a
server changes how its tools are found, never who may use them. The role is the
connection's (``--role``, the HTTP credential or header, else ``default_role``): ``tools/list``
has no per-call role, and a name stamped by the OpenCode plugin applies to the meta-tools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mcp.types as types

from neuralgentics.broker.errors import BrokerError
from neuralgentics.broker.exposure import trimmed_tool
from neuralgentics.broker.namespace import NameTable

if TYPE_CHECKING:
    from neuralgentics.broker.service import Broker

# The broker's own tools (server/handlers.py, META_NAMES; a test keeps the two equal): a
# passthrough name never shadows one (`get` + `tool_list` would).
RESERVED = ("get_tool_list", "mcp_router_call", "describe_tool", "find_tool")


class Passthrough:
    """The passthrough tools of each role, rebuilt when a listing or the policy changes."""

    def __init__(self, broker: Broker) -> None:
        self._broker = broker
        self._reserved = RESERVED
        # role -> (what it was built from, kept alive so ids stay unique; table; tools)
        self._cache: dict[str, tuple[tuple[Any, ...], NameTable, list[types.Tool]]] = {}

    def any(self) -> bool:
        """True when some server exposes its tools (else tools/list is the meta-tools alone)."""
        return bool(self._broker.exposure.exposed())

    def _exposed(self) -> list[str]:
        return sorted(self._broker.exposure.exposed())

    async def listing(self, role: str | None) -> tuple[NameTable, list[types.Tool]]:
        broker = self._broker
        if role is None or not broker.policy.has_role(role):
            return NameTable(), []  # default deny: nothing to list or call
        servers = [s for s in self._exposed() if broker.policy.may_see_server(role, s)]
        tools: dict[str, list[types.Tool]] = {}
        for server in servers:
            try:
                tools[server] = await broker.launcher.tools(server)
            except BrokerError:
                continue  # cannot start: listed again once it can
        # The same listing objects and policy give the same table: keep it.
        stamp = (broker.policy, tuple((s, t) for s, t in tools.items()))
        cached = self._cache.get(role)
        if cached is not None and _same(cached[0], stamp):
            return cached[1], cached[2]
        allowed = {
            s: [t for t in ts if broker.policy.may_call(role, s, t.name)] for s, ts in tools.items()
        }
        table = NameTable.build(
            ((s, t.name) for s, ts in allowed.items() for t in ts), reserved=self._reserved
        )
        listed = []
        for s, ts in allowed.items():
            for t in ts:
                public = table.public(s, t.name)
                if public is not None:
                    # pydantic titles and the like cost tokens and say nothing (exposure.py)
                    listed.append(trimmed_tool(t).model_copy(update={"name": public}))
        self._cache[role] = (stamp, table, listed)
        return table, listed

    async def resolve(self, role: str | None, name: str) -> tuple[str, str] | None:
        """(server, tool) of a passthrough name the role was offered, or None."""
        if not self._exposed():
            return None
        table, _ = await self.listing(role)
        return table.resolve(name)

    async def resolve_denied(self, name: str) -> tuple[str, str] | None:
        """(server, tool) of a passthrough name as it would be listed to a role allowed every
        exposed tool: a call of a tool its role was not listed is refused by ``Broker.call``'s
        access check (and audited), not answered "unknown tool"."""
        servers = self._exposed()
        if not servers:
            return None
        pairs: list[tuple[str, str]] = []
        for server in servers:
            try:
                pairs += [(server, t.name) for t in await self._broker.launcher.tools(server)]
            except BrokerError:
                continue
        return NameTable.build(pairs, reserved=self._reserved).resolve(name)


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Built from the very same policy object and listing objects (identity, not equality:
    comparing every tool would cost more than rebuilding)."""
    if a[0] is not b[0] or len(a[1]) != len(b[1]):
        return False
    return all(x[0] == y[0] and x[1] is y[1] for x, y in zip(a[1], b[1], strict=True))
