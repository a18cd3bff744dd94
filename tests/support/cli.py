"""`neuralgentics ARGS…` run in-process, as a user types it: the same Typer app the console
script builds, through Click's test runner. Starting a Python process per command cost about
three seconds each (interpreter, imports, the model); a test that needs the real entry point or
a server process of its own still runs a subprocess."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import typer
from click.testing import Result
from typer.testing import CliRunner

from neuralgentics.cli import build_app
from neuralgentics.config import get_settings


@dataclass
class CliResult:
    returncode: int
    stdout: str
    stderr: str


def invoke(
    app: typer.Typer,
    args: list[str],
    *,
    env: Mapping[str, str | None] | None = None,
    input: str | None = None,
    catch_exceptions: bool = True,
) -> Result:
    """Click's result of ``app ARGS…``, the settings read afresh before and after (as a new
    process would: an earlier command's, or the test's own environment changes, never leak)."""
    get_settings.cache_clear()
    try:
        return CliRunner().invoke(
            app, args, env=env, input=input, catch_exceptions=catch_exceptions
        )
    finally:
        get_settings.cache_clear()


def neuralgentics(
    *args: str, env: Mapping[str, str | None] | None = None, input: str | None = None
) -> CliResult:
    """Exit code, standard output and error of one command. `env` is set for the command only
    (None unsets a variable); settings are read afresh, as a new process would."""
    result = invoke(build_app(args[0] if args else None), list(args), env=env, input=input)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # a crash, not an answer: show its traceback
    return CliResult(result.exit_code, result.stdout, result.stderr)
