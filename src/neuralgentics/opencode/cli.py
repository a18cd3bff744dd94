"""Commands of the OpenCode integration: `opencode install|uninstall`, `doctor`, `update`."""

from __future__ import annotations

import os
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

import typer

from neuralgentics.exits import fail
from neuralgentics.text import plural

T = TypeVar("T")

opencode_app = typer.Typer(
    name="opencode",
    help="Install Neuralgentics into OpenCode (plugin, agents, opencode.json) or remove it.",
    no_args_is_help=True,
)


class BrokerChoice(StrEnum):
    stdio = "stdio"
    http = "http"


_PROJECT = typer.Option(
    None, "--project", help="Project directory (default: the current one).", file_okay=False
)
_GLOBAL = typer.Option(False, "--global", help="Install for every project (~/.config/opencode).")


@opencode_app.command("install")
def install_cmd(
    project: Path | None = _PROJECT,
    global_: bool = _GLOBAL,
    broker: BrokerChoice = typer.Option(
        BrokerChoice.stdio,
        "--broker",
        help="stdio: OpenCode starts the broker itself; http: use `neuralgentics up` on 127.0.0.1:8901.",
    ),
    primary_model: str | None = typer.Option(
        None,
        "--primary-model",
        metavar="PROVIDER/MODEL",
        help="Model of the roster's primary-tier agents (default: models.yaml, else OpenCode's default).",
    ),
    secondary_model: str | None = typer.Option(
        None,
        "--secondary-model",
        metavar="PROVIDER/MODEL",
        help="Model of the roster's secondary-tier agents (default: models.yaml, else OpenCode's default).",
    ),
) -> None:
    """Write the plugin, the agent roster and the opencode.json entries (merging, with a backup)."""
    from neuralgentics.config import get_settings
    from neuralgentics.opencode.installer import InstallError, install

    try:
        report = install(
            get_settings(), project, global_, broker.value, primary_model, secondary_model
        )
    except InstallError as exc:
        fail(exc)
    for line in report.lines():
        typer.echo(line)
    typer.echo(
        f"installed into {report.target.home} (undo: neuralgentics opencode uninstall"
        + (" --global" if global_ else f" --project {report.target.project_dir}")
        + ")"
    )
    hint = import_hint(report.target.project_dir or Path.cwd())
    if hint:
        typer.echo(hint)


def import_hint(project: Path) -> str | None:
    """A line offering `broker import` when the project's or the user's MCP client configs
    define servers the broker does not have yet (best effort: a broken file says nothing)."""
    from neuralgentics.broker.config import default_config_path
    from neuralgentics.broker.importer import default_paths
    from neuralgentics.config import get_settings

    env = dict(os.environ)
    try:
        paths = default_paths(project, env)
        if not paths:
            return None
        # only now: the import machinery loads the MCP SDK (~1.5 s of every install otherwise)
        from neuralgentics.broker.importer.run import run_import

        out = run_import(default_config_path(get_settings()), paths, project=project, env=env)
    except Exception:  # noqa: BLE001 - only a hint
        return None
    new = [c for c in out.plan.candidates if c.status == "new"]
    if not new:
        return None
    where = ", ".join(sorted({str(c.source.path) for c in new}))
    return (
        f"found {plural(len(new), 'MCP server')} the broker could front ({', '.join(c.name for c in new)}"
        f" in {where}): `neuralgentics broker import --project {project}` shows the plan; "
        "add --apply --remove-from-source to move them behind the broker"
    )


@opencode_app.command("uninstall")
def uninstall_cmd(project: Path | None = _PROJECT, global_: bool = _GLOBAL) -> None:
    """Remove exactly what `install` added; restore opencode.json from the backup when untouched."""
    from neuralgentics.config import get_settings
    from neuralgentics.opencode.installer import InstallError, uninstall

    try:
        report = uninstall(get_settings(), project, global_)
    except InstallError as exc:
        fail(exc)
    for line in report.lines():
        typer.echo(line)
    typer.echo("uninstalled")


credential_app = typer.Typer(
    help="The plugin's project credentials (one per project install; the owner token stays yours).",
    no_args_is_help=True,
)
opencode_app.add_typer(credential_app, name="credential")


@credential_app.command("list")
def credential_list() -> None:
    """Each install's credential: its label, the project key it is bound to, its token file."""
    from neuralgentics import project_credentials

    entries = _credentials(project_credentials.load)
    if not entries:
        typer.echo("no project credential (install into a project: neuralgentics opencode install)")
    for e in entries:
        typer.echo(f"{e.label}  {e.project}  {e.token_file}  (made {e.created_at})")


def _credentials(fn: Callable[..., T], *args: str) -> T:
    """`fn(settings, *args)`, a credential error as a message and exit code 2."""
    from neuralgentics.config import get_settings
    from neuralgentics.credentials import CredentialError

    try:
        return fn(get_settings(), *args)
    except CredentialError as exc:
        fail(exc)


@credential_app.command("rotate")
def credential_rotate(
    label: str = typer.Argument(..., help="The label `credential list` shows"),
) -> None:
    """A new token for one install (the plugin reads it on its next call; the old one stops at once)."""
    from neuralgentics import project_credentials

    e = _credentials(project_credentials.rotate, label)
    typer.echo(f"rotated {e.label} (project {e.project}): new token in {e.token_file}")


@credential_app.command("revoke")
def credential_revoke(
    label: str = typer.Argument(..., help="The label `credential list` shows"),
) -> None:
    """Revoke one install's credential: its plugin is refused (401) until you install again."""
    from neuralgentics import project_credentials

    e = _credentials(project_credentials.revoke, label)
    typer.echo(f"revoked {e.label} (project {e.project}); {e.token_file} deleted")


def doctor_cmd(
    project: Path | None = _PROJECT,
    global_: bool = _GLOBAL,
    no_model: bool = typer.Option(False, "--no-model", help="Skip loading the embedding model."),
    no_servers: bool = typer.Option(
        False, "--no-servers", help="Skip starting each brokered stdio server once."
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per check."),
) -> None:
    """Check services, versions, the OpenCode install and the model; say what to fix."""
    import json

    from neuralgentics.app.process import shared_embedder
    from neuralgentics.config import get_settings
    from neuralgentics.opencode.doctor import run_checks

    checks = run_checks(
        get_settings(),
        project,
        global_,
        model=None if no_model else shared_embedder(),
        servers=not no_servers,
        environ=os.environ,
    )
    if as_json:
        typer.echo(json.dumps([c.to_json() for c in checks], indent=2))
    else:
        marks = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}
        for c in checks:
            typer.echo(
                f"{marks[c.status]} {c.name}: {c.detail}"
                + (f"\n     fix: {c.fix}" if c.fix and c.status != "ok" else "")
            )
    failed = [c for c in checks if c.status == "fail"]
    warned = [c for c in checks if c.status == "warn"]
    if not as_json:
        if failed:
            typer.echo(plural(len(failed), "problem"))
        elif warned:
            typer.echo(f"no problems; {plural(len(warned), 'warning')} (WARN above)")
        else:
            typer.echo("all good")
    raise typer.Exit(1 if failed else 0)


def update_cmd(
    check_only: bool = typer.Option(False, "--check", help="Only compare with the latest release."),
    releases_url: str | None = typer.Option(
        None,
        "--releases-url",
        help="The release feed: release.json (URL or path) as scripts/release.sh writes it "
        "(default: NEURALGENTICS_RELEASES_URL).",
    ),
    index: bool = typer.Option(
        False,
        "--index",
        help="Upgrade from pip's configured package index instead of the release feed.",
    ),
) -> None:
    """Upgrade this installation: a pip install from the release feed (or --index), a git checkout
    by moving to the release tag and reinstalling."""
    from neuralgentics.config import get_settings
    from neuralgentics.opencode.update import (
        UpdateError,
        check,
        source_checkout,
        update,
        update_from_index,
    )

    settings = get_settings()
    releases_url = releases_url or settings.releases_url
    try:
        if check_only and index:
            typer.echo(update_from_index(check_only=True))
            return
        if check_only:
            st = check(releases_url)
            if st.available:
                typer.echo(
                    f"{st.latest.version} is available (installed {st.installed})"
                    + (f": {st.latest.page}" if st.latest.page else "")
                )
            elif st.latest.version < st.installed:
                typer.echo(
                    f"installed {st.installed} is newer than the latest release {st.latest.version}"
                )
            else:
                typer.echo(f"up to date ({st.installed})")
            return
        typer.echo(
            update(
                releases_url,
                repo=source_checkout(),
                index=index,
                opencode_checkout=settings.opencode_checkout,
            )
        )
    except UpdateError as exc:
        fail(exc)


def register(app: typer.Typer) -> None:
    """Add this area's commands to the main `neuralgentics` app."""
    app.add_typer(opencode_app, name="opencode")
    app.command("doctor")(doctor_cmd)
    app.command("update")(update_cmd)
