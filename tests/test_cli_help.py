"""Every command's --help, as a user reads it: each option and argument says what it is for,
and a plain flag shows no value type (`--json`, not `--json <bool>`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from click.testing import CliRunner
from typer.main import get_command

from neuralgentics.cli import build_app


def _commands(command: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
    yield path, command
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from _commands(sub, [*path, name])


def test_every_command_documents_every_option_and_flags_show_no_type() -> None:
    app = build_app()
    root = get_command(app)
    runner = CliRunner()
    seen = 0
    undocumented: list[str] = []
    typed_flags: list[str] = []
    for path, command in _commands(root, []):
        # the click command built once: typer's runner would rebuild the whole tree per call
        shown = runner.invoke(root, [*path, "--help"], env={"COLUMNS": "200"})
        assert shown.exit_code == 0, (path, shown.output)
        where = " ".join(["neuralgentics", *path])
        if not (command.help or command.short_help):
            undocumented.append(f"{where} (the command itself)")
        for param in command.params:
            if not (getattr(param, "help", None) or "").strip():
                undocumented.append(f"{where} {param.opts[0]}")
            if getattr(param, "is_flag", False):
                row = next(line for line in shown.output.splitlines() if param.opts[0] in line)
                if "<bool>" in row:
                    typed_flags.append(f"{where} {param.opts[0]}")
        assert "<bool>" not in shown.output, where  # --help itself included
        seen += 1
    assert seen >= 45  # every area's commands were walked (49 when this was written)
    assert undocumented == [], "options without a description"
    assert typed_flags == [], "flags shown as taking a value"


def test_descriptions_are_wrapped_by_the_terminal_not_by_the_source() -> None:
    # A docstring's own line breaks used to reach the screen: `memory --help` cut "add"'s
    # description after "and which it", mid-sentence, however wide the terminal.
    root = get_command(build_app())
    shown = CliRunner().invoke(root, ["memory", "--help"], env={"COLUMNS": "200"}).output
    row = next(line for line in shown.splitlines() if line.startswith("│ add "))
    assert "and which it probably replaces" in row, row
    ragged = []
    for path, command in _commands(root, []):
        first = " ".join((command.help or "").split("\n\n")[0].split())
        if path and 20 < len(first) < 150:
            page = CliRunner().invoke(root, [*path, "--help"], env={"COLUMNS": "200"}).output
            if first not in page:
                ragged.append(" ".join(path))
    assert ragged == []
