"""Checks every store applies before writing, so bad input is refused the same way on both."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from neuralgentics import jsonsafe
from neuralgentics.memini.errors import InvalidInput
from neuralgentics.memini.store.base import RELATIONSHIP_TYPES, MemoryFilter

DIM = 384
# A memory carries at most 50 tags (the API's limit), so a filter naming more distinct tags
# can match nothing; on SQLite each one is also a clause, and ~1,000 of them overflow the
# parser ("Expression tree is too large").
MAX_FILTER_TAGS = 50


def check_vector(value: Any, field: str = "embedding") -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"{field} must be an array of {DIM} floats", field=field) from exc
    if arr.shape != (DIM,):
        raise InvalidInput(f"{field} must have shape ({DIM},), got {arr.shape}", field=field)
    if not np.all(np.isfinite(arr)):
        raise InvalidInput(f"{field} contains NaN or infinite values", field=field)
    if not np.any(arr):
        raise InvalidInput(f"{field} is all zeros (cosine is undefined)", field=field)
    return arr


def check_text(value: str, field: str, *, max_len: int | None = None, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{field} must be a string", field=field)
    if not allow_empty and not value.strip():
        raise InvalidInput(f"{field} must not be empty", field=field)
    why = jsonsafe.text_problem(value)
    if why:
        raise InvalidInput(f"{field} {why}", field=field)
    if max_len is not None and len(value) > max_len:
        raise InvalidInput(f"{field} is longer than {max_len} characters", field=field)
    return value


def check_tags(value: Iterable[str], field: str = "tags") -> list[str]:
    if isinstance(value, str):
        raise InvalidInput(f"{field} must be a list of strings, not one string", field=field)
    out = []
    for tag in value:
        out.append(check_text(tag, field))
    return out


def check_metadata(value: Any, field: str = "metadata") -> dict:
    if not isinstance(value, dict):
        raise InvalidInput(f"{field} must be a JSON object", field=field)
    check_json(value, field)
    return value


def check_json(value: Any, field: str) -> Any:
    """Refuse what cannot be stored and read back as UTF-8 JSON (see neuralgentics.jsonsafe)."""
    found = jsonsafe.problem(value, field)
    if found is not None:
        raise InvalidInput(str(found), field=found.field or field)
    return value


def check_filter(flt: MemoryFilter) -> MemoryFilter:
    """A filter's text is a value like any other: it must be valid Unicode, without NUL."""
    if flt.project is not None:
        check_text(flt.project, "project", allow_empty=True)
    if flt.source_type is not None:
        check_text(flt.source_type, "source_type", allow_empty=True)
    if isinstance(flt.tags, str):
        raise InvalidInput("tags must be a list of strings, not one string", field="tags")
    distinct = list(dict.fromkeys(flt.tags))
    if len(distinct) > MAX_FILTER_TAGS:
        raise InvalidInput(
            f"a filter may name at most {MAX_FILTER_TAGS} distinct tags (a memory carries at most"
            f" {MAX_FILTER_TAGS}); got {len(distinct)}",
            field="tags",
        )
    for tag in distinct:
        check_text(tag, "tags", allow_empty=True)
    return flt


def check_relationship_type(value: str, field: str = "relationship_type", shown: str | None = None) -> str:
    """``value`` if it is one of RELATIONSHIP_TYPES; ``shown`` is what the caller typed."""
    if value not in RELATIONSHIP_TYPES:
        raise InvalidInput(
            f"unknown relationship type {shown if shown is not None else value!r}; expected one of "
            + ", ".join(RELATIONSHIP_TYPES),
            field=field,
        )
    return value


def check_unit(value: float, field: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"{field} must be a number", field=field) from exc
    if not (0.0 <= number <= 1.0):
        raise InvalidInput(f"{field} must be between 0 and 1, got {value}", field=field)
    return number
