"""One import, start to end: the library call behind ``broker import`` (and the hint
``opencode install`` prints when it finds servers to import)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from neuralgentics.broker.config import ConfigError, load_config, save_config
from neuralgentics.broker.importer.plan import (
    Candidate,
    Plan,
    Removal,
    apply_import,
    plan_import,
    remove_from_opencode,
)
from neuralgentics.broker.importer.sources import SourceError, read_source
from neuralgentics.broker.roles import edit_file, grant

if TYPE_CHECKING:  # the catalog loads the MCP SDK (~1.5 s): only an applied import lists tools
    from neuralgentics.broker.catalog.cache import ToolListCache
    from neuralgentics.broker.catalog.fetch import Listed


@dataclass
class Outcome:
    plan: Plan
    applied: bool = False
    added: list[str] = field(default_factory=list)
    listed: list[Listed] = field(default_factory=list)
    granted: dict[str, list[str]] = field(default_factory=dict)
    removed: dict[Path, Removal] = field(default_factory=dict)
    # sources left as they are by --remove-from-source, and why
    not_removed: dict[Path, str] = field(default_factory=dict)


def run_import(
    config_path: Path,
    paths: list[Path],
    *,
    project: Path,
    env: Mapping[str, str],
    apply: bool = False,
    replace: bool = False,
    remove_from_source: bool = False,
    grant_roles: list[str] | None = None,
    tool_cache: ToolListCache | None = None,
    list_timeout: float = 60.0,
    gateway: str | None = None,
) -> Outcome:
    """Plan the import of ``paths``; with ``apply``, write it (config saved atomically; each
    new server listed into ``tool_cache`` when given; granted to ``grant_roles``; taken out of
    opencode.json with ``remove_from_source``). Bad input raises ``ConfigError`` /
    ``SourceError`` before anything is written. ``env``: the environment the import runs in
    (which ``${VAR}`` are set; whether an entry may leave opencode.json); ``gateway``: the egress
    gateway listing an HTTP server goes through."""
    cfg = load_config(config_path, missing_ok=True)
    for role in grant_roles or ():
        if role not in cfg.roles:
            raise ConfigError(
                f"--grant {role}: no such role (roles: {', '.join(sorted(cfg.roles)) or 'none'}; "
                f"add it: `neuralgentics broker role add {role}`)"
            )
    plan = plan_import(cfg, [read_source(p, project) for p in paths], env)
    out = Outcome(plan)
    if not apply:
        return out
    out.applied = True
    adding = plan.to_add(replace)
    if adding:
        save_config(apply_import(cfg, plan, replace=replace), config_path)
        out.added = [c.name for c in adding]
        if tool_cache is not None:
            from neuralgentics.broker.catalog.fetch import refresh_one

            servers = load_config(config_path).servers
            out.listed = [
                refresh_one(n, servers[n], tool_cache, list_timeout, gateway) for n in out.added
            ]
    imported = plan.imported(replace)
    if grant_roles and imported:
        rules = [f"{c.name}/*" for c in imported]
        for role in grant_roles:
            edit_file(config_path, functools.partial(grant, name=role, rules=rules))
            out.granted[role] = rules
    if remove_from_source:
        _remove(imported, out)
    return out


def _remove(imported: list[Candidate], out: Outcome) -> None:
    by_file: dict[Path, list[Candidate]] = {}
    for c in imported:
        by_file.setdefault(c.source.path, []).append(c)
    for source, cands in by_file.items():
        if cands[0].source.kind != "opencode":
            out.not_removed[source] = "not an opencode.json (only those are edited)"
            continue
        try:
            out.removed[source] = remove_from_opencode(source, cands)
        except SourceError as exc:
            out.not_removed[source] = str(exc)
