"""Can a value be stored and sent back as UTF-8 JSON? One walk that says where and why not.

JSON's ``\\ud800`` escape parses into a Python string holding a lone surrogate, which no UTF-8
encoder accepts; Python's JSON parser also accepts ``NaN``, ``Infinity`` and ``1e400`` (which
becomes ``inf``), none of which is JSON on the way out. PostgreSQL refuses NUL in any text and
in JSONB. Each of these, taken in and written, later breaks every read that meets the row, so
they are refused at the edge, before anything is written. The walk is iterative: a value
nested deeper than Python's recursion limit is reported, not crashed on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

# Deeper than any real metadata; far below the recursion limit of every JSON encoder we use.
MAX_DEPTH = 32
# Python's int/str conversion limit: a longer integer cannot be written as JSON text.
MAX_INT_DIGITS = 4300
MAX_INT_BITS = int(MAX_INT_DIGITS * 3.3219)  # log2(10): bits of the smallest 4,301-digit number


@dataclass(frozen=True)
class Problem:
    field: str  # e.g. "metadata.owner.name" or "tags[3]"
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


def shown(text: str, limit: int = 60) -> str:
    """`text` as a printable, UTF-8-safe snippet for an error message (never echoes a surrogate)."""
    cut = text[:limit] + ("…" if len(text) > limit else "")
    return cut.encode("utf-8", "backslashreplace").decode("utf-8")


def text_problem(value: str) -> str | None:
    """Why `value` cannot be stored and returned as JSON text, or None."""
    if value.isascii():
        return "contains a NUL character (\\u0000)" if "\x00" in value else None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        char = value[exc.start]
        return (
            f"contains a lone surrogate (U+{ord(char):04X}) at position {exc.start}, which is "
            "not valid Unicode and cannot be encoded as UTF-8"
        )
    if "\x00" in value:
        return "contains a NUL character (\\u0000)"
    return None


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{shown(key, 40)}" if path else shown(key, 40)


def problem(value: Any, field: str = "", *, max_depth: int = MAX_DEPTH) -> Problem | None:
    """The first part of `value` that cannot round-trip as UTF-8 JSON, or None.

    Checked: every string (dict keys included) for lone surrogates and NUL, every float for
    NaN/Infinity, integers for Python's 4,300-digit conversion limit, and the nesting depth.
    """
    stack: list[tuple[Any, str, int]] = [(value, field, 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            why = text_problem(item)
            if why:
                return Problem(path, why)
        elif isinstance(item, float):
            if not math.isfinite(item):
                return Problem(
                    path, f"{item} is not a JSON number (NaN and Infinity are not allowed)"
                )
        elif isinstance(item, int) and not isinstance(item, bool):
            if item.bit_length() > MAX_INT_BITS:
                return Problem(path, f"is an integer of more than {MAX_INT_DIGITS} digits")
        elif isinstance(item, dict):
            if depth >= max_depth:
                return Problem(path, f"is nested deeper than {max_depth} levels")
            for key in item:
                if not isinstance(key, str):
                    return Problem(path, f"has a key that is not a string ({type(key).__name__})")
                why = text_problem(key)
                if why:
                    return Problem(_join(path, key), f"key {why}")
            stack.extend(
                (inner, _join(path, key), depth + 1) for key, inner in reversed(item.items())
            )
        elif isinstance(item, (list, tuple)):
            if depth >= max_depth:
                return Problem(path, f"is nested deeper than {max_depth} levels")
            stack.extend((item[i], _join(path, i), depth + 1) for i in reversed(range(len(item))))
    return None
