"""Checks every store applies before writing, so bad input is refused the same way on both."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from neuralgentics.memini.errors import InvalidInput
from neuralgentics.memini.store.base import RELATIONSHIP_TYPES

DIM = 384


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
    if "\x00" in value:
        raise InvalidInput(f"{field} contains a NUL character", field=field)
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
    return value


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
