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
        # A message may quote what the caller sent; a lone surrogate in it would make the
        # error itself unencodable (a 500 instead of the 4xx), so such text is escaped.
        return {"code": self.code, "message": _utf8(self.message), "field": _utf8(self.field)}

    def to_json(self) -> dict:
        return {"error": self.detail()}


def _utf8(text: str | None) -> str | None:
    return text if text is None or text.isascii() else text.encode("utf-8", "backslashreplace").decode("utf-8")
