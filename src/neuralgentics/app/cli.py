"""`neuralgentics serve` and `neuralgentics up`: the commands that run the composed services."""

from __future__ import annotations

import typer

from neuralgentics.config import get_settings
from neuralgentics.exits import fail


def serve(
    host: str = typer.Option(None, "--host", help="Default 127.0.0.1 (NEURALGENTICS_HOST)"),
    port: int = typer.Option(None, "--port", help="Default 8900 (NEURALGENTICS_PORT)"),
) -> None:
    """Run memini-core (HTTP JSON) on the configured store."""
    from neuralgentics.app.serve import ServeError, serve_core

    settings = get_settings()
    settings = settings.model_copy(
        update={"host": host or settings.host, "port": port or settings.port}
    )
    try:
        serve_core(settings, echo=lambda line: typer.echo(line, err=True))
    except ServeError as exc:
        fail(exc)


def up_cmd(
    host: str | None = typer.Option(None, "--host", help="Default 127.0.0.1 (NEURALGENTICS_HOST)."),
    port: int | None = typer.Option(None, "--port", help="memini-core port (default 8900)."),
    broker_port: int | None = typer.Option(
        None, "--broker-port", help="Broker HTTP port (default 8901)."
    ),
    no_broker: bool = typer.Option(False, "--no-broker", help="Start memini-core only."),
    detach: bool = typer.Option(
        False, "--detach", "-d", help="Run in the background; `neuralgentics down` stops it."
    ),
) -> None:
    """Start memini-core and the broker's HTTP front together; Ctrl-C or SIGTERM stops both."""
    from neuralgentics.app.up import UpError, up

    s = get_settings()
    if detach:
        from neuralgentics.app.background import up_detached

        args = [
            *(["--host", host] if host else []),
            *(["--port", str(port)] if port else []),
            *(["--broker-port", str(broker_port)] if broker_port else []),
            *(["--no-broker"] if no_broker else []),
        ]
        try:
            up_detached(s, args, echo=typer.echo)
        except UpError as exc:
            fail(exc)
        return
    try:
        code = up(
            s,
            host or s.host,
            port or s.port,
            broker_port or s.broker_port,
            with_broker=not no_broker,
            echo=lambda line: typer.echo(line, err=False),
        )
    except UpError as exc:
        fail(exc)
    raise typer.Exit(code)


def down_cmd() -> None:
    """Stop what `neuralgentics up --detach` started."""
    from neuralgentics.app.background import down
    from neuralgentics.app.up import UpError

    try:
        pid = down(get_settings())
    except UpError as exc:
        fail(exc)
    typer.echo(f"stopped (pid {pid})" if pid else "nothing to stop: no `up --detach` is running")


def register(app: typer.Typer) -> None:
    """Add `serve`, `up` and `down` to the main `neuralgentics` app."""
    app.command("serve")(serve)
    app.command("up")(up_cmd)
    app.command("down")(down_cmd)
