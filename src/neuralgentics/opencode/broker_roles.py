"""The broker's default policy: a role for every agent a session can run as.

The broker refuses a role it does not know (default deny), and the plugin stamps every broker
call with the calling agent's name. So every agent `opencode install` writes, OpenCode's own
`build`, `plan`, `explore` and `general`, need a role in broker.yaml, or they see no tools at
all. This module writes the missing ones through the broker's role editing
(`neuralgentics.broker.roles`, what `neuralgentics broker role add` uses); a role that exists is
never changed, so the file stays the user's to edit (`neuralgentics broker role list|grant|
revoke`, `broker check`).

The default: every role may use every brokered server (``allow: ["*"]``); the read-only agents
(those that may not edit files: plan, explore, and the roster agents whose permission denies
edits) are ``read_only: true``, so a read-only agent does not write through a tool what it may
not write through OpenCode: a tool writes when its server's annotations say so
(``readOnlyHint``/``destructiveHint``), else when its name does (`broker.access.readonly`);
`broker role show` says which applied. Earlier versions wrote ``deny`` name globs instead, which
missed annotated writers (``memory/add_observations``) and, once the servers were listed,
failed ``broker check`` for every glob no tool matched.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from neuralgentics.broker import (
    BrokerConfig,
    ConfigError,
    RoleConfig,
    add_role,
    load_config,
    save_config,
)

# OpenCode's own agents a session may run as (title/summary/compaction call no tools).
OPENCODE_AGENTS = ("build", "plan", "explore", "general")
OPENCODE_READ_ONLY = frozenset({"plan", "explore"})


def default_role(read_only: bool) -> RoleConfig:
    return RoleConfig(allow=["*"], read_only=read_only)


def agents_needing_roles(roster_read_only: dict[str, bool]) -> dict[str, bool]:
    """name -> read-only, for the roster's agents plus OpenCode's own."""
    out = {name: name in OPENCODE_READ_ONLY for name in OPENCODE_AGENTS}
    for name, read_only in roster_read_only.items():
        out[name] = read_only or name in OPENCODE_READ_ONLY
    return out


def with_default_roles(
    cfg: BrokerConfig, agents: dict[str, bool]
) -> tuple[BrokerConfig, list[str]]:
    """``cfg`` plus a default role for each agent that has none; the names added."""
    missing = [a for a in agents if a not in cfg.roles]
    for name in missing:
        # the broker's own role editing (`broker role add`): the same checks as the CLI's
        role = default_role(agents[name])
        cfg = add_role(cfg, name, role.allow, role.deny, read_only=role.read_only).config
    return cfg, missing


def ensure_default_roles(path: Path, agents: dict[str, bool]) -> list[str]:
    """Add the missing default roles to the broker config file (written atomically, validated
    first). Returns the roles added; raises ConfigError for a file that does not load."""
    cfg = load_config(path, missing_ok=True)
    new, added = with_default_roles(cfg, agents)
    if added:
        save_config(new, path)
    return added


def roles_without_tools(cfg: BrokerConfig, agents: Iterable[str]) -> dict[str, str]:
    """Agents that would see no brokered tool, with why (for `doctor`): no role, or a role whose
    rules match none of the configured servers."""
    from neuralgentics.broker import AccessPolicy

    policy = AccessPolicy(cfg.roles)
    servers = list(cfg.brokered())
    out: dict[str, str] = {}
    for agent in agents:
        if agent not in cfg.roles:
            out[agent] = f"no role {agent!r} in broker.yaml (unknown roles see nothing)"
        elif servers and not any(policy.may_see_server(agent, srv) for srv in servers):
            out[agent] = f"role {agent!r} allows none of the servers ({', '.join(servers)})"
    return out


__all__ = [
    "ConfigError",
    "OPENCODE_AGENTS",
    "agents_needing_roles",
    "default_role",
    "ensure_default_roles",
    "roles_without_tools",
    "with_default_roles",
]
