"""The export file: JSON Lines, one record per line (docs/memini.md, "Export and import").

    {"type":"header","format":"neuralgentics-memories","version":1,"embedding_model":...,"dim":384,...}
    {"type":"memory","id":...,"content":...,"trust_events":[...],"embedding":"<base64 float32 LE>"}
    ...
    {"type":"relationship","id":...,"source_id":...,"target_id":...,...}
    ...
    {"type":"end","memories":N,"relationships":M,"trust_events":K}

Lines are written with sorted keys and no spaces, and timestamps in UTC with microseconds, so
the same memories give the same bytes whichever store they come from. The end line lets an
import tell a complete file from one cut short.
"""

from __future__ import annotations

import base64
import json
import math
from dataclasses import replace
from datetime import datetime
from typing import Any, Literal
from uuid import UUID

import numpy as np
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from neuralgentics.memini import scopes
from neuralgentics.memini.errors import InvalidInput
from neuralgentics.memini.store import validate
from neuralgentics.memini.store.base import (
    Memory,
    Relationship,
    TrustEvent,
    from_milli,
    to_milli,
)
from neuralgentics.memini.store.transfer import ImportedMemory, utc

FORMAT = "neuralgentics-memories"
VERSION = 1
DIM = validate.DIM


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def ts(value: datetime) -> str:
    return utc(value).isoformat(timespec="microseconds")


def encode_vector(vector: np.ndarray) -> str:
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def decode_vector(text: str) -> np.ndarray:
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        raise InvalidInput("embedding is not valid base64", field="embedding") from None
    if len(raw) != DIM * 4:
        raise InvalidInput(
            f"embedding must be {DIM} float32 values ({DIM * 4} bytes), got {len(raw)} bytes",
            field="embedding",
        )
    vector = validate.check_vector(np.frombuffer(raw, dtype="<f4").astype(np.float32))
    # every stored vector is L2-normalised (cosine is a dot product); refuse one that is not
    if abs(float(np.linalg.norm(vector)) - 1.0) > 1e-3:
        raise InvalidInput("embedding is not L2-normalised", field="embedding")
    return vector


def header(embedding_model: str | None, project: str | None) -> dict[str, Any]:
    return {
        "type": "header",
        "format": FORMAT,
        "version": VERSION,
        "embedding_model": embedding_model,
        "dim": DIM,
        "project": project,
    }


def event_record(e: TrustEvent) -> dict[str, Any]:
    return {
        "event": e.event,
        "delta": e.delta,
        "actor": e.actor,
        "score_after": e.score_after,
        "note": e.note,
        "created_at": ts(e.created_at),
    }


def memory_record(
    m: Memory, events: list[TrustEvent], embedding: np.ndarray | None
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": "memory",
        "id": m.id,
        "content": m.content,
        "project": m.project,
        "scope": m.scope,
        "agent": m.agent,
        "session": m.session,
        "source_type": m.source_type,
        "tags": m.tags,
        "metadata": m.metadata,
        "trust_score": m.trust_score,
        "created_at": ts(m.created_at),
        "updated_at": ts(m.updated_at),
        "trust_events": [event_record(e) for e in events],
    }
    if embedding is not None:
        record["embedding"] = encode_vector(embedding)
    return record


def relationship_record(r: Relationship) -> dict[str, Any]:
    return {
        "type": "relationship",
        "id": r.id,
        "source_id": r.source_id,
        "target_id": r.target_id,
        "relationship_type": r.relationship_type,
        "confidence": r.confidence,
        "created_at": ts(r.created_at),
        "metadata": r.metadata,
    }


def end_record(memories: int, relationships: int, trust_events: int) -> dict[str, Any]:
    return {
        "type": "end",
        "memories": memories,
        "relationships": relationships,
        "trust_events": trust_events,
    }


# -- reading: pydantic for the shape, store/validate.py for the values -----------------------


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HeaderLine(_Line):
    type: Literal["header"]
    format: Literal["neuralgentics-memories"]
    version: Literal[1]
    embedding_model: str | None = None
    dim: Literal[384]
    project: str | None = None


class EventLine(_Line):
    event: str
    delta: float
    actor: str | None = None
    score_after: float
    note: str | None = None
    created_at: AwareDatetime


class MemoryLine(_Line):
    type: Literal["memory"]
    id: UUID
    content: str
    project: str = ""
    # memini/scopes.py; the defaults read a file written before scopes as project memories
    scope: str = "project"
    agent: str = ""
    session: str = ""
    source_type: str | None = None
    tags: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    trust_score: float
    created_at: AwareDatetime
    updated_at: AwareDatetime
    trust_events: list[EventLine] = Field(default_factory=list)
    embedding: str | None = None


class RelationshipLine(_Line):
    type: Literal["relationship"]
    id: UUID
    source_id: UUID
    target_id: UUID
    relationship_type: str
    confidence: float
    created_at: AwareDatetime
    metadata: dict[str, Any] = Field(default_factory=dict)


class EndLine(_Line):
    type: Literal["end"]
    memories: int = Field(ge=0)
    relationships: int = Field(ge=0)
    trust_events: int = Field(ge=0)


LINE_TYPES: dict[str, type[_Line]] = {
    "header": HeaderLine,
    "memory": MemoryLine,
    "relationship": RelationshipLine,
    "end": EndLine,
}


def parse(raw: bytes) -> _Line:
    """One line as its record; InvalidInput naming the problem (the caller adds the line)."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise InvalidInput(f"not valid JSON: {exc}", field="line") from None
    if not isinstance(data, dict):
        raise InvalidInput("a line must be a JSON object", field="line")
    kind = data.get("type")
    model = LINE_TYPES.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise InvalidInput(
            f"unknown record type {kind!r}; expected one of {', '.join(LINE_TYPES)}", field="type"
        )
    from pydantic import ValidationError

    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "line"
        raise InvalidInput(f"{where}: {first['msg']}", field=where) from None


def _finite(value: float, field: str) -> float:
    if not math.isfinite(value):
        raise InvalidInput(f"{field} must be a finite number", field=field)
    return value


def _milli(value: float) -> float:
    """Trust as the stores keep it: exact thousandths."""
    return from_milli(to_milli(value))


def to_memory(line: MemoryLine) -> tuple[Memory, list[TrustEvent]]:
    """The memory a line describes, checked as a store checks a new one (embedding aside)."""
    mid = str(line.id)
    content = validate.check_text(line.content, "content")
    source_type = (
        validate.check_text(line.source_type, "source_type", max_len=validate.MAX_SOURCE_TYPE)
        if line.source_type is not None
        else None
    )
    events = []
    for i, e in enumerate(line.trust_events):
        where = f"trust_events.{i}"
        validate.check_text(e.event, f"{where}.event", max_len=validate.MAX_EVENT)
        _finite(e.delta, f"{where}.delta")
        if e.actor is not None:
            validate.check_text(e.actor, f"{where}.actor", allow_empty=True)
        if e.note is not None:
            validate.check_text(e.note, f"{where}.note", allow_empty=True)
        score = _milli(validate.check_unit(e.score_after, f"{where}.score_after"))
        delta = _milli(e.delta)
        events.append(TrustEvent(0, mid, e.event, delta, e.actor, score, utc(e.created_at), e.note))
    project = validate.check_text(line.project, "project", allow_empty=True)
    place = scopes.placement(
        line.scope,
        project,
        validate.check_text(line.agent, "agent", allow_empty=True),
        validate.check_text(line.session, "session", allow_empty=True),
    )
    memory = Memory(
        id=mid,
        content=content,
        trust_score=_milli(validate.check_unit(line.trust_score, "trust_score")),
        source_type=source_type,
        project=project,
        tags=validate.check_tags(line.tags),
        metadata=validate.check_metadata(line.metadata),
        content_hash=scopes.dedup_key(content, place),
        created_at=utc(line.created_at),
        updated_at=utc(line.updated_at),
        scope=place.scope,
        agent=place.agent,
        session=place.session,
    )
    return memory, events


# What an imported trust event is recorded as (issue 28 item 5): a file can claim any history
# ("user_confirmed by the user, +0.90"), so none of it becomes the event it names. Each is kept
# as history — its delta and score as they were, for the chart — under this event and actor,
# the original event, actor and note in its note. Events already recorded so (a file exported
# after an import) are kept as they are, so moving memories on again changes nothing.
IMPORTED_EVENT = "imported"
IMPORT_ACTOR = "import"


def as_imported(events: list[TrustEvent]) -> list[TrustEvent]:
    """A file's trust events as an import stores them."""
    out = []
    for e in events:
        if e.event == IMPORTED_EVENT and e.actor == IMPORT_ACTOR:
            out.append(e)
            continue
        said = f"{e.event} by {e.actor}" if e.actor else e.event
        note = f"{said}: {e.note}" if e.note else said
        out.append(replace(e, event=IMPORTED_EVENT, actor=IMPORT_ACTOR, note=note))
    return out


def to_imported(line: MemoryLine, embedding: np.ndarray) -> ImportedMemory:
    memory, events = to_memory(line)
    return ImportedMemory(memory, embedding, as_imported(events))


def to_relationship(line: RelationshipLine) -> Relationship:
    kind, confidence, metadata = validate.check_link(
        line.relationship_type, line.confidence, line.metadata
    )
    if line.source_id == line.target_id:
        raise InvalidInput("a memory cannot be related to itself", field="target_id")
    return Relationship(
        id=str(line.id),
        source_id=str(line.source_id),
        target_id=str(line.target_id),
        relationship_type=kind,
        confidence=confidence,
        created_at=utc(line.created_at),
        metadata=metadata,
    )
