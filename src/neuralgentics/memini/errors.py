"""Errors the memory service raises; the HTTP layer maps each to one status code."""

from __future__ import annotations

from neuralgentics.errors import NeuralgenticsError


class MeminiError(NeuralgenticsError):
    pass


class InvalidInput(MeminiError):
    status = 422
    code = "invalid_input"


class NotFound(MeminiError):
    status = 404
    code = "not_found"


class Conflict(MeminiError):
    status = 409
    code = "conflict"


class StoreUnavailable(MeminiError):
    status = 503
    code = "store_unavailable"
