"""The catalog an agent reads from ``get_tool_list``: one line per server, inside a token budget.

Over budget it degrades in steps, cheapest loss first, and never drops a server:

1. ``full``          summary and every tool name
2. ``grouped``       tool names sharing a first segment folded into brace groups
3. ``no_summaries``  summaries dropped
4. ``truncated``     at most k tool names per server (largest k that fits) and "+N more",
                     with a line that says how to ask for the rest
5. ``names_only``    server names and tool counts

If even (5) does not fit, it is returned anyway with ``over_budget`` set: a server the role
may use is never silently left out.

Skills the role may see (instructions, not tools: ``describe_tool(skill=ID)`` returns one)
come after the servers, one line each with what they are for; their descriptions are the
first thing to go over budget (at ``full`` already), their names never.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from mcp.types import Tool

from neuralgentics.broker.catalog.names import group_names
from neuralgentics.broker.catalog.schemas import tool_schema_tokens
from neuralgentics.broker.catalog.summary import derive_summary
from neuralgentics.broker.config import DEFAULT_BUDGET_TOKENS
from neuralgentics.broker.skillcatalog.records import SkillRecord
from neuralgentics.token_counts import ENCODING_NAME, count_tokens

Level = Literal["full", "grouped", "no_summaries", "truncated", "names_only"]
LEVELS: tuple[Level, ...] = ("full", "grouped", "no_summaries", "truncated", "names_only")

DEFAULT_HEADER = (
    "Tools by server; call with mcp_router_call, see arguments with describe_tool, "
    "search with find_tool."
)
DEFAULT_MORE_HINT = "Not every tool name is shown: find_tool(intent) searches them all."
# For a front whose get_tool_list takes a server (rendered with render_server): pass as more_hint.
SERVER_DETAIL_HINT = (
    "Not every tool name is shown: get_tool_list(server=NAME) lists one server in full, "
    "find_tool(intent) searches them all."
)
NO_TOOLS = "No MCP tools are available to your role (the broker's config grants it none)."
NOT_LISTED = "tools not listed yet (get_tool_list lists them)"


@dataclass(frozen=True)
class CatalogServer:
    """One server's entry: what the role may use there and how it was shown."""

    name: str
    summary: str
    summary_source: Literal["config", "derived", "none"]
    # None: the server's tools/list is not known yet (never started, nothing cached).
    tools: tuple[str, ...] | None
    shown_tools: int
    schema_tokens: int
    line: str


@dataclass(frozen=True)
class CatalogView:
    text: str
    tokens: int
    full_schema_tokens: int
    budget_tokens: int
    level: Level
    over_budget: bool
    servers: tuple[CatalogServer, ...]
    skills: tuple[str, ...] = ()
    encoding: str = ENCODING_NAME
    tool_count: int = field(default=0)

    @property
    def saved_ratio(self) -> float:
        """Fraction of the full schemas' tokens this view saves (0 when there is nothing to save)."""
        if self.full_schema_tokens <= 0:
            return 0.0
        return 1.0 - self.tokens / self.full_schema_tokens

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["saved_ratio"] = round(self.saved_ratio, 4)
        for s in data["servers"]:
            s["tools"] = list(s["tools"]) if s["tools"] is not None else None
        data["skills"] = list(self.skills)
        data["servers"] = list(data["servers"])
        return data


@dataclass
class _Server:
    name: str
    summary: str
    summary_source: Literal["config", "derived", "none"]
    tools: list[str] | None
    schema_tokens: int


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    if text and text[-1] not in ".!?…":
        text += "."
    return text


def _count(n: int) -> str:
    return f"{n} tool" if n == 1 else f"{n} tools"


def _line(s: _Server, level: Level, k: int | None) -> tuple[str, int]:
    """One server's line at a level; returns the line and how many tool names it shows."""
    if s.tools is None:
        summary = f" {s.summary}" if s.summary and level in ("full", "grouped") else ""
        return f"- {s.name}:{summary} {NOT_LISTED}", 0
    names = s.tools
    if not names:
        return f"- {s.name}: no tools", 0
    if level == "names_only":
        return f"- {s.name} ({_count(len(names))})", 0
    if level == "truncated":
        assert k is not None
        shown = names[:k]
        items = group_names(shown)
        more = len(names) - len(shown)
        tail = f" +{more} more" if more else ""
        listed = ", ".join(items)
        sep = ":" if listed else ""
        return f"- {s.name} ({_count(len(names))}){sep} {listed}{tail}".rstrip(), len(shown)
    items = names if level == "full" else group_names(names)
    listed = ", ".join(items)
    if level in ("full", "grouped") and s.summary:
        return f"- {s.name}: {s.summary} Tools: {listed}", len(names)
    return f"- {s.name}: {listed}", len(names)


SKILLS_HEAD = "Skills (instructions, not tools; describe_tool(skill=ID) shows one)"


def _skills_lines(skills: Sequence[SkillRecord], described: bool) -> list[str]:
    from neuralgentics.broker.catalog.summary import first_sentence

    if not described:
        return [f"{SKILLS_HEAD}: {', '.join(sk.id for sk in skills)}"]
    lines = [f"{SKILLS_HEAD}:"]
    for sk in skills:
        what = first_sentence(sk.description or sk.name, 16)
        lines.append(f"- {sk.id}: {what}" if what else f"- {sk.id}")
    return lines


def _compose(
    servers: Sequence[_Server],
    level: Level,
    k: int | None,
    header: str,
    more_hint: str,
    skills: Sequence[SkillRecord],
    described: bool = False,
) -> tuple[str, list[tuple[str, int]]]:
    lines = [_line(s, level, k) for s in servers]
    if not servers:
        parts = [NO_TOOLS]
        if skills:
            parts += _skills_lines(skills, described)
        return "\n".join(parts), lines
    parts = [header] if header else []
    parts.extend(line for line, _ in lines)
    elided = any(
        s.tools is not None and shown < len(s.tools)
        for s, (_, shown) in zip(servers, lines, strict=True)
    )
    if skills:
        parts += _skills_lines(skills, described)
    if elided and more_hint:
        parts.append(more_hint)
    return "\n".join(parts), lines


def render_catalog(
    tools_by_server: Mapping[str, Sequence[Tool] | None],
    summaries: Mapping[str, str] | None = None,
    budget_tokens: int = DEFAULT_BUDGET_TOKENS,
    *,
    skills: Sequence[SkillRecord] = (),
    header: str = DEFAULT_HEADER,
    more_hint: str = DEFAULT_MORE_HINT,
    describe_skills: bool = True,
) -> CatalogView:
    """The role-filtered catalog text and its token accounting.

    ``tools_by_server`` holds only what the caller's role may see; a value of ``None`` means the
    server's tool list is not known yet (it is listed, never hidden). ``summaries`` are the
    configured one-liners; a server without one gets a summary derived from its tools.
    ``describe_skills``: False names the skills without their one-line descriptions.
    """
    if budget_tokens <= 0:
        raise ValueError(f"budget_tokens must be positive (got {budget_tokens})")
    summaries = summaries or {}
    servers: list[_Server] = []
    source: Literal["config", "derived", "none"]
    for name in sorted(tools_by_server):
        tools = tools_by_server[name]
        configured = (summaries.get(name) or "").strip()
        if configured:
            summary, source = _sentence(configured), "config"
        else:
            derived = derive_summary(name, tools or [])
            summary, source = (_sentence(derived), "derived") if derived else ("", "none")
        servers.append(
            _Server(
                name=name,
                summary=summary,
                summary_source=source,
                tools=[t.name for t in tools] if tools is not None else None,
                schema_tokens=sum(tool_schema_tokens(name, t) for t in tools or []),
            )
        )

    lines: list[tuple[str, int]] = []
    text, level, k = "", LEVELS[0], None
    described = False
    if skills and describe_skills:  # the richest view first: every tool and each skill's line
        text, lines = _compose(servers, "full", None, header, more_hint, skills, described=True)
        described = count_tokens(text) <= budget_tokens
    for level in LEVELS:
        if described:
            break
        if level == "truncated":
            # Largest per-server name count that fits; tokens grow with k, so bisect.
            longest = max((len(s.tools or []) for s in servers), default=0)
            lo, hi = 0, longest
            while lo < hi:
                mid = (lo + hi + 1) // 2
                trial, _ = _compose(servers, level, mid, header, more_hint, skills)
                if count_tokens(trial) <= budget_tokens:
                    lo = mid
                else:
                    hi = mid - 1
            k = lo
            if k == 0:
                continue  # nothing but counts fits: that is names_only, said more plainly
        text, lines = _compose(servers, level, k, header, more_hint, skills)
        if count_tokens(text) <= budget_tokens:
            break
    tokens = count_tokens(text)
    entries = tuple(
        CatalogServer(
            name=s.name,
            summary=s.summary,
            summary_source=s.summary_source,
            tools=tuple(s.tools) if s.tools is not None else None,
            shown_tools=shown,
            schema_tokens=s.schema_tokens,
            line=line,
        )
        for s, (line, shown) in zip(servers, lines, strict=True)
    )
    return CatalogView(
        text=text,
        tokens=tokens,
        full_schema_tokens=sum(s.schema_tokens for s in servers),
        budget_tokens=budget_tokens,
        level=level,
        over_budget=tokens > budget_tokens,
        servers=entries,
        skills=tuple(sk.id for sk in skills),
        tool_count=sum(len(s.tools or []) for s in servers),
    )


def render_server(server: str, tools: Sequence[Tool], summary: str = "") -> str:
    """One server in full for ``get_tool_list(server=NAME)``: each tool with its description's
    first sentence and its parameter names (required ones marked), still no schemas."""
    from neuralgentics.broker.catalog.summary import first_sentence

    head = f"{server}: {_sentence(summary)}" if summary else f"{server}:"
    lines = [head.rstrip()]
    for tool in tools:
        props = (tool.input_schema or {}).get("properties") or {}
        required = set((tool.input_schema or {}).get("required") or [])
        params = ", ".join(f"{p}{'' if p in required else '?'}" for p in props)
        desc = first_sentence(tool.description or "", 24)
        lines.append(f"- {tool.name}({params})" + (f": {desc}" if desc else ""))
    return "\n".join(lines)
