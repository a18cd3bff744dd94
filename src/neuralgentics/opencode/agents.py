"""The orchestrator's roster and routing matrix, rendered as OpenCode agents and permissions."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from neuralgentics.opencode.models import ModelTiers

# OpenCode's own agents: a file with one of these names would replace the built-in.
OPENCODE_BUILTIN_AGENTS = frozenset(
    {"build", "plan", "general", "explore", "compaction", "title", "summary"}
)

# What each role may do. Read-only roles cannot edit; the orchestrator delegates, never edits.
_ROLE_ACCESS: dict[str, dict[str, Any]] = {
    "orchestrator": {
        "tools": {"write": False, "edit": False, "patch": False},
        "permission": {"edit": "deny", "bash": "deny"},
    },
    "architect": {
        "tools": {"write": False, "edit": False, "patch": False},
        "permission": {"edit": "deny", "bash": "ask"},
    },
    "reviewer": {
        "tools": {"write": False, "edit": False, "patch": False},
        "permission": {"edit": "deny", "bash": "ask"},
    },
    "explorer": {
        "tools": {"write": False, "edit": False, "patch": False},
        "permission": {"edit": "deny", "bash": "ask"},
    },
    "coder": {"tools": {}, "permission": {"edit": "allow", "bash": "allow"}},
    "tester": {"tools": {}, "permission": {"edit": "allow", "bash": "allow"}},
    "linter": {"tools": {}, "permission": {"edit": "allow", "bash": "allow"}},
    "writer": {"tools": {}, "permission": {"edit": "allow", "bash": "ask"}},
    "git": {
        "tools": {"write": False, "edit": False, "patch": False},
        "permission": {"edit": "deny", "bash": "allow"},
    },
}
_DEFAULT_ACCESS: dict[str, Any] = {"tools": {}, "permission": {"edit": "ask", "bash": "ask"}}


@dataclass(frozen=True)
class AgentFile:
    name: str
    text: str


@dataclass(frozen=True)
class Roster:
    agents: dict[str, dict[str, str]]  # name -> {purpose, mode, tier}
    task_types: dict[str, dict[str, Any]]  # id -> {label, primary, forbidden, verify_with}


def load_roster(project_dir: Path | None) -> Roster:
    """The merged roster and matrix, through the orchestrator's own loader."""
    from neuralgentics.orchestrator import load_config

    cfg = load_config(project_dir=project_dir)
    return Roster(
        agents={
            n: {"purpose": a.purpose, "mode": a.mode, "tier": a.model}
            for n, a in cfg.agents.items()
        },
        task_types={
            t.id: {
                "label": t.label,
                "primary": t.primary,
                "forbidden": list(t.forbidden),
                "verify_with": list(t.verify_with),
            }
            for t in cfg.task_types.values()
        },
    )


def is_read_only(name: str) -> bool:
    """An agent that may neither edit files nor run commands freely (its broker role gets no
    writing tools either). `git` edits no file but runs git: not read-only."""
    permission = _ROLE_ACCESS.get(name, _DEFAULT_ACCESS)["permission"]
    return permission.get("edit") == "deny" and permission.get("bash") != "allow"


def routed_agents(roster: Roster) -> list[str]:
    """Subagents some task type may send work to: as doer or verifier, or as an agent it does
    not forbid (OpenCode's `explore` for file finding), and the fallback `general` (for text no
    type recognises), in roster order."""
    from neuralgentics.orchestrator import FALLBACK_AGENT

    wanted: set[str] = {FALLBACK_AGENT}
    for t in roster.task_types.values():
        wanted.add(t["primary"])
        wanted.update(t["verify_with"])
        wanted.update(n for n in roster.agents if n not in t["forbidden"])
    return [n for n in roster.agents if n in wanted and roster.agents[n]["mode"] != "primary"]


def primary_agents(roster: Roster) -> list[str]:
    return [n for n, a in roster.agents.items() if a["mode"] == "primary"]


def task_permission(roster: Roster) -> dict[str, str]:
    """`permission.task` for a primary agent: deny by default, allow only routed agents.

    OpenCode applies the last matching rule, so the catch-all comes first. Per-task-type
    rules (coder may implement but not design) need the task text: the plugin enforces those.
    """
    rules = {"*": "deny"}
    for name in routed_agents(roster):
        rules[name] = "allow"
    return rules


def render_agent(
    name: str, spec: dict[str, str], roster: Roster, model: str | None = None
) -> AgentFile:
    """The agent's .md file. ``model`` ("provider/model", its tier's) goes into the frontmatter;
    None leaves it out, so OpenCode's default model runs it."""
    access = _ROLE_ACCESS.get(name, _DEFAULT_ACCESS)
    takes = [t["label"] for t in roster.task_types.values() if t["primary"] == name]
    verifies = [t["label"] for t in roster.task_types.values() if name in t["verify_with"]]
    front: dict[str, Any] = {"description": spec["purpose"], "mode": spec["mode"]}
    if model:
        front["model"] = model
    if access["tools"]:
        front["tools"] = dict(access["tools"])
    front["permission"] = dict(access["permission"])
    lines = [f"You are the {name} agent of Neuralgentics. {spec['purpose']}", ""]
    if takes:
        lines.append("You take these kinds of task: " + ", ".join(takes) + ".")
    if verifies:
        lines.append("You verify the results of: " + ", ".join(verifies) + ".")
        lines.append(
            "When you verify another agent's result, end your answer with `VERDICT: pass` or "
            "`VERDICT: fail: <why>`."
        )
    if spec["mode"] == "primary":
        lines.append(
            "Delegate each piece of work with the task tool to the agent the routing matrix names; "
            "a delegation to the wrong agent is refused with the agent to use instead."
        )
    lines.append(
        "External tools are reached through the `neuralgentics` MCP server: list them with "
        "get_tool_list, call them with mcp_router_call."
    )
    body = "\n".join(lines) + "\n"
    head = yaml.safe_dump(front, sort_keys=False, allow_unicode=True)
    return AgentFile(name=name, text=f"---\n{head}---\n\n{body}")


def agent_files(roster: Roster, tiers: ModelTiers | None = None) -> list[AgentFile]:
    tiers = tiers or ModelTiers()
    return [
        render_agent(n, s, roster, tiers.model_for(s.get("tier", "")))
        for n, s in roster.agents.items()
        if n not in OPENCODE_BUILTIN_AGENTS
    ]
