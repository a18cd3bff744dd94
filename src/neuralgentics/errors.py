"""The error every area raises at its edge: an HTTP status, a code, a message naming the
problem and, where there is one, the field. Routes answer it as
{"error": {"code", "message", "field"}}; commands print the message and exit non-zero."""

from __future__ import annotations


class NeuralgenticsError(Exception):
    status = 400
    code = "bad_request"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def detail(self) -> dict:
        return {"code": self.code, "message": self.message, "field": self.field}

    def to_json(self) -> dict:
        return {"error": self.detail()}
