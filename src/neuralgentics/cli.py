"""The `neuralgentics` command. Each area registers its own commands; none hold logic here."""

from __future__ import annotations

import typer

from neuralgentics import __version__

app = typer.Typer(
    name="neuralgentics",
    help="Memory, MCP broker and orchestration for the OpenCode coding agent.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True),
) -> None:
    pass


def _register_all() -> None:
    # Every area owns a `cli.register(app)`; importing them here keeps this file thin.
    from neuralgentics.broker import cli as broker_cli
    from neuralgentics.memini import cli as memini_cli
    from neuralgentics.opencode import cli as opencode_cli
    from neuralgentics.orchestrator import cli as orchestrator_cli

    for area in (memini_cli, broker_cli, orchestrator_cli, opencode_cli):
        area.register(app)


_register_all()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
