"""Ids by a unique prefix, like git's short hashes.

Tables print the first 8 hex digits of a UUID; every command that takes an id accepts those
(or any unique start of at least 4 digits). A prefix becomes the range of UUIDs it covers,
`[prefix000…, prefixfff…]`, which both backends answer from the primary key's index (a
PostgreSQL UUID column and SQLite's canonical lowercase text compare the same way).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from neuralgentics import errors

MIN_PREFIX = 4
# candidates named in an ambiguity error (one more is fetched to know there are more)
SHOWN = 10


class AmbiguousId(errors.InvalidInput):
    code = "ambiguous_id"

    def __init__(self, message: str, candidates: list[str], *, field: str | None = None) -> None:
        super().__init__(message, field=field)
        self.candidates = candidates

    def detail(self) -> dict[str, Any]:
        return {**super().detail(), "candidates": self.candidates}


def full_id(ref: str) -> str | None:
    """The canonical form of `ref` when it is a whole UUID, else None."""
    try:
        return str(uuid.UUID(ref))
    except (ValueError, AttributeError, TypeError):
        return None


def prefix_range(ref: str, what: str = "id") -> tuple[str, str]:
    """The lowest and highest canonical UUIDs starting with `ref` (dashes optional)."""
    digits = ref.replace("-", "").lower()
    if not (MIN_PREFIX <= len(digits) <= 32) or any(c not in "0123456789abcdef" for c in digits):
        raise errors.InvalidInput(
            f"{what} {ref!r} is neither an id nor the start of one "
            f"(at least {MIN_PREFIX} hex digits, as the tables print them)",
            field=what,
        )
    low, high = (digits + fill * (32 - len(digits)) for fill in "0f")
    return str(uuid.UUID(low)), str(uuid.UUID(high))


def resolve(
    ref: str,
    between: Callable[[str, str, int], list[str]],
    *,
    what: str = "id",
    noun: str = "id",
) -> str:
    """The one id `ref` names: itself when whole, else the only id that starts with it.

    `between(low, high, limit)` lists ids in that inclusive range in order, at most `limit`.
    None found: NotFound; several: AmbiguousId naming the candidates."""
    whole = full_id(ref)
    if whole is not None:
        return whole
    low, high = prefix_range(ref, what)
    found = between(low, high, SHOWN + 1)
    if not found:
        raise errors.NotFound(f"no {noun} starts with {ref!r}", field=what)
    if len(found) > 1:
        count = str(len(found)) if len(found) <= SHOWN else f"more than {SHOWN}"
        shown = ", ".join(found[:SHOWN]) + (", …" if len(found) > SHOWN else "")
        raise AmbiguousId(
            f"{what} {ref!r} is ambiguous: {count} {noun}s start with it ({shown}); "
            "give more digits",
            found[:SHOWN],
            field=what,
        )
    return found[0]
