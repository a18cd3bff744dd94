"""``neuralgentics broker import [FILE…]``: thin over ``broker.importer``.

A dry run unless ``--apply``: it prints what it would add, what it skips and why, and which
``${VAR}`` the broker will need set. With ``--apply`` it writes the broker config atomically,
lists each new server's tools (so the catalog and the role checks know them), grants them to
``--grant`` roles, and with ``--remove-from-source`` takes them out of opencode.json.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from neuralgentics.broker.importer.plan import Candidate, Plan
from neuralgentics.broker.importer.risk import marks, shown
from neuralgentics.exits import fail
from neuralgentics.text import plural

if TYPE_CHECKING:  # run.py lists tools over MCP: the SDK loads when a command needs it
    from neuralgentics.broker.importer.run import Outcome

SIGN = {"new": "+", "same": "=", "conflict": "!", "skipped": "-"}


def _what(c: Candidate) -> list[str]:
    """The entry's whole command (wrapped, never cut) or URL."""
    e = c.converted.entry or {}
    if e.get("transport", "stdio") == "stdio":
        return shown(str(e.get("command", "")), [str(a) for a in e.get("args", [])])
    return [f"{e.get('transport')} {e.get('url')}"]


def _marks(c: Candidate) -> list[str]:
    e = c.converted.entry or {}
    if not e.get("command"):
        return []
    return marks(str(e["command"]), [str(a) for a in e.get("args", [])])


def print_plan(plan: Plan, replace: bool) -> None:
    by_source: dict[Path, list[Candidate]] = {}
    for c in plan.candidates:
        by_source.setdefault(c.source.path, []).append(c)
    for path, cands in by_source.items():
        typer.echo(f"{path} ({cands[0].source.kind}):")
        for c in cands:
            status = "replace" if c.status == "conflict" and replace else c.status
            head = f"  {SIGN[c.status]} {c.name:<20} {status:<8} "
            if c.status not in ("new", "conflict"):
                typer.echo(head + c.reason)
            else:
                command = _what(c)
                typer.echo(head + command[0])
                for more in command[1:]:
                    typer.echo(" " * len(head) + more)
                if c.status == "conflict" and not replace:
                    typer.echo(f"      {c.reason}")
                for mark in _marks(c):
                    typer.echo(f"      CAUTION: {mark}: read the whole command; --apply starts it")
            for note in c.converted.notes:
                typer.echo(f"      note: {note}")
    refs = [(c, s) for c in plan.to_add(replace) for s in c.secrets]
    if refs:
        typer.echo("variables the broker reads from its environment (no secret was copied):")
        for c, s in refs:
            state = "set here" if s.present else "NOT set here"
            typer.echo(f"  ${{{s.variable}}}  {c.name} {s.where}: {s.origin} ({state})")
        missing = sorted({s.variable for _, s in refs if not s.present})
        if missing:
            typer.echo(
                "  export them where the broker runs (the shell that starts `neuralgentics up` "
                f"or OpenCode): {', '.join(missing)}"
            )


def import_cmd(
    files: list[Path] | None = typer.Argument(
        None, help="config files (default: the project's and the user's, those that exist)"
    ),
    apply: bool = typer.Option(False, "--apply", help="write the broker config (default: dry run)"),
    replace: bool = typer.Option(
        False, "--replace", help="replace broker servers of the same name"
    ),
    remove_from_source: bool = typer.Option(
        False,
        "--remove-from-source",
        help="take the imported servers out of opencode.json (so OpenCode does not start them too)",
    ),
    grant: list[str] = typer.Option(
        [], "--grant", help="let this role use the imported servers (repeat)"
    ),
    project: Path = typer.Option(
        Path("."), "--project", help="the project whose files are looked at"
    ),
    no_list: bool = typer.Option(False, "--no-list", help="do not start them to list their tools"),
    timeout: float = typer.Option(60.0, "--timeout", min=1, help="seconds to list one server"),
    config: Path | None = typer.Option(
        None, "--config", "-c", help="broker YAML (default: <config dir>/broker.yaml)"
    ),
) -> None:
    """Import MCP servers from opencode.json, claude_desktop_config.json, .vscode/mcp.json or
    .cursor/mcp.json (a dry run unless --apply)."""
    from neuralgentics.broker.catalog.cache import ToolListCache
    from neuralgentics.broker.cli import _config, _notify_running_broker
    from neuralgentics.broker.config import ConfigError
    from neuralgentics.broker.importer import SourceError, default_paths
    from neuralgentics.broker.importer.run import run_import
    from neuralgentics.config import get_settings

    project = project.resolve()
    env = dict(os.environ)
    paths = list(files) if files else default_paths(project, env)
    if not paths:
        fail(
            f"no MCP client config found (looked in {project} and your user config): name the "
            "file, e.g. `neuralgentics broker import ~/.config/Claude/claude_desktop_config.json`"
        )
    path, _ = _config(config)
    cache = None if no_list else ToolListCache(get_settings().home / "broker" / "tools")
    try:
        out = run_import(
            path,
            paths,
            project=project,
            env=env,
            apply=apply,
            replace=replace,
            remove_from_source=remove_from_source,
            grant_roles=grant,
            tool_cache=cache,
            list_timeout=timeout,
            gateway=get_settings().egress_gateway_url,
        )
    except (SourceError, ConfigError) as exc:
        fail(exc)
    print_outcome(out, path, replace=replace, remove_from_source=remove_from_source)
    if out.applied and (out.added or out.granted):
        _notify_running_broker()


def print_outcome(out: Outcome, path: Path, *, replace: bool, remove_from_source: bool) -> None:
    print_plan(out.plan, replace)
    adding = out.plan.to_add(replace)
    if not out.applied:
        if adding:
            typer.echo(
                f"dry run: nothing written. `--apply` adds {plural(len(adding), 'server')} to {path}"
                + (" and removes them from opencode.json" if remove_from_source else "")
            )
        else:
            typer.echo("nothing to add")
        return
    if out.added:
        typer.echo(f"added {plural(len(out.added), 'server')} to {path}")
    for listed in out.listed:
        if listed.error is None:
            typer.echo(f"  {listed.name}: {listed.tools} tools")
        else:
            typer.echo(f"  {listed.name}: not listed: {listed.error}", err=True)
            for line in listed.stderr_tail:
                typer.echo(f"    {listed.name} stderr: {line}", err=True)
    for role, rules in out.granted.items():
        typer.echo(f"granted {role}: {', '.join(rules)}")
    for source, removal in out.removed.items():
        if removal.removed:
            typer.echo(f"removed from {source}: {', '.join(removal.removed)}")
        for key, why in removal.kept.items():
            typer.echo(f"kept {key} in {source}: {why}", err=True)
    for source, why in out.not_removed.items():
        typer.echo(f"note: {source} left as it is: {why}", err=True)


def register(broker_app: typer.Typer) -> None:
    broker_app.command("import")(import_cmd)
