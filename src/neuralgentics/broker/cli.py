"""``neuralgentics broker …``: thin commands over the broker library."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from neuralgentics.exits import fail
from neuralgentics.text import plural

if TYPE_CHECKING:
    from neuralgentics.broker.config import BrokerConfig

broker_app = typer.Typer(
    name="broker",
    help="MCP broker: one MCP server in front of many (launcher, proxy, access control, audit).",
    no_args_is_help=True,
)

ConfigOpt = typer.Option(
    None, "--config", "-c", help="broker YAML (default: <config dir>/broker.yaml)"
)


def _config(config: Path | None) -> tuple[Path, bool]:
    """The config file a command works on, and whether it may be missing (only the default
    one may: nobody has written it yet)."""
    from neuralgentics.broker.config import default_config_path
    from neuralgentics.config import get_settings

    return (config, False) if config is not None else (default_config_path(get_settings()), True)


def _load(config: Path | None) -> BrokerConfig:
    from neuralgentics.broker.config import load_config

    path, missing_ok = _config(config)
    return load_config(path, missing_ok=missing_ok)


@broker_app.command("stdio")
def stdio_cmd(
    config: Path | None = ConfigOpt,
    role: str | None = typer.Option(None, "--role", help="role of every call on this connection"),
    session_id: str | None = typer.Option(
        None,
        "--session-id",
        help="the client's session, for audit records and the egress header "
        "(a call's stamped session_id argument wins)",
    ),
) -> None:
    """Serve the broker as one MCP server on stdin/stdout."""
    from neuralgentics.app.broker import run_stdio
    from neuralgentics.broker.config import ConfigError
    from neuralgentics.broker.errors import InvalidRequest
    from neuralgentics.broker.limits import check_session_id
    from neuralgentics.config import get_settings

    try:
        _load(config)  # fail before the client starts talking
        check_session_id(session_id, "--session-id")
    except (ConfigError, InvalidRequest) as exc:
        fail(exc)
    run_stdio(get_settings(), config, role, session_id)


@broker_app.command("serve")
def serve_cmd(
    config: Path | None = ConfigOpt,
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Address to listen on (a public one needs NEURALGENTICS_TOKEN)"
    ),
    port: int | None = typer.Option(
        None, "--port", help="default: NEURALGENTICS_BROKER_PORT or 8901"
    ),
) -> None:
    """Serve streamable HTTP at /mcp plus REST (/tools, /call, /servers, /health)."""
    from neuralgentics.app.serve import ServeError, serve_broker
    from neuralgentics.broker.config import ConfigError
    from neuralgentics.config import get_settings

    try:
        _load(config)
    except ConfigError as exc:
        fail(exc)
    settings = get_settings()
    try:
        serve_broker(settings, config, host, port or settings.broker_port)
    except ServeError as exc:
        fail(exc)


@broker_app.command("check")
def check_cmd(config: Path | None = ConfigOpt) -> None:
    """Validate the config file; errors name the line and field. Role rules are checked against
    the servers (and the tools of servers already listed): a rule naming a server that does not
    exist is an error."""
    from neuralgentics.broker.config import ConfigError, load_config
    from neuralgentics.broker.roles import check_roles, role_view, rule_line
    from neuralgentics.broker.roles.cli import known_tools, tool_hints

    path = _config(config)[0]
    try:
        cfg = load_config(path)  # checking a file that is not there is an error
    except ConfigError as exc:
        fail(exc)
    known = known_tools(cfg)
    problems = check_roles(cfg, known)
    for p in problems:
        where = f"{path}:{rule_line(path, p)}" if p.severity == "error" else "note"
        typer.echo(f"{where}: {p}", err=True)
    # Read-only roles: say how each server's tools were judged (annotations or names).
    hints = tool_hints(cfg)
    for name in sorted(n for n, rc in cfg.roles.items() if rc.read_only):
        for line in role_view(cfg, name, known, hints).read_only_summary() or [
            "tools not listed yet: judged by name until `neuralgentics broker refresh`"
        ]:
            typer.echo(f"note: roles.{name} (read-only): {line}", err=True)
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        fail(
            f"{plural(len(errors), 'role rule')} name{'s' if len(errors) == 1 else ''} servers or tools that do not exist"
        )
    typer.echo(
        f"ok: {plural(len(cfg.servers), 'server')} ({', '.join(cfg.servers) or 'none'}), "
        f"{plural(len(cfg.roles), 'role')} ({', '.join(cfg.roles) or 'none'})"
    )
    from neuralgentics.broker.sandbox import INSTALL_HINT, bwrap_path, describe

    for name, srv in cfg.servers.items():
        if srv.command:
            typer.echo(f"  {name}: sandbox {describe(srv.sandbox)}")
    if any(s.sandbox is not None for s in cfg.servers.values()) and bwrap_path() is None:
        typer.echo(
            f"note: sandboxed servers will not start: bwrap is missing; {INSTALL_HINT}", err=True
        )


def _notify_running_broker() -> None:
    """Ask a broker serving at the configured URL (NEURALGENTICS_BROKER_URL, else the broker
    port) to reload (best effort)."""
    import httpx

    from neuralgentics.config import get_settings
    from neuralgentics.credentials import CredentialError
    from neuralgentics.service_client import service_client

    s = get_settings()
    try:
        # the owner token: /reload is an admin operation
        with service_client(s, "broker", timeout=2.0) as client:
            r = client.post("/reload")
        if r.status_code == 200:
            typer.echo(f"running broker at {s.broker_base_url} reloaded")
        elif r.status_code in (401, 403):
            typer.echo(
                f"the broker at {s.broker_base_url} refused to reload ({r.status_code}); "
                "send it SIGHUP or restart it",
                err=True,
            )
    except (httpx.HTTPError, CredentialError):
        pass


@broker_app.command(
    "add", context_settings={"allow_extra_args": True, "ignore_unknown_options": True}
)
def add_cmd(
    name: str = typer.Argument(..., help="server name"),
    command: list[str] | None = typer.Argument(
        None, help="after --: COMMAND ARGS… (stdio; with --url, the command that serves it)"
    ),
    url: str | None = typer.Option(None, "--url", help="URL of a streamable HTTP or SSE server"),
    transport: str | None = typer.Option(None, "--transport", help="stdio | streamable_http | sse"),
    summary: str = typer.Option(
        "", "--summary", help="One line on what the server is for (shown in the catalog)"
    ),
    env: list[str] = typer.Option([], "--env", help="KEY=VALUE (use ${VAR} for secrets)"),
    header: list[str] = typer.Option([], "--header", help="Name: value for HTTP servers"),
    replace: bool = typer.Option(False, "--replace", help="overwrite an existing server"),
    sandbox: bool = typer.Option(
        False,
        "--sandbox",
        help="run it under bubblewrap: read-only root, private /tmp, writes only to its state "
        "dir (and --writable paths), network through the egress gateway",
    ),
    network: str | None = typer.Option(
        None, "--network", help="with --sandbox: none | gateway (default) | host"
    ),
    writable: list[str] = typer.Option(
        [], "--writable", help="with --sandbox: a path it may write, e.g. the project (repeat)"
    ),
    readable: list[str] = typer.Option(
        [], "--readable", help="with --sandbox: hide your home except these paths (repeat)"
    ),
    config: Path | None = ConfigOpt,
) -> None:
    """Register a server: `add NAME -- COMMAND ARGS…` (stdio), `add NAME --url URL` (HTTP or
    SSE), or both: `add NAME --url URL -- COMMAND ARGS…` starts COMMAND and then connects to URL."""
    from neuralgentics.broker.config import ConfigError, load_config, save_config, with_server

    if not command and not url:
        fail("give `-- COMMAND ARGS…` (stdio), `--url URL` (HTTP/SSE), or both (launched HTTP)")
    entry: dict[str, Any] = {"summary": summary}
    if command:
        entry.update(command=command[0], args=command[1:])
    if url:
        entry.update(transport=transport or "streamable_http", url=url)
    else:
        entry.update(transport=transport or "stdio")
    if network or writable or readable:
        sandbox = True
    if sandbox:
        entry["sandbox"] = _sandbox_profile(name, network, writable, readable, url is not None)
    try:
        entry["env"] = dict(_pair(e, "=") for e in env)
        entry["headers"] = dict(_pair(h, ":") for h in header)
        path = _config(config)[0]
        cfg = load_config(path, missing_ok=True)
        if name in cfg.servers and not replace:
            fail(f"servers.{name}: a server named {name!r} already exists (use --replace)")
        save_config(with_server(cfg, name, entry), path)
        roles = _default_roles(path)
    except ConfigError as exc:
        fail(exc)
    typer.echo(f"added {name} to {path}")
    if roles:
        typer.echo(
            f"added default roles (every server; read-only agents without writing tools): "
            f"{', '.join(roles)} — edit them in {path}"
        )
    _notify_running_broker()


def _sandbox_profile(
    name: str, network: str | None, writable: list[str], readable: list[str], http: bool
) -> dict[str, Any]:
    """The default profile `broker add --sandbox` writes: its own state dir writable, the
    network through the egress gateway (the host's for a launched HTTP server, which the
    broker reaches on the host's loopback)."""
    from neuralgentics.broker.sandbox import INSTALL_HINT, bwrap_path
    from neuralgentics.config import get_settings

    if bwrap_path() is None:
        typer.echo(
            f"note: bwrap is not installed, so it will not start yet: {INSTALL_HINT}", err=True
        )
    state = get_settings().home / "broker" / "state" / name
    return {
        "network": network or ("host" if http else "gateway"),
        "writable": [str(state), *(str(Path(w).expanduser().resolve()) for w in writable)],
        "readable": [str(Path(r).expanduser().resolve()) for r in readable],
    }


def _default_roles(path: Path) -> list[str]:
    """A role for every agent a session can run as, where one is missing (issue 16: the broker
    denies an unknown role everything, so a fresh `broker add` gave no agent any tool)."""
    from neuralgentics.config import get_settings
    from neuralgentics.opencode.agents import is_read_only
    from neuralgentics.opencode.broker_roles import agents_needing_roles, ensure_default_roles
    from neuralgentics.orchestrator.config import load_config as load_roster

    roster = load_roster(project_dir=None, config_dir=get_settings().config_dir)
    return ensure_default_roles(
        path, agents_needing_roles({n: is_read_only(n) for n in roster.agents})
    )


def _pair(text: str, sep: str) -> tuple[str, str]:
    from neuralgentics.broker.config import ConfigError

    k, s, v = text.partition(sep)
    if not s or not k.strip():
        raise ConfigError(f"{text!r}: expected KEY{sep}VALUE")
    return k.strip(), v.strip()


@broker_app.command("remove")
def remove_cmd(
    name: str = typer.Argument(..., help="server name"), config: Path | None = ConfigOpt
) -> None:
    """Unregister a server (and persist the change)."""
    from neuralgentics.broker.config import ConfigError, load_config, save_config, without_server
    from neuralgentics.broker.roles import rules_naming_server

    path = _config(config)[0]
    try:
        cfg = without_server(load_config(path), name)
        save_config(cfg, path)
    except ConfigError as exc:
        fail(exc)
    typer.echo(f"removed {name} from {path}")
    dangling = rules_naming_server(cfg, name)
    if dangling:
        typer.echo(
            f"note: these rules still name {name!r} (`broker check` fails until they go; "
            f"`neuralgentics broker role revoke ROLE RULE`): {'; '.join(dangling)}",
            err=True,
        )
    _notify_running_broker()


def _parse_since(text: str) -> datetime:
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    if text and text[-1] in units and text[:-1].isdigit():
        return datetime.now(UTC) - timedelta(seconds=int(text[:-1]) * units[text[-1]])
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        raise typer.BadParameter(f"{text!r}: use an ISO time or a span like 30m, 2h, 1d") from None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


@broker_app.command("audit")
def audit_cmd(
    since: str | None = typer.Option(None, "--since", help="ISO time or span (30m, 2h, 1d)"),
    role: str | None = typer.Option(None, "--role", help="only calls made as this role"),
    server: str | None = typer.Option(None, "--server", help="only calls to this server"),
    as_json: bool = typer.Option(False, "--json", help="one JSON record per line"),
    config: Path | None = ConfigOpt,
) -> None:
    """Read the audit log (one record per call, allowed or denied)."""
    from dataclasses import asdict

    from neuralgentics.broker.audit import open_sink, query
    from neuralgentics.broker.config import ConfigError
    from neuralgentics.config import get_settings

    try:
        cfg = _load(config)
        sink = open_sink(cfg.audit, get_settings())
    except ConfigError as exc:
        fail(exc)
    records = query(
        sink.read(), since=_parse_since(since) if since else None, role=role, server=server
    )
    sink.close()
    if not records and not as_json:
        typer.echo(
            "no audit record matches" if (since or role or server) else "no audit record yet"
        )
    for r in records:
        if as_json:
            typer.echo(json.dumps(asdict(r), default=str))
        else:
            err = f"  {r.error}" if r.error else ""
            typer.echo(
                f"{r.time}  {r.outcome:<10} {r.role or '-':<10} {r.server}/{r.tool}  "
                f"{r.latency_ms:.1f} ms{err}"
            )


token_app = typer.Typer(
    name="token",
    help="Bearer tokens bound to one role, for HTTP clients other than you (stored hashed).",
    no_args_is_help=True,
)


@token_app.command("add")
def token_add_cmd(
    role: str = typer.Option(..., "--role", help="the one role this token may act as"),
    label: str = typer.Option(..., "--label", help="a name for it (shown in audit records)"),
    config: Path | None = ConfigOpt,
) -> None:
    """Make a token bound to ROLE; it is printed once (only its hash is kept)."""
    from neuralgentics.broker.config import ConfigError
    from neuralgentics.broker.role_tokens import add_token

    try:
        token = add_token(role, label, _config(config)[0])
    except ConfigError as exc:
        fail(exc)
    typer.echo(token)
    typer.echo(
        f"token {label!r} for role {role!r} added; it is shown only now: hand it to the client "
        "as 'Authorization: Bearer <token>'",
        err=True,
    )
    _notify_running_broker()


@token_app.command("list")
def token_list_cmd(config: Path | None = ConfigOpt) -> None:
    """Labels and roles of the role tokens (the tokens themselves are not kept)."""
    from neuralgentics.broker.config import ConfigError
    from neuralgentics.broker.role_tokens import list_tokens

    try:
        tokens = list_tokens(_config(config)[0])
    except ConfigError as exc:
        fail(exc)
    if not tokens:
        typer.echo(
            "no role token (add one: neuralgentics broker token add --role ROLE --label NAME)"
        )
    for t in tokens:
        typer.echo(f"{t.label}\t{t.role}")


@token_app.command("remove")
def token_remove_cmd(
    label: str = typer.Argument(..., help="the token's label (see `token list`)"),
    config: Path | None = ConfigOpt,
) -> None:
    """Revoke a role token (a running broker is told to reload)."""
    from neuralgentics.broker.config import ConfigError
    from neuralgentics.broker.role_tokens import remove_token

    try:
        gone = remove_token(label, _config(config)[0])
    except ConfigError as exc:
        fail(exc)
    typer.echo(f"removed token {gone.label!r} (role {gone.role!r})")
    _notify_running_broker()


broker_app.add_typer(token_app, name="token")


def register(app: typer.Typer) -> None:
    """Add this area's commands to the main `neuralgentics` app."""
    from neuralgentics.broker.catalog.cli import register as register_catalog
    from neuralgentics.broker.importer.cli import register as register_import
    from neuralgentics.broker.roles.cli import register as register_roles

    register_catalog(broker_app)  # broker catalog | refresh | match
    register_roles(broker_app)  # broker role list | show | add | remove | grant | revoke
    register_import(broker_app)  # broker import [FILE…]
    app.add_typer(broker_app, name="broker")
