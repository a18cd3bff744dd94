"""Limits on what a caller may send, checked before anything else looks at it.

Names: a server name is a config name (1-64 of ``A-Za-z0-9_.-``); a tool name 1-128 of
``A-Za-z0-9_.-/:`` (the MCP spec's recommended tool-name characters, plus ``/`` and ``:``
that some servers use). Arguments: at most ``MAX_DEPTH`` levels of nesting and
``MAX_ARGUMENT_BYTES`` serialised. A request over a limit gets a clear error (HTTP 400 /
JSON-RPC -32602) and an audit record like any other.

Messages too deep for a JSON parser at all (the SDK's parser stops at 200 levels) are read by
:func:`loads_pruned`, which cuts everything below a depth, so the request's id, method and
tool are still known: it is answered and audited instead of silently dropped.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable
from typing import Any

from neuralgentics.broker.config import NAME_PATTERN
from neuralgentics.broker.errors import InvalidRequest

MAX_DEPTH = 32
MAX_ARGUMENT_BYTES = 16 * 1024 * 1024
TOOL_PATTERN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:/-]{0,127}")
# The calling agent's session id (OpenCode's `ses_…`, a client's own): it goes into audit
# records and, as a header, to the egress gateway, so only characters safe in both.
SESSION_PATTERN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:@-]{0,127}")

# A string literal or a bracket: the only tokens that change nesting depth.
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _shown(value: str, limit: int = 64) -> str:
    """The start of a refused name, escaped; only that much is looked at (it may be 4 MB)."""
    head = value[:limit]
    text = head if head.isprintable() else head.encode("unicode_escape").decode()
    return repr(text) + (f"…(+{len(value) - limit} chars)" if len(value) > limit else "")


def check_names(server: Any, tool: Any) -> None:
    for field_name, value, pattern, what in (
        ("server", server, NAME_PATTERN, "1-64 of A-Z a-z 0-9 _ . -"),
        ("tool", tool, TOOL_PATTERN, "1-128 of A-Z a-z 0-9 _ . - / :"),
    ):
        if not isinstance(value, str) or not value:
            raise InvalidRequest(f"'{field_name}' is required and must be a non-empty string")
        if not pattern.fullmatch(value):
            raise InvalidRequest(f"'{field_name}' {_shown(value)} is not a valid name ({what})")


def check_session_id(value: Any, where: str = "session_id") -> str | None:
    """The caller's session id as given (None when absent or empty), or InvalidRequest."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not SESSION_PATTERN.fullmatch(value):
        shown = _shown(value) if isinstance(value, str) else type(value).__name__
        raise InvalidRequest(
            f"{where} {shown} is not a session id (1-128 of A-Z a-z 0-9 _ . : @ -)",
            field=where,
        )
    return value


def depth_over(value: Any, limit: int = MAX_DEPTH) -> bool:
    """True when ``value`` nests containers more than ``limit`` levels deep (iterative)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, d = stack.pop()
        items: Iterable[Any]
        if isinstance(v, dict):
            items = v.values()
        elif isinstance(v, list | tuple):
            items = v
        else:
            continue
        if d >= limit:
            return True
        stack.extend((x, d + 1) for x in items if isinstance(x, dict | list | tuple))
    return False


def check_arguments(arguments: Any) -> None:
    if depth_over(arguments):
        raise InvalidRequest(f"'arguments' are nested deeper than {MAX_DEPTH} levels")


def check_size(size: int) -> None:
    if size > MAX_ARGUMENT_BYTES:
        raise InvalidRequest(
            f"'arguments' are {size} bytes, over the limit of {MAX_ARGUMENT_BYTES}"
        )


# Brackets and strings loads_pruned looks at before it gives up (~20 ms of scanning): past
# that, only the top-level fields are looked for (``_head_fields``).
MAX_SCANNED_TOKENS = 100_000
_HEAD_FIELD = re.compile(
    rb'"(id|method|server|tool|name)"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,18})'
)


def _head_fields(data: bytes) -> dict[str, Any]:
    """The id, method, server and tool named in the first 64 KB, when a full read is too costly."""
    found: dict[str, Any] = {}
    for m in _HEAD_FIELD.finditer(data[:65536]):
        key = m.group(1).decode()
        if key not in found:
            with contextlib.suppress(ValueError):
                found[key] = json.loads(m.group(2))
    return found


def loads_pruned(raw: bytes | str, max_depth: int = 8) -> tuple[Any, bool]:
    """Parse JSON with everything nested deeper than ``max_depth`` replaced by null.

    Returns (value, pruned). Raises ValueError when ``raw`` is not JSON even so. Scans only
    string literals and brackets, then hands the cut text to ``json``. A text with more than
    MAX_SCANNED_TOKENS brackets and strings is not scanned to its end: the id, method, name,
    server and tool in its first 64 KB are picked out instead, at the top level and under
    ``params``/``arguments`` (a request too deep to read still gets its id answered).
    """
    data = raw.encode() if isinstance(raw, str) else raw
    out: list[bytes] = []
    depth = 0
    cut_from: int | None = None  # where the current over-deep container starts
    pos = 0
    pruned = False
    for n, m in enumerate(_TOKENS.finditer(data)):
        if n == MAX_SCANNED_TOKENS:
            head = _head_fields(data)
            if not head:
                raise ValueError("not JSON that can be read within the scanning budget")
            # Where a REST call has them (top level) and where a JSON-RPC tools/call has them.
            params: dict[str, Any] = {"name": head["name"]} if "name" in head else {}
            params["arguments"] = {k: head[k] for k in ("server", "tool") if k in head}
            return {**head, "params": params}, True
        tok = m.group()
        if tok in (b"{", b"["):
            depth += 1
            if depth == max_depth + 1 and cut_from is None:
                out.append(data[pos : m.start()])
                cut_from = m.start()
        elif tok in (b"}", b"]"):
            if depth == max_depth + 1 and cut_from is not None:
                out.append(b"null")
                pos = m.end()
                cut_from = None
                pruned = True
            depth -= 1
            if depth < 0:
                raise ValueError("unbalanced brackets")
    if cut_from is not None:
        raise ValueError("the JSON text ends inside a container")
    out.append(data[pos:])
    return json.loads(b"".join(out)), pruned
