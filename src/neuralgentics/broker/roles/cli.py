"""``neuralgentics broker role list|show|add|remove|grant|revoke``: thin over ``broker.roles``.

They edit the config file (atomically; a refused edit writes nothing) and ask a broker
serving on ``NEURALGENTICS_BROKER_PORT`` to reload. Rules are checked against the config's
servers and, where a server's tools have been listed (the on-disk cache), its tools.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from neuralgentics.broker.cli import ConfigOpt
from neuralgentics.exits import fail

if TYPE_CHECKING:
    from neuralgentics.broker.access.policy import Hints
    from neuralgentics.broker.config import BrokerConfig
    from neuralgentics.broker.roles import Edit, KnownTools, RoleView

RoleArg = typer.Argument(..., help="the role's name (see `broker role list`)")

role_app = typer.Typer(
    name="role",
    help="Roles: which servers and tools each agent may use (server/tool globs, deny wins).",
    no_args_is_help=True,
)


def _path(config: Path | None) -> Path:
    from neuralgentics.broker.cli import _config

    return _config(config)[0]


def known_tools(cfg: BrokerConfig) -> dict[str, list[str] | None]:
    """Tool names of the servers already listed (the on-disk cache; nothing is started)."""
    from neuralgentics.broker.roles import known_tools_from_cache
    from neuralgentics.config import get_settings

    return known_tools_from_cache(cfg, get_settings().home / "broker" / "tools")


def tool_hints(cfg: BrokerConfig) -> Hints:
    """The listed tools' annotations (the on-disk cache), for read-only roles."""
    from neuralgentics.broker.roles import tool_hints_from_cache
    from neuralgentics.config import get_settings

    return tool_hints_from_cache(cfg, get_settings().home / "broker" / "tools")


def _load(config: Path | None) -> BrokerConfig:
    from neuralgentics.broker.cli import _load as load
    from neuralgentics.broker.config import ConfigError

    try:
        return load(config)
    except ConfigError as exc:
        fail(exc)


def _print_view(view: RoleView, *, brief: bool = False) -> None:
    flags = " (default role)" if view.default else ""
    typer.echo(f"{view.name}{flags}")
    typer.echo(f"  allow: {', '.join(view.allow) or '-'}")
    typer.echo(f"  deny:  {', '.join(view.deny) or '-'}")
    if view.read_only:
        typer.echo("  read-only: tools that write are denied (their annotations, else their names)")
        if not brief:
            for line in view.read_only_summary():
                typer.echo(f"    {line}")
    if view.tokens:
        typer.echo(f"  tokens: {', '.join(view.tokens)}")
    if not brief:
        if not view.may_use:
            typer.echo("  may use: nothing")
        for server, tools in view.may_use.items():
            listed = "tools not listed yet" if tools is None else ", ".join(tools)
            typer.echo(f"  may use {server}: {listed}")
    for problem in view.problems:
        typer.echo(f"  ! {problem}")


def _edit(config: Path | None, edit: Callable[[BrokerConfig, KnownTools], Edit], name: str) -> None:
    """Apply ``edit(cfg, known) -> Edit`` to the file; print the notes and the role."""
    from neuralgentics.broker.cli import _notify_running_broker
    from neuralgentics.broker.config import ConfigError
    from neuralgentics.broker.roles import edit_file, role_view

    path = _path(config)
    try:
        result = edit_file(path, lambda cfg: edit(cfg, known_tools(cfg)))
    except ConfigError as exc:
        fail(exc)
    for note in result.notes:
        typer.echo(f"note: {note}", err=True)
    if name == "(none)":
        typer.echo(f"default_role unset in {path}: callers that name no role are denied")
    elif result.after is None:
        typer.echo(f"removed role {name} from {path}")
    else:
        _print_view(
            role_view(result.config, name, known_tools(result.config), tool_hints(result.config))
        )
        typer.echo(f"saved {path}")
    _notify_running_broker()


@role_app.command("list")
def list_cmd(
    as_json: bool = typer.Option(False, "--json", help="as JSON, with what each may use"),
    config: Path | None = ConfigOpt,
) -> None:
    """Every role with its rules."""
    from neuralgentics.broker.roles import list_roles

    cfg = _load(config)
    views = list_roles(cfg, known_tools(cfg), tool_hints(cfg))
    if as_json:
        data = {"default_role": cfg.default_role, "roles": [v.to_dict() for v in views]}
        typer.echo(json.dumps(data, indent=1))
        return
    if not views:
        typer.echo(
            "no roles: every call is denied (add one: `neuralgentics broker role add NAME --allow 'SERVER/*'`)"
        )
    for v in views:
        _print_view(v, brief=True)


@role_app.command("show")
def show_cmd(
    name: str = RoleArg,
    as_json: bool = typer.Option(False, "--json", help="as JSON, with what it may use"),
    config: Path | None = ConfigOpt,
) -> None:
    """One role: rules, tokens, and the tools it may use."""
    from neuralgentics.broker.config import ConfigError
    from neuralgentics.broker.roles import role_view

    cfg = _load(config)
    try:
        view = role_view(cfg, name, known_tools(cfg), tool_hints(cfg))
    except ConfigError as exc:
        fail(exc)
    if as_json:
        typer.echo(json.dumps(view.to_dict(), indent=1))
    else:
        _print_view(view)


@role_app.command("add")
def add_cmd(
    name: str = RoleArg,
    allow: list[str] = typer.Option([], "--allow", help="server/tool glob it may use (repeat)"),
    deny: list[str] = typer.Option([], "--deny", help="server/tool glob it may not (repeat; wins)"),
    replace: bool = typer.Option(False, "--replace", help="overwrite an existing role"),
    default: bool = typer.Option(
        False, "--default", help="also the role of callers that name none"
    ),
    read_only: bool = typer.Option(
        False, "--read-only", help="only tools that change nothing (annotations, else names)"
    ),
    config: Path | None = ConfigOpt,
) -> None:
    """Add a role: `role add coder --allow 'time/*' --allow git --deny 'git/git_reset'`."""
    from neuralgentics.broker.roles import add_role

    _edit(
        config,
        lambda cfg, known: add_role(
            cfg,
            name,
            allow,
            deny,
            known=known,
            replace=replace,
            default=default,
            read_only=read_only,
        ),
        name,
    )


@role_app.command("remove")
def remove_cmd(name: str = RoleArg, config: Path | None = ConfigOpt) -> None:
    """Remove a role (refused while a token is bound to it or it is the default role)."""
    from neuralgentics.broker.roles import remove_role

    _edit(config, lambda cfg, known: remove_role(cfg, name), name)


@role_app.command("grant")
def grant_cmd(
    name: str = RoleArg,
    rules: list[str] = typer.Argument(..., help="server/tool globs, e.g. 'time/*' git"),
    deny: bool = typer.Option(False, "--deny", help="add them to the deny list instead"),
    config: Path | None = ConfigOpt,
) -> None:
    """Let a role use more: `role grant coder 'time/*' everything/echo`."""
    from neuralgentics.broker.roles import grant

    _edit(config, lambda cfg, known: grant(cfg, name, rules, deny=deny, known=known), name)


@role_app.command("revoke")
def revoke_cmd(
    name: str = RoleArg,
    rules: list[str] = typer.Argument(..., help="rules to take out, as listed by `role show`"),
    deny: bool = typer.Option(False, "--deny", help="take them out of the deny list"),
    config: Path | None = ConfigOpt,
) -> None:
    """Take rules out of a role's allow list (or, with --deny, its deny list)."""
    from neuralgentics.broker.roles import revoke

    _edit(config, lambda cfg, known: revoke(cfg, name, rules, deny=deny), name)


@role_app.command("default")
def default_cmd(
    name: str | None = typer.Argument(None, help="the role of callers that name none"),
    unset: bool = typer.Option(False, "--unset", help="no default: such callers are denied"),
    config: Path | None = ConfigOpt,
) -> None:
    """Set (or --unset) the role used by callers that name none."""
    from neuralgentics.broker.roles import set_default

    if (name is None) != unset:
        fail("give a role NAME, or --unset")
    _edit(config, lambda cfg, known: set_default(cfg, name), name or "(none)")


def register(broker_app: typer.Typer) -> None:
    broker_app.add_typer(role_app, name="role")
