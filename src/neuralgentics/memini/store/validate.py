"""Checks every store applies before writing, written once so both stores refuse, and
normalise, the same way: `check_new_memory`, `check_patch`, `check_change`, `check_link` and
`check_new_link` take what a store method was given and return what it writes (tags without
repeats, numbers as floats); the smaller checks are their parts."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import numpy as np

from neuralgentics import jsonsafe
from neuralgentics.memini import scopes
from neuralgentics.memini.errors import InvalidInput
from neuralgentics.memini.store.base import (
    RELATIONSHIP_TYPES,
    MemoryFilter,
    MemoryPatch,
    NewLink,
    NewMemory,
    TrustChange,
)

MAX_SOURCE_TYPE = 50
MAX_EVENT = 50

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


def check_text(
    value: str, field: str, *, max_len: int | None = None, allow_empty: bool = False
) -> str:
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
    """Each tag checked; a tag given twice is kept once, in first-seen order."""
    if isinstance(value, str):
        raise InvalidInput(f"{field} must be a list of strings, not one string", field=field)
    out = []
    for tag in value:
        out.append(check_text(tag, field))
    return list(dict.fromkeys(out))


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
    for owner in flt.owners or []:
        scopes.check_scope(owner.scope)
        if owner.key is not None:
            check_text(owner.key, owner.scope, allow_empty=True)
    return flt


def check_relationship_type(
    value: str, field: str = "relationship_type", shown: str | None = None
) -> str:
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


def check_new_memory(new: NewMemory) -> NewMemory:
    """What `add_memory` writes."""
    return replace(
        new,
        content=check_text(new.content, "content"),
        content_hash=check_text(new.content_hash, "content_hash"),
        embedding=check_vector(new.embedding),
        project=check_text(new.project, "project", allow_empty=True),
        source_type=(
            check_text(new.source_type, "source_type", max_len=MAX_SOURCE_TYPE)
            if new.source_type is not None
            else None
        ),
        tags=check_tags(new.tags),
        metadata=check_metadata(new.metadata),
        trust_score=check_unit(new.trust_score, "trust_score"),
        scope=scopes.check_scope(new.scope),
        agent=check_text(new.agent, "agent", allow_empty=True),
        session=check_text(new.session, "session", allow_empty=True),
    )


def check_patch(patch: MemoryPatch) -> MemoryPatch:
    """What `update_memory` writes: new content comes with its embedding and hash, and a hash
    changes only with the content."""
    if patch.content is not None:
        if patch.embedding is None or patch.content_hash is None:
            raise InvalidInput("new content needs its embedding and content_hash", field="content")
    elif patch.content_hash is not None or patch.embedding is not None:
        raise InvalidInput(
            "content_hash and embedding change only with the content", field="content"
        )
    return replace(
        patch,
        content=check_text(patch.content, "content") if patch.content is not None else None,
        embedding=check_vector(patch.embedding) if patch.embedding is not None else None,
        content_hash=(
            check_text(patch.content_hash, "content_hash")
            if patch.content_hash is not None
            else None
        ),
        source_type=(
            check_text(patch.source_type, "source_type", max_len=MAX_SOURCE_TYPE)
            if patch.source_type is not None
            else None
        ),
        tags=check_tags(patch.tags) if patch.tags is not None else None,
        metadata=check_metadata(patch.metadata) if patch.metadata is not None else None,
    )


def check_change(change: TrustChange) -> TrustChange:
    """A trust event a store records: a named event, a finite delta, text it can store."""
    check_text(change.event, "event", max_len=MAX_EVENT)
    if (
        isinstance(change.delta, bool)
        or not isinstance(change.delta, (int, float))
        or not math.isfinite(change.delta)
    ):
        raise InvalidInput("delta must be a finite number", field="delta")
    if change.actor is not None:
        check_text(change.actor, "actor", allow_empty=True)
    if change.note is not None:
        check_text(change.note, "note", allow_empty=True)
    return change


def check_link(
    relationship_type: str, confidence: float, metadata: dict | None
) -> tuple[str, float, dict]:
    """A relationship a store writes: its type, its confidence in [0, 1], its metadata."""
    return (
        check_relationship_type(relationship_type),
        check_unit(confidence, "confidence"),
        check_metadata(metadata if metadata is not None else {}),
    )


def check_new_link(link: NewLink) -> NewLink:
    """An edge `add_memory(links=...)` or `add_relationships` writes: `check_link`'s checks and
    its trust change's."""
    relationship_type, confidence, metadata = check_link(
        link.relationship_type, link.confidence, link.metadata
    )
    if link.trust_change is not None:
        check_change(link.trust_change)
    return replace(
        link, relationship_type=relationship_type, confidence=confidence, metadata=metadata
    )
