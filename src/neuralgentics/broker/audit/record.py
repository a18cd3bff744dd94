"""One audit record per tools/call, allowed or denied, with secrets redacted."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pydantic_core

REDACTED = "[REDACTED]"
_MAX_VALUE_CHARS = 200

# Keys whose values are secrets (matched anywhere in the key, case-insensitive).
_SECRET_KEY = re.compile(
    r"passw|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth|credential"
    r"|cookie|bearer|signature|session[_-]?id|^key$|[_-]key$|otp$|^pin$",
    re.IGNORECASE,
)
# Values that are secrets whatever their key is called.
_SECRET_VALUE = re.compile(
    r"^(Bearer|Basic)\s+\S+|^(sk|pk|rk)-[A-Za-z0-9_-]{16,}|^gh[pousr]_[A-Za-z0-9]{20,}"
    r"|^xox[abposr]-|^AKIA[0-9A-Z]{16}$|-----BEGIN [A-Z ]*PRIVATE KEY-----",
)


def is_secret_key(key: str) -> bool:
    return bool(_SECRET_KEY.search(key))


def redact(value: Any, key: str = "") -> Any:
    """A copy of ``value`` with secret-looking keys' values replaced and long strings cut."""
    if key and is_secret_key(key):
        return REDACTED
    if isinstance(value, dict):
        return {str(k): redact(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    if isinstance(value, str):
        if _SECRET_VALUE.search(value):
            return REDACTED
        if len(value) > _MAX_VALUE_CHARS:
            return value[:_MAX_VALUE_CHARS] + f"…(+{len(value) - _MAX_VALUE_CHARS} chars)"
    return value


def argument_digest(arguments: dict[str, Any] | None) -> tuple[dict[str, Any], str]:
    """(redacted arguments, sha256 of them); the hash is over the redacted form on purpose:
    hashing the raw values would let anyone with the log confirm a guessed secret."""
    red = redact(arguments or {})
    canon = json.dumps(red, sort_keys=True, separators=(",", ":"), default=str)
    return red, hashlib.sha256(canon.encode()).hexdigest()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(slots=True)
class AuditRecord:
    role: str | None
    server: str
    tool: str
    # allowed | denied | error | tool_error (isError result) | timeout | cancelled
    outcome: str
    session_id: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    args_sha256: str = ""
    error: str | None = None
    rule: str | None = None
    latency_ms: float = 0.0
    bytes_in: int = 0
    bytes_out: int = 0
    front: str = ""
    time: str = field(default_factory=now_iso)

    @classmethod
    def for_call(
        cls, *, role: str | None, server: str, tool: str, arguments: dict[str, Any] | None, **kw: Any
    ) -> AuditRecord:
        red, digest = argument_digest(arguments)
        return cls(role=role, server=server, tool=tool, args=red, args_sha256=digest, **kw)

    def to_dict(self) -> dict[str, Any]:
        # Shallow on purpose: `args` is already a fresh redacted copy (asdict would deep-copy it
        # again on every call's hot path).
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    def to_json(self) -> bytes:
        """One compact UTF-8 JSON line (without the newline)."""
        return pydantic_core.to_json(self.to_dict(), fallback=str)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AuditRecord:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)
