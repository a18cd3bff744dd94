"""SQLite allows a bounded number of `?` in one statement, so long IN-lists go in slices."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
MAX_VARIABLES = 900


def in_batches(values: Sequence[T], size: int = MAX_VARIABLES) -> Iterator[tuple[Sequence[T], str]]:
    """Each slice of `values` with its placeholder list, e.g. ([a, b], "?,?")."""
    for start in range(0, len(values), size):
        part = values[start : start + size]
        yield part, ",".join("?" * len(part))
