"""Errors memini-core raises (memory service, stores, project index): the shared kinds of
`neuralgentics.errors`, marked as memini's. A database that cannot be reached is the database
layer's `StoreUnavailable` (the same class for memories, the project index, task records)."""

from __future__ import annotations

from neuralgentics import errors
from neuralgentics.db.errors import StoreUnavailable

__all__ = ["Conflict", "InvalidInput", "MeminiError", "NotFound", "StoreUnavailable"]


class MeminiError(errors.NeuralgenticsError):
    """Any error of memini-core."""


class InvalidInput(MeminiError, errors.InvalidInput):
    pass


class NotFound(MeminiError, errors.NotFound):
    pass


class Conflict(MeminiError, errors.Conflict):
    pass
