"""Rows as they are read: one bad row must not fail every read that meets it.

The write path refuses what cannot round-trip as UTF-8 JSON, but a database can still hold
such a row: written by an older version, by hand, by another tool, or damaged. Reading it
used to fail the whole request (a 500 for `GET /memory`, every query that hit it, the
dashboard, `memory list --local`). Each read now repairs what it shows — lone surrogates and
undecodable bytes become U+FFFD, unreadable JSON becomes an empty value, a bad timestamp the
epoch — and says so once per row in a warning. The stored row itself is never changed by a
read: deleting or fixing it stays the user's decision.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
from datetime import UTC, datetime
from typing import Any

from neuralgentics import jsonsafe

log = logging.getLogger("neuralgentics.memini.store.repair")

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# A JSON text can only carry a surrogate as an escape; a valid pair matches too, and is then
# found harmless by the walk. Everything else is ASCII (json.dumps' default) or decodes cleanly.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_WARNED_MAX = 10_000


class Repairs:
    """What one row needed; `report()` writes the warning (once per row and problem)."""

    _warned: set[tuple[str, str]] = set()
    _lock = threading.Lock()

    def __init__(self, kind: str, row_id: object) -> None:
        self.kind = kind
        self.row_id = str(row_id)
        self.problems: list[str] = []

    def note(self, field: str, why: str) -> None:
        self.problems.append(f"{field} {why}")

    def report(self) -> None:
        if not self.problems:
            return
        key = (f"{self.kind} {self.row_id}", "; ".join(self.problems))
        with Repairs._lock:
            if key in Repairs._warned:
                return
            if len(Repairs._warned) >= _WARNED_MAX:
                Repairs._warned.clear()
            Repairs._warned.add(key)
        log.warning(
            "%s %s holds data that cannot be sent as JSON (%s); shown repaired, the stored row"
            " is unchanged — fix or delete it",
            self.kind,
            self.row_id,
            key[1],
        )


_SUSPECT_JSON = re.compile(r"\\u[dD][89a-fA-F]|\\u0000|NaN|Infinity")


def clean_json_text(raw: Any) -> bool:
    """True when a stored JSON text (SQLite) surely parses into a value that can be sent back:
    the fast path of every read. False sends the row through the repairing path."""
    if not isinstance(raw, str) or not raw.isascii() or _SUSPECT_JSON.search(raw):
        return False
    return len(raw) < 2 * MAX_SHOWN_DEPTH or raw.count("[") + raw.count("{") <= MAX_SHOWN_DEPTH


def clean_text(*values: Any) -> bool:
    """True when every value is None or text that encodes as UTF-8 (the fast path)."""
    for value in values:
        if value is None or (isinstance(value, str) and value.isascii()):
            continue
        if not isinstance(value, str):
            return False
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
    return True


def fix_text(value: str, repairs: Repairs, field: str) -> str:
    """Lone surrogates (also undecodable bytes read with surrogateescape) → U+FFFD."""
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        repairs.note(field, "is not valid Unicode")
        # utf-16 with surrogatepass pairs what can be paired; the rest becomes U+FFFD
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return value


def fix_optional_text(value: Any, repairs: Repairs, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        repairs.note(field, f"is a {type(value).__name__}, not text")
        return str(value)
    return fix_text(value, repairs, field)


# Deeper than this is cut (the response encoders recurse); well above what the API accepts.
MAX_SHOWN_DEPTH = 64
TOO_DEEP = "[nested too deeply to show]"


def fix_json_value(value: Any, repairs: Repairs, field: str) -> Any:
    """A JSON value with every bad string repaired, NaN/Infinity as null, huge integers as
    text and nesting cut at MAX_SHOWN_DEPTH."""
    if jsonsafe.problem(value, max_depth=MAX_SHOWN_DEPTH) is None:
        return value
    repairs.note(field, "holds text, numbers or nesting that cannot be sent as JSON")
    return _fix(value)


def _fix_text(text: str) -> str:
    return (
        text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").replace("\x00", "\ufffd")
    )


def _fix(value: Any) -> Any:
    # Iterative rebuild: the value may be nested deeper than the recursion limit.
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(value, root, 0, 0)]
    while stack:
        item, parent, key, depth = stack.pop()
        if isinstance(item, str):
            out: Any = _fix_text(item)
        elif isinstance(item, float) and not math.isfinite(item):
            out = None
        elif (
            isinstance(item, int)
            and not isinstance(item, bool)
            and item.bit_length() > jsonsafe.MAX_INT_BITS
        ):
            out = f"[an integer of {item.bit_length()} bits]"
        elif isinstance(item, (dict, list, tuple)) and depth >= MAX_SHOWN_DEPTH:
            out = TOO_DEEP
        elif isinstance(item, dict):
            out = {}
            for k, v in item.items():
                stack.append(
                    (v, out, _fix_text(k) if isinstance(k, str) else _fix_text(str(k)), depth + 1)
                )
        elif isinstance(item, (list, tuple)):
            out = [None] * len(item)
            stack.extend((v, out, i, depth + 1) for i, v in enumerate(item))
        else:
            out = item
        parent[key] = out
    return root[0]


def json_text(raw: Any, repairs: Repairs, field: str, default: Any) -> Any:
    """Parse a stored JSON text (SQLite); unreadable → `default`, repaired as needed."""
    if not isinstance(raw, str):
        repairs.note(field, f"is stored as {type(raw).__name__}, not JSON text")
        return default
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        repairs.note(field, "is not valid JSON")
        return default
    if (
        raw.isascii()
        and not _SURROGATE_ESCAPE.search(raw)
        and "NaN" not in raw
        and "Infinity" not in raw
        and "\\u0000" not in raw
        and raw.count("[") + raw.count("{") <= MAX_SHOWN_DEPTH
    ):
        return value
    return fix_json_value(value, repairs, field)


def metadata(value: Any, repairs: Repairs, field: str = "metadata") -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        repairs.note(field, f"is a JSON {type(value).__name__}, not an object")
        return {}
    return value


def tags(value: Any, repairs: Repairs) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        repairs.note("tags", f"is a JSON {type(value).__name__}, not a list")
        return []
    if all(isinstance(t, str) for t in value):
        return value
    repairs.note("tags", "holds values that are not strings")
    return [t if isinstance(t, str) else json.dumps(t) for t in value if t is not None]


def timestamp(raw: Any, repairs: Repairs, field: str) -> datetime:
    if isinstance(raw, datetime):
        return raw
    try:
        return datetime.fromisoformat(raw)
    except (TypeError, ValueError):
        repairs.note(field, "is not a timestamp")
        return EPOCH
