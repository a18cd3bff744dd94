"""Which servers' tools the broker lists directly (passthrough) and which stay behind the
catalog and the meta-tools: ``expose: auto`` (the default) decides by token cost.

Every request an agent makes carries the tool definitions it is offered. A server listed
directly costs its tools' definitions (`catalog.schemas.tool_schema_tokens`, as a client
hands them to a model, with `trim_schema` applied); a brokered one costs its catalog entry in
the instructions, and all brokered servers together share the meta-tools' definitions and the
guide sentence. Brokering is worth it for a server whose tools cost more than its catalog
entry, and only once the meta-tools are paid for: so the cheapest split is either every auto
server listed directly (no meta-tools at all), or every auto server whose tools cost more than
its catalog entry brokered (the rest listed directly) — whichever costs fewer tokens. A server
whose tools were never listed stays brokered (named in the catalog; its cost is unknown), and
an explicit ``expose:`` in broker.yaml always wins (``tools``: listed directly; ``none`` or
only resources/prompts: brokered, which also pays for the meta-tools).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp.types as types

from neuralgentics.broker.catalog import render_catalog
from neuralgentics.broker.catalog.schemas import tool_schema_tokens
from neuralgentics.token_counts import count_json_tokens, count_tokens

if TYPE_CHECKING:
    from neuralgentics.broker.service import Broker

# Keys of a JSON-schema object whose values are schemas (recursed into) or maps of them.
_SUBSCHEMA = (
    *("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then"),
    *("else", "additionalItems", "unevaluatedItems", "unevaluatedProperties"),
)
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


def trim_schema(schema: Any) -> Any:
    """``schema`` without what changes no meaning to a model or a validator: pydantic's
    ``title`` annotations (a schema's own title, never a property *named* title) and the
    top-level ``$schema`` dialect URI. A copy; the input is left as it is."""
    out = _trim(copy.deepcopy(schema))
    if isinstance(out, dict):
        out.pop("$schema", None)
    return out


def _trim(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    if isinstance(node.get("title"), str):
        del node["title"]
    for key in _SUBSCHEMA:
        if key in node:
            node[key] = _trim(node[key])
    for key in _SCHEMA_LISTS:
        if isinstance(node.get(key), list):
            node[key] = [_trim(s) for s in node[key]]
    for key in _SCHEMA_MAPS:
        if isinstance(node.get(key), dict):
            node[key] = {name: _trim(s) for name, s in node[key].items()}
    return node


def trimmed_tool(tool: types.Tool) -> types.Tool:
    return tool.model_copy(update={"input_schema": trim_schema(tool.input_schema)})


@dataclass(frozen=True)
class ServerCost:
    """Tokens one server costs an agent's every request, listed directly or brokered."""

    direct: int | None  # its tools' definitions (None: never listed, unknown)
    catalog: int  # its catalog entry in the instructions
    auto: bool = True  # `expose: auto`; else the config decides
    tools_exposed: bool = False  # `expose: tools` (only read when not auto)


def decide(costs: Mapping[str, ServerCost], overhead: int) -> frozenset[str]:
    """The servers whose tools are listed directly. ``overhead``: what brokering anything
    costs once (the meta-tools' definitions and the guide sentence)."""
    exposed = {n for n, c in costs.items() if not c.auto and c.tools_exposed}
    fixed = {n for n, c in costs.items() if not c.auto and not c.tools_exposed}
    unknown = {n for n, c in costs.items() if c.auto and c.direct is None}
    known = {n: c for n, c in costs.items() if c.auto and c.direct is not None}
    # Once the meta-tools are paid for, each server goes where it is cheaper.
    cheaper_direct = {n for n, c in known.items() if (c.direct or 0) <= c.catalog}
    split = exposed | cheaper_direct
    if fixed or unknown:
        return frozenset(split)  # the meta-tools are needed anyway
    all_direct = sum(c.direct or 0 for c in known.values())
    brokered = [c for n, c in known.items() if n not in cheaper_direct]
    split_cost = (
        overhead
        + sum(c.catalog for c in brokered)
        + sum(known[n].direct or 0 for n in cheaper_direct)
    )
    if not brokered or all_direct <= split_cost:
        return frozenset(exposed | set(known))
    return frozenset(split)


def direct_cost(server: str, tools: Sequence[types.Tool]) -> int:
    return sum(tool_schema_tokens(server, trimmed_tool(t)) for t in tools)


def catalog_cost(server: str, tools: Sequence[types.Tool], summary: str) -> int:
    """The server's lines in the catalog (rendered alone, the header not counted)."""
    alone = render_catalog({server: tools}, {server: summary} if summary else {}, header="x")
    return max(1, count_tokens(alone.text) - count_tokens("x"))


def overhead_cost(broker_name: str = "neuralgentics") -> int:
    """The meta-tools' definitions (as the client names them) and the guide sentence."""
    from neuralgentics.broker.server.handlers import META_TOOLS
    from neuralgentics.broker.server.instructions import GUIDE

    defs = [
        {
            "type": "function",
            "function": {
                "name": f"{broker_name}_{t.name}",
                "description": t.description,
                "parameters": t.input_schema,
            },
        }
        for t in META_TOOLS
    ]
    return count_json_tokens(defs) + count_tokens(GUIDE)


class Exposure:
    """The broker's current split, recomputed when a listing or the config changes."""

    def __init__(self, broker: Broker) -> None:
        self._broker = broker
        self._stamp: tuple[Any, ...] | None = None
        self._exposed: frozenset[str] = frozenset()
        self._overhead: int | None = None

    def _key(self) -> tuple[Any, ...]:
        launcher = self._broker.launcher
        return tuple(
            (name, id(e.config), id(launcher.known_tools(name)))
            for name, e in launcher.entries.items()
        )

    def exposed(self) -> frozenset[str]:
        """Servers whose tools are listed directly."""
        key = self._key()
        if key == self._stamp:
            return self._exposed
        launcher = self._broker.launcher
        if self._overhead is None:
            self._overhead = overhead_cost()
        costs: dict[str, ServerCost] = {}
        for name, entry in launcher.entries.items():
            cfg = entry.config
            tools = launcher.known_tools(name)
            if not cfg.auto_expose:
                costs[name] = ServerCost(None, 0, auto=False, tools_exposed="tools" in cfg.exposed)
            elif tools is None:
                costs[name] = ServerCost(None, 0)
            else:
                costs[name] = ServerCost(
                    direct_cost(name, tools), catalog_cost(name, tools, cfg.summary)
                )
        self._exposed = decide(costs, self._overhead)
        self._stamp = key
        return self._exposed

    def exposed_for(self, role: str | None) -> frozenset[str]:
        """Servers whose tools ``role``'s connection sees listed directly. A connection without
        a role is listed no passthrough tool (passthrough.py), so an auto server stays behind
        the catalog for it, reachable through ``mcp_router_call`` with each call's role."""
        if role is None or not self._broker.policy.has_role(role):
            return frozenset(
                n for n, e in self._broker.launcher.entries.items() if "tools" in e.config.exposed
            )
        return self.exposed()

    def kinds(self, server: str, role: str | None) -> frozenset[str]:
        """What of ``server`` is listed directly: the config's kinds, plus tools when decided."""
        entry = self._broker.launcher.entries.get(server)
        kinds = entry.config.exposed if entry is not None else frozenset()
        return kinds | {"tools"} if server in self.exposed_for(role) else kinds

    def brokered(self, role: str | None) -> list[str]:
        """Servers behind the catalog and the meta-tools, for ``role``'s connection."""
        exposed = self.exposed_for(role)
        return [n for n in self._broker.launcher.entries if n not in exposed]
