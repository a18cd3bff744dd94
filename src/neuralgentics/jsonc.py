"""Reading the JSON with comments that MCP clients write (VS Code, Cursor, OpenCode), bounded.

Other people's config files are input like any other: a 5,000-deep nesting made ``json5``
(and the stdlib parser) raise ``RecursionError``, and ``json5``'s pure-Python parser took 9 s
on a 265 KB file (issue 29, item 10). So a file is first checked in one linear regex pass —
size, then nesting depth, counted outside strings and comments — and then parsed by the
stdlib's C parser once comments and trailing commas are blanked out (replaced by spaces,
newlines kept, so an error's line and column are the file's own). Only what that still
refuses (JSON5's single quotes, unquoted keys, …) goes to ``json5``, and only when small.
"""

from __future__ import annotations

import json
import re
from typing import Any

import json5

from neuralgentics.errors import InvalidInput

# A client config file is a few KB; a 1 MiB one is not a config file.
MAX_CHARS = 1024 * 1024
# Far deeper than any real config; far below the parsers' recursion limits.
MAX_DEPTH = 64
# json5 is pure Python and superlinear: it only sees files this small (~0.1 s).
JSON5_MAX_CHARS = 16 * 1024

# Strings first, so a "//" inside one is not a comment; then comments; then the structure.
_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/|[\[\]{},]', re.S)
_NOT_NEWLINE = re.compile(r"[^\n]")


class JsonTextError(InvalidInput):
    """Text that is not JSON/JSONC, or is past the limits; the message names the file."""


def _blanked(text: str) -> str:
    return _NOT_NEWLINE.sub(" ", text)


def check_limits(text: str, source: str) -> None:
    """Refuse text over :data:`MAX_CHARS` or nested deeper than :data:`MAX_DEPTH`."""
    if len(text) > MAX_CHARS:
        raise JsonTextError(
            f"{source}: {len(text):,} characters, more than the {MAX_CHARS:,} a config file "
            "may have"
        )
    depth = 0
    for m in _TOKENS.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                line = text.count("\n", 0, m.start()) + 1
                raise JsonTextError(
                    f"{source}:{line}: nested more than {MAX_DEPTH} levels deep "
                    "(no config file is; refusing it)"
                )
        elif c in "]}":
            depth -= 1


def strip_jsonc(text: str) -> str:
    """``text`` with comments and trailing commas replaced by spaces (positions kept)."""
    parts: list[str] = []
    last = 0
    pending_comma: int | None = None  # index in parts of a comma not yet known to be trailing
    for m in _TOKENS.finditer(text):
        gap = text[last : m.start()]
        if gap and not gap.isspace():
            pending_comma = None  # a number, true/false/null between: the comma separated
        parts.append(gap)
        last = m.end()
        c = m.group()
        if c.startswith(("//", "/*")):
            parts.append(_blanked(c))
            continue
        if c in "]}" and pending_comma is not None:
            parts[pending_comma] = " "
        pending_comma = len(parts) if c == "," else None
        parts.append(c)
    parts.append(text[last:])
    return "".join(parts)


def loads(text: str, source: str) -> Any:
    """Parse JSON, JSONC (comments, trailing commas) or a small JSON5 file, within the limits.
    Raises :class:`JsonTextError` naming ``source`` and where."""
    check_limits(text, source)
    try:
        return json.loads(strip_jsonc(text))
    except json.JSONDecodeError as exc:
        error = exc
    if len(text) <= JSON5_MAX_CHARS:
        try:
            return json5.loads(text)
        except (ValueError, RecursionError):
            pass
    raise JsonTextError(
        f"{source}:{error.lineno}:{error.colno}: not valid JSON/JSONC: {error.msg}"
    ) from None
