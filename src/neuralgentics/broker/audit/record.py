"""One audit record per tools/call (allowed, denied or malformed) and per admin change.

A record is bounded whatever the caller sent: every text field has a length limit, the
arguments keep at most ``MAX_DEPTH`` levels, ``MAX_ITEMS`` entries per level and
``MAX_VALUE_CHARS`` per string, and the whole arguments object at most ``MAX_ARGS_BYTES``. So
one record is at most a few KB (``MAX_RECORD_BYTES``), and a caller cannot flush the history
with a few huge names. Secrets are redacted wherever they would land (``redact.py``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any, ClassVar

import pydantic_core

from neuralgentics.broker.audit.redact import (
    REDACTED,
    Scrubber,
    collect_secrets,
    is_secret_key,
)

MAX_VALUE_CHARS = 200
MAX_KEY_CHARS = 64
MAX_ITEMS = 50
MAX_DEPTH = 8
MAX_ARGS_BYTES = 4096
# Per text field: what a record keeps of it.
FIELD_LIMITS = {
    "role": 64,
    "server": 64,
    "tool": 128,
    "session_id": 128,
    "connection": 128,
    "front": 16,
    "outcome": 16,
    "kind": 16,
    "credential": 80,
    "rule": 300,
    "error": 1000,
    "sandbox": 300,
}
# An upper bound on one serialised record (fields + args + JSON overhead); tests hold it.
MAX_RECORD_BYTES = 8192
NO_SECRETS = Scrubber()
_OWN_FIELDS = frozenset({"outcome", "kind", "front", "credential"})


def cut(text: str, limit: int, scrub: Scrubber | None = None) -> str:
    """``text`` within ``limit`` characters, saying how much was cut; control characters
    shown escaped (a newline in a name must not look like a second record to a reader).

    ``scrub`` runs before the cut (a secret across the cut must not leave a readable prefix),
    on at most 4 × ``limit`` characters: a 4 MB name costs no more than a short one.
    """
    if len(text) <= limit and scrub is None and text.isprintable():
        return text  # the common case: a short name of the broker's own
    look = text[: 4 * limit]
    unseen = len(text) - len(look)
    if scrub is not None:
        look = scrub(look)
    if not look.isprintable():
        look = "".join(c if c.isprintable() else repr(c)[1:-1] for c in look)
    if len(look) <= limit and not unseen:
        return look
    return look[:limit] + f"…(+{len(look) - min(limit, len(look)) + unseen} chars)"


def _bounded(value: Any, key: str, depth: int, secrets: Scrubber) -> Any:
    if key and is_secret_key(key):
        return REDACTED
    if isinstance(value, str):
        return cut(value, MAX_VALUE_CHARS, secrets)
    if value is None or isinstance(value, bool | int | float):
        return value
    if depth >= MAX_DEPTH:
        return f"[nested deeper than {MAX_DEPTH} levels]"
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for i, (k, v) in enumerate(value.items()):
            if i == MAX_ITEMS:
                out["…"] = f"(+{len(value) - MAX_ITEMS} more keys)"
                break
            name = cut(str(k), MAX_KEY_CHARS, secrets)
            out[name] = _bounded(v, str(k), depth + 1, secrets)
        return out
    if isinstance(value, list | tuple):
        items = [_bounded(v, "", depth + 1, secrets) for v in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            items.append(f"…(+{len(value) - MAX_ITEMS} more items)")
        return items
    return cut(str(value), MAX_VALUE_CHARS, secrets)


def redact(value: Any, key: str = "", secrets: Scrubber | None = None) -> Any:
    """A bounded copy of ``value`` with secret keys' values replaced and secret shapes (and
    ``secrets``' values) scrubbed from every string. Never raises, never recurses deeper than
    ``MAX_DEPTH``."""
    return _bounded(value, key, 0, secrets or NO_SECRETS)


def argument_digest(arguments: Any, secrets: Scrubber | None = None) -> tuple[Any, str]:
    """(redacted arguments, sha256 of them); the hash is over the redacted form on purpose:
    hashing the raw values would let anyone with the log confirm a guessed secret. Arguments
    over MAX_ARGS_BYTES once redacted keep only their first keys' names."""
    red = redact(arguments if arguments is not None else {}, secrets=secrets)
    canon = json.dumps(red, sort_keys=True, separators=(",", ":"), default=str, ensure_ascii=False)
    if len(canon) > MAX_ARGS_BYTES:
        keys = list(red)[:20] if isinstance(red, dict) else []
        red = {
            "…": f"arguments of {len(canon)} bytes (audit keeps {MAX_ARGS_BYTES}); keys: "
            + cut(", ".join(map(str, keys)), 1500)
        }
        canon = json.dumps(red, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return red, hashlib.sha256(canon.encode()).hexdigest()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


_SETTLED = object()
# Written forms of short text fields of records without secret values (``to_dict``): the
# names that repeat from call to call (not `error` or `rule`, which quote what came in).
_CUT_MEMO: dict[tuple[str, str], str] = {}
_MEMO_FIELDS = frozenset(
    {"role", "server", "tool", "session_id", "connection", "front", "outcome", "kind"}
    | {"credential", "sandbox"}
)
_MEMO_CHARS = 128
_MEMO_SIZE = 4096


def _cut_field(name: str, value: str, limit: int, secrets: Scrubber) -> str:
    # outcome, kind, front, credential are the broker's own words: only cut
    return cut(value, limit, None if name in _OWN_FIELDS else secrets)


@dataclass
class AuditRecord:
    role: str | None
    server: str
    tool: str
    # ok | denied | invalid (malformed request) | error | tool_error (isError result) |
    # timeout | cancelled; admin records the same; `suppressed` for a flood summary
    outcome: str
    session_id: str | None = None
    args: Any = field(default_factory=dict)
    args_sha256: str = ""
    error: str | None = None
    rule: str | None = None
    latency_ms: float = 0.0
    bytes_in: int = 0
    bytes_out: int = 0
    front: str = ""
    time: str = field(default_factory=now_iso)
    # call (a tools/call), admin (servers/reload/tokens), summary (calls a flood gate counted)
    kind: str = "call"
    # which credential made the request: owner, token:<label>, stdio, signal, …
    credential: str | None = None
    # the transport's session (a `broker stdio` process, an /mcp session) when it differs from
    # `session_id`, which is the calling agent's (OpenCode's) session when it said which
    connection: str | None = None
    # how the server that answered was confined: "off" (a plain process), "bwrap network=…";
    # None for a server the broker does not start (remote HTTP) and for non-call records
    sandbox: str | None = None
    # Not a field (not written, not in asdict): the values of secret-keyed arguments, scrubbed
    # from every text field when the record is written.
    _secrets: ClassVar[Scrubber] = NO_SECRETS  # the default; for_call sets one per record

    @classmethod
    def for_call(
        cls, *, role: str | None, server: str, tool: str, arguments: Any, **kw: Any
    ) -> AuditRecord:
        rec = cls.pending_call(role=role, server=server, tool=tool, arguments=arguments, **kw)
        rec.settle()
        return rec

    @classmethod
    def pending_call(
        cls, *, role: str | None, server: str, tool: str, arguments: Any, **kw: Any
    ) -> AuditRecord:
        """As ``for_call``, with the arguments' redaction and digest left to ``settle`` — which
        ``to_dict`` runs if nobody did, so no record is written unsettled. The broker's direct
        path settles while the server works on the call (after the pipe write): that work is
        then off the call's latency (``ToolCalls._call``). The arguments must not change until
        settled."""
        rec = cls(role=role, server=server, tool=tool, **kw)
        rec.__dict__["_raw_arguments"] = arguments
        return rec

    def settle(self) -> None:
        """Redact and digest the arguments of a ``pending_call`` record (once)."""
        arguments = self.__dict__.pop("_raw_arguments", _SETTLED)
        if arguments is _SETTLED:
            return
        found = collect_secrets(arguments)
        scrubber = Scrubber(found) if found else NO_SECRETS
        self.args, self.args_sha256 = argument_digest(arguments, scrubber)
        self._secrets = scrubber  # type: ignore[misc]

    def to_dict(self) -> dict[str, Any]:
        """What is written: every text field scrubbed and cut to its limit."""
        self.settle()
        out: dict[str, Any] = {}
        secrets = self._secrets
        memo = _CUT_MEMO if secrets is NO_SECRETS else None
        for name in _FIELDS:
            value = getattr(self, name)
            limit = FIELD_LIMITS.get(name)
            if limit is not None and value is not None:
                if (
                    memo is not None
                    and name in _MEMO_FIELDS
                    and type(value) is str
                    and len(value) <= _MEMO_CHARS
                ):
                    # the same role, server, tool, session and sandbox at every call: with no
                    # secret values to remove, the field's written form depends on it alone
                    key = (name, value)
                    done = memo.get(key)
                    if done is None:
                        if len(memo) >= _MEMO_SIZE:
                            memo.clear()
                        done = memo[key] = _cut_field(name, value, limit, secrets)
                    value = done
                else:
                    value = _cut_field(name, str(value), limit, secrets)
            out[name] = value
        return out

    def to_json(self) -> bytes:
        """One compact UTF-8 JSON line (without the newline)."""
        return pydantic_core.to_json(self.to_dict(), fallback=str)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AuditRecord:
        known = {k: v for k, v in data.items() if k in _FIELDS}
        return cls(**known)


_FIELDS = tuple(f.name for f in fields(AuditRecord))
