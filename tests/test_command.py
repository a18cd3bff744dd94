"""The top-level command: every area's commands are reachable, and the lazy map is true."""

from __future__ import annotations

import subprocess
import sys

import typer
from typer.main import get_command

from neuralgentics.cli import AREAS, build_app


def _names(app: typer.Typer) -> set[str]:
    return set(get_command(app).commands)  # type: ignore[attr-defined]


def test_each_area_registers_exactly_the_commands_the_map_names():
    from importlib import import_module

    for module, names in AREAS.items():
        app = typer.Typer()

        @app.callback()
        def _root() -> None:
            pass

        import_module(module).register(app)
        assert _names(app) == set(names), module


def test_running_a_command_loads_only_its_area():
    app = build_app("broker")
    assert _names(app) == {"broker"}
    assert _names(build_app(None)) == {n for names in AREAS.values() for n in names}


def test_help_lists_every_command_and_unknown_commands_fail():
    shown = subprocess.run(
        [sys.executable, "-m", "neuralgentics.cli", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0
    for name in ("memory", "broker", "route", "index", "opencode", "up"):
        assert name in shown.stdout
    wrong = subprocess.run(
        [sys.executable, "-m", "neuralgentics.cli", "frobnicate"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert wrong.returncode != 0 and "frobnicate" in wrong.stderr
