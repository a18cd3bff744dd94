"""`neuralgentics ui`: open the dashboard signed in, the token never in the browser's address.

The running memini-core makes a one-time login address (`POST /ui/login-code`, the owner's
token); the command opens it in the browser, or prints it with `--print` or where no browser
can be started. The address works once, within a minute, and the page it lands on carries no
code or token.
"""

from __future__ import annotations

import webbrowser

import httpx
import typer

from neuralgentics.config import get_settings
from neuralgentics.credentials import CredentialError
from neuralgentics.exits import UNAVAILABLE, fail, status_exit_code
from neuralgentics.service_client import service_client


def ui_cmd(
    write: bool = typer.Option(
        False, "--write", help="A session that may also start indexing (default: read-only)."
    ),
    print_only: bool = typer.Option(
        False, "--print", help="Print the one-time address instead of opening a browser."
    ),
) -> None:
    """Open the dashboard in a browser, signed in (a one-time address; no token in it)."""
    settings = get_settings()
    try:
        with service_client(settings, "memini-core", timeout=10) as client:
            response = client.post("/ui/login-code", json={"scope": "write" if write else "read"})
    except CredentialError as exc:
        fail(exc)
    except httpx.TransportError:
        typer.echo(
            f"error: memini-core is not reachable at {settings.url}; start it: neuralgentics up",
            err=True,
        )
        raise typer.Exit(UNAVAILABLE) from None
    if response.status_code != 200:
        message = response.json().get("error", {}).get("message", response.text)
        typer.echo(f"error: memini-core answered {response.status_code}: {message}", err=True)
        raise typer.Exit(status_exit_code(response.status_code))
    body = response.json()
    url = settings.url + body["path"]
    if not print_only:
        try:
            opened = webbrowser.get().open(url)
        except webbrowser.Error:
            opened = False
        if opened:
            typer.echo(f"opened the dashboard ({body['scope']} session) in your browser")
            return
    typer.echo(url)
    typer.echo(f"(works once, within {body['expires_in']} s; {body['scope']} session)", err=True)


def register(app: typer.Typer) -> None:
    """Add `ui` to the main `neuralgentics` app."""
    app.command("ui")(ui_cmd)
