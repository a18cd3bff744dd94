"""What a database failure means to a caller, as kinds of the one error tree: the database is
unreachable (503), a value was refused by a constraint (422), a row already exists (409), or a
row it refers to does not (404)."""

from __future__ import annotations

from neuralgentics import errors


class DatabaseError(errors.NeuralgenticsError):
    """Any error of the database layer."""


class StoreUnavailable(DatabaseError, errors.Unavailable):
    code = "store_unavailable"


class Rejected(DatabaseError, errors.InvalidInput):
    """A value the database refused (a CHECK constraint, a value it cannot hold)."""


class AlreadyExists(DatabaseError, errors.Conflict):
    pass


class MissingReference(DatabaseError, errors.NotFound):
    pass
