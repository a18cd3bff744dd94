"""The one error tree. Every area raises these at its edge: an HTTP status, a snake_case code,
a message naming the problem and, where there is one, the field. Every HTTP front answers
them as ``{"error": {"code", "message", "field", ...}}``; commands print the message and exit
non-zero; the broker's MCP fronts send `rpc_code` as the JSON-RPC error code.

    NeuralgenticsError
    ├── InvalidInput        422  the request is malformed or breaks a rule
    ├── Unauthorized        401  no credential, or a wrong one
    ├── Forbidden           403  the caller may not do this
    ├── NotFound            404  what it names does not exist
    ├── Conflict            409  it clashes with the current state
    ├── InvalidConfig       500  a file or setting the user wrote is wrong (the request is fine)
    └── Unavailable         503  a part it needs is down; try again

Commands map the same tree to exit codes (`neuralgentics.exits`): the 4xx kinds and
InvalidConfig exit 2 (bad input), Unavailable 3, anything else 1.

Each area has its own base (`memini.errors.MeminiError`, `orchestrator.errors.OrchestratorError`,
`broker.errors.BrokerError`, ...) and its errors inherit from both, e.g.
``class StoreUnavailable(MeminiError, Unavailable)``: ``except NotFound`` catches every area's,
``except MeminiError`` only memini's. A subclass may refine `status` and `code` and add fields
to `detail()` (a refused step names the missing one, an access denial its rule).
"""

from __future__ import annotations

from typing import Any


class NeuralgenticsError(Exception):
    status = 500
    code = "internal_error"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def detail(self) -> dict[str, Any]:
        # A message may quote what the caller sent; a lone surrogate in it would make the
        # error itself unencodable (a 500 instead of the 4xx), so such text is escaped.
        return {"code": self.code, "message": _utf8(self.message), "field": _utf8(self.field)}

    def to_json(self) -> dict[str, Any]:
        return {"error": self.detail()}


class InvalidInput(NeuralgenticsError):
    status = 422
    code = "invalid_input"


class Unauthorized(NeuralgenticsError):
    status = 401
    code = "unauthorized"


class Forbidden(NeuralgenticsError):
    status = 403
    code = "forbidden"


class NotFound(NeuralgenticsError):
    status = 404
    code = "not_found"


class Conflict(NeuralgenticsError):
    status = 409
    code = "conflict"


class InvalidConfig(NeuralgenticsError):
    # The server cannot answer until its owner fixes a file (broker.yaml, the roster, the token
    # file): not the request's fault, so not a 4xx; a command reading that file exits 2.
    status = 500
    code = "config_error"


class Unavailable(NeuralgenticsError):
    status = 503
    code = "unavailable"


def error_body(code: str, message: str, field: str | None = None, **extra: Any) -> dict[str, Any]:
    """The documented error body, for answers made without an exception (pure ASGI guards)."""
    return {"error": {"code": code, "message": message, "field": field, **extra}}


def _utf8(text: str | None) -> str | None:
    if text is None or text.isascii():
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
