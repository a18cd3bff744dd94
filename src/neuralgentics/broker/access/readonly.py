"""Whether a tool writes, for roles marked ``read_only`` (issue 29, item 7).

MCP lets a server say so itself: ``annotations.readOnlyHint`` (true: it changes nothing) and
``destructiveHint``. Where a tool carries either, that decides: ``readOnlyHint: true`` reads;
``readOnlyHint: false`` or ``destructiveHint: true`` writes. Only a tool with neither (most
servers annotate nothing yet) is judged by its name, against ``WRITE_NAME_GLOBS``. The answer
says which applied, so ``broker role show`` and ``broker check`` can tell the user.

Name globs alone missed ``memory/add_observations`` (server-memory marks it
``readOnlyHint: false``): a read-only agent could write to the knowledge graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # the CLI's role commands import this: no MCP SDK at run time
    from mcp.types import ToolAnnotations

# Tool names that change something (globs over the tool's name alone), for a tool whose
# server gives no annotations.
WRITE_NAME_GLOBS = (
    "write*",
    "edit*",
    "create*",
    "delete*",
    "remove*",
    "move*",
    "rename*",
    "update*",
    "insert*",
    "drop*",
    "push*",
    "set_*",
    "add*",
    "append*",
    "send*",
    "post*",
    "put*",
    "patch*",
    "upload*",
    "merge*",
    "commit*",
    "reset*",
    "checkout*",
    "kill*",
    "git_add",
    "git_commit",
    "git_reset",
    "git_checkout",
    "git_create_branch",
)


@dataclass(frozen=True, slots=True)
class Writes:
    """Whether a tool writes, and by what the broker knows it."""

    writes: bool
    by: Literal["annotations", "name"]
    why: str  # "readOnlyHint: true", "name matches 'add*'", …

    def __str__(self) -> str:
        return f"{'writes' if self.writes else 'read-only'} by {self.by} ({self.why})"


def classify(tool: str, annotations: ToolAnnotations | None) -> Writes:
    """Does ``tool`` write? Its annotations when the server gave any, else its name."""
    if annotations is not None:
        if annotations.destructive_hint:
            return Writes(True, "annotations", "destructiveHint: true")
        if annotations.read_only_hint is True:
            return Writes(False, "annotations", "readOnlyHint: true")
        if annotations.read_only_hint is False:
            return Writes(True, "annotations", "readOnlyHint: false")
    for glob in WRITE_NAME_GLOBS:
        if fnmatchcase(tool, glob):
            return Writes(
                True, "name", f"name matches {glob!r}; no readOnlyHint or destructiveHint"
            )
    return Writes(
        False, "name", "no readOnlyHint or destructiveHint; the name is not one that writes"
    )
