"""Errors memini-core raises (memory service, stores, project index): the shared kinds of
`neuralgentics.errors`, marked as memini's."""

from __future__ import annotations

from neuralgentics import errors


class MeminiError(errors.NeuralgenticsError):
    """Any error of memini-core."""


class InvalidInput(MeminiError, errors.InvalidInput):
    pass


class NotFound(MeminiError, errors.NotFound):
    pass


class Conflict(MeminiError, errors.Conflict):
    pass


class StoreUnavailable(MeminiError, errors.Unavailable):
    code = "store_unavailable"
