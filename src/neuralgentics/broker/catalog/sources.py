"""Where a catalog's tools come from outside a running broker: a tools file, or the broker
config plus the on-disk tool-list cache (never a cold start). Shared by the CLI commands."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mcp.types import Tool

from neuralgentics.broker.access import AccessPolicy
from neuralgentics.broker.catalog.cache import ToolListCache
from neuralgentics.broker.catalog.toolsfile import load_tools_file
from neuralgentics.broker.config import BrokerConfig, ConfigError, default_config_path, load_config
from neuralgentics.config import Settings


@dataclass
class CatalogSource:
    # None for a server whose tools are not cached yet: listed, never hidden.
    tools_by_server: dict[str, list[Tool] | None]
    summaries: dict[str, str]
    role: str | None
    allowed: Callable[[str, str], bool] | None

    def visible(self) -> dict[str, list[Tool] | None]:
        """What ``role`` may see: its allowed tools per server (servers it may not use left out)."""
        if self.allowed is None:
            return dict(self.tools_by_server)
        out: dict[str, list[Tool] | None] = {}
        for server, tools in self.tools_by_server.items():
            if tools is None:
                out[server] = None
                continue
            permitted = [t for t in tools if self.allowed(server, t.name)]
            if permitted:
                out[server] = permitted
        return out

    def known(self) -> dict[str, list[Tool]]:
        return {s: ts for s, ts in self.tools_by_server.items() if ts is not None}


def _policy_for(
    config: BrokerConfig, role: str | None
) -> tuple[str | None, Callable[[str, str], bool] | None, AccessPolicy | None]:
    role = role or config.default_role
    if role is None:
        return None, None, None  # the operator's own view: everything
    if role not in config.roles:
        known = ", ".join(sorted(config.roles)) or "none defined"
        raise ConfigError(f"roles.{role}: no such role in the broker config (roles: {known})")
    policy = AccessPolicy(config.roles)
    return role, (lambda s, t: policy.may_call(role, s, t)), policy


def load_source(
    *,
    settings: Settings,
    tools_file: Path | None = None,
    config_path: Path | None = None,
    role: str | None = None,
    cache: ToolListCache | None = None,
) -> CatalogSource:
    """Tools from ``tools_file`` (roles from the config when ``role`` is given), or else from the
    config's servers and the tool-list cache. Without `config_path`, the default config file
    (``<config dir>/broker.yaml``; missing: empty)."""

    def config() -> BrokerConfig:
        if config_path is not None:
            return load_config(config_path)
        return load_config(default_config_path(settings), missing_ok=True)

    if tools_file is not None:
        tools, summaries = load_tools_file(tools_file)
        allowed = None
        if role is not None:
            role, allowed, _ = _policy_for(config(), role)
        return CatalogSource(dict(tools), summaries, role, allowed)
    loaded = config()
    role, allowed, policy = _policy_for(loaded, role)
    cache = cache or ToolListCache(settings.home / "broker" / "tools")
    servers = loaded.brokered()
    if policy is not None and role is not None:
        servers = {n: c for n, c in servers.items() if policy.may_see_server(role, n)}
    tools_by_server = {name: cache.load(name, cfg) for name, cfg in servers.items()}
    summaries = {name: cfg.summary for name, cfg in servers.items() if cfg.summary}
    return CatalogSource(tools_by_server, summaries, role, allowed)
