"""The `neuralgentics` command. Each area registers its own commands; none hold logic here."""

from __future__ import annotations

import atexit
import gc
import inspect
import os
import sys
from importlib import import_module
from typing import TYPE_CHECKING, Any

from neuralgentics import __version__

if TYPE_CHECKING:
    import typer

# Area module -> the top-level commands its `register(app)` adds. Only the area that owns the
# command being run is imported: `neuralgentics broker stdio`, which OpenCode spawns, does not
# pay for loading memini-core or the orchestrator. tests/test_command.py keeps this map honest.
AREAS: dict[str, tuple[str, ...]] = {
    "neuralgentics.app.cli": ("serve", "up", "down"),
    "neuralgentics.embeddings.cli": ("model",),
    "neuralgentics.memini.cli": ("memory",),
    "neuralgentics.memini.indexer.cli": ("index", "search"),
    "neuralgentics.broker.cli": ("broker",),
    "neuralgentics.orchestrator.cli": ("route", "context", "agents-md", "skills", "task"),
    "neuralgentics.opencode.cli": ("opencode", "doctor", "update"),
    "neuralgentics.ui.cli": ("ui",),
}


def _version(value: bool) -> None:
    import typer

    if value:
        typer.echo(__version__)
        raise typer.Exit()


def _flags_show_no_type() -> None:
    """typer's rich help prints each option's value type, `<bool>` after a plain flag too
    (`--json <bool>`), as if the flag took a value; its plain-text help leaves flags bare.
    Make the rich help agree (idempotent; tests/test_cli_help.py checks every command)."""
    from typer.core import TyperOption

    original = TyperOption.display_type_rich
    if getattr(original, "flags_bare", False):
        return

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        return None if self.is_flag else original(self, ctx)

    display_type_rich.flags_bare = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


def _reflow_help(app: typer.Typer) -> None:
    """typer's rich help keeps a docstring's line breaks, so a command's description came out
    ragged (a line cut after "and which it"). Join the lines of each paragraph and let the
    terminal's width wrap them; blank lines still separate paragraphs."""
    for info in app.registered_commands:
        doc = info.help or (info.callback.__doc__ if info.callback else None)
        if doc:
            paragraphs = inspect.cleandoc(doc).split("\n\n")
            info.help = "\n\n".join(" ".join(p.split()) for p in paragraphs)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            _reflow_help(group.typer_instance)


def build_app(command: str | None = None) -> typer.Typer:
    """The app with every area, or with only the area that owns `command`."""
    import typer

    _flags_show_no_type()
    app = typer.Typer(
        name="neuralgentics",
        help="Memory, MCP broker and orchestration for the OpenCode coding agent.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
    )

    @app.callback()
    def _root(
        version: bool = typer.Option(
            False, "--version", callback=_version, is_eager=True, help="Print the version and exit"
        ),
    ) -> None:
        pass

    owners = [module for module, names in AREAS.items() if command in names]
    for module in owners or AREAS:
        import_module(module).register(app)
    _reflow_help(app)
    return app


def __getattr__(name: str) -> typer.Typer:
    # `from neuralgentics.cli import app` (tests, typer's runner) gets the full app, built on use.
    if name == "app":
        return build_app()
    raise AttributeError(name)


def main() -> None:
    # At exit the interpreter runs full garbage collections while it tears the modules down,
    # each walking every object the imports made (pydantic's models, the MCP SDK's types):
    # 0.6 s of a `broker stdio` exit, which its client waits out. Frozen objects are skipped
    # (they are freed as their modules go, as before); the atexit hook runs before that.
    atexit.register(gc.freeze)
    if sys.argv[1:3] == ["broker", "stdio"]:
        # typer, the SDK and pydantic are not imported yet: the first answers may not need them
        from neuralgentics.broker.server.stdio_prelude import prelude

        prelude(sys.argv[3:], dict(os.environ))
    command = sys.argv[1] if len(sys.argv) > 1 else None
    build_app(command)()


if __name__ == "__main__":
    main()
