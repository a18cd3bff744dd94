"""One error → exit-code contract for every command (docs/development.md, "Exit codes").

    0  ok
    1  failed: a server error, a check that found problems, anything not below
    2  bad input: refused as malformed, naming what does not exist, clashing with the current
       state, not allowed, or a file/setting the user wrote is wrong (`InvalidConfig`)
    3  unavailable: a service or part it needs is not reachable or not installed

Commands raise (or catch) the `neuralgentics.errors` tree and call `fail(exc)`; a command that
only has an HTTP answer maps its status with `status_exit_code`. A command may still exit 1
for an outcome of its own (`route --agent` not allowed, `doctor` finding problems).
"""

from __future__ import annotations

from typing import NoReturn

from neuralgentics import errors

OK = 0
FAILED = 1
BAD_INPUT = 2
UNAVAILABLE = 3

_BAD_INPUT_KINDS: tuple[type[errors.NeuralgenticsError], ...] = (
    errors.InvalidInput,
    errors.Unauthorized,
    errors.Forbidden,
    errors.NotFound,
    errors.Conflict,
    errors.InvalidConfig,
)


def exit_code(exc: BaseException) -> int:
    """The exit code for an error of the tree; anything outside it is a failure (1)."""
    # Unavailable first: a class may be both (an update that is refused because the feed
    # is down is unavailable, not bad input).
    if isinstance(exc, errors.Unavailable):
        return UNAVAILABLE
    if isinstance(exc, _BAD_INPUT_KINDS):
        return BAD_INPUT
    return FAILED


def status_exit_code(status: int) -> int:
    """The exit code for an HTTP error answer of one of our services."""
    if status == errors.Unavailable.status:
        return UNAVAILABLE
    if 400 <= status < 500:
        return BAD_INPUT
    return FAILED


def message_of(problem: BaseException | str) -> str:
    if isinstance(problem, errors.NeuralgenticsError):
        return problem.message
    return str(problem)


def fail(problem: BaseException | str, code: int | None = None) -> NoReturn:
    """Print `error: MESSAGE` on stderr and exit: with the code the error's kind maps to, or
    `code`. A bare message is bad input (2) unless `code` says otherwise."""
    import typer

    typer.echo(f"error: {message_of(problem)}", err=True)
    if code is None:
        code = BAD_INPUT if isinstance(problem, str) else exit_code(problem)
    raise typer.Exit(code)
