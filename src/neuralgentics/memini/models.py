"""Pydantic models at the HTTP edge, and the conversions from the service's dataclasses.

The CLI's `--local` mode uses the same conversions, so both print identical JSON.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from neuralgentics.memini import dates, graph, ranking, scopes, service
from neuralgentics.memini.store.base import Memory, MemoryFilter, Relationship, TrustEvent
from neuralgentics.memini.updates import detect

_strict = ConfigDict(extra="forbid")
ScopeName = Literal["user", "project", "agent", "session"]


class AddRequest(BaseModel):
    model_config = _strict
    content: str = Field(min_length=1, description="The text to remember")
    source_type: str | None = Field(None, max_length=50, examples=["agent", "user", "task_result"])
    project: str = Field("", max_length=1000, description="Scope, e.g. the repository root")
    tags: list[str] = Field(default_factory=list, max_length=50)
    metadata: dict[str, Any] = Field(default_factory=dict)
    actor: str | None = Field(None, max_length=200, description="Who adds it (agent name, user)")
    supersede_similar: bool = Field(
        False, description="Link a SUPERSEDES edge to the closest near-duplicate"
    )
    similar_threshold: float | None = Field(None, ge=0, le=1)
    supersedes: list[str] = Field(
        default_factory=list,
        max_length=50,
        description="Ids of memories this one replaces (superseded in the same write)",
    )
    detection: Literal["auto", "report", "off"] | None = Field(
        None,
        description="Update detection: auto supersedes/links when confident and reports"
        " likely updates; report only reports; off skips it (default: the server's setting)",
    )
    scope: ScopeName = Field(
        "project",
        description="Whose memory: the project's, the user's (all projects), one agent's or"
        " one session's (docs/memini.md, Scopes)",
    )
    agent: str | None = Field(None, max_length=200, description="The agent (scope agent)")
    session: str | None = Field(None, max_length=200, description="The session (scope session)")


class SupersedeRequest(BaseModel):
    model_config = _strict
    ids: list[str] = Field(
        min_length=1, max_length=50, description="Memories the memory in the path replaces"
    )
    actor: str | None = Field(None, max_length=200)


class UpdateRequest(BaseModel):
    model_config = _strict
    content: str | None = Field(None, min_length=1)
    source_type: str | None = Field(None, max_length=50)
    tags: list[str] | None = Field(None, max_length=50)
    metadata: dict[str, Any] | None = None


class Filters(BaseModel):
    model_config = _strict
    project: str | None = None
    source_type: str | None = None
    tags: list[str] = Field(default_factory=list)
    min_trust: float | None = Field(None, ge=0, le=1)
    include_superseded: bool = False

    def to_filter(self) -> MemoryFilter:
        return MemoryFilter(
            project=self.project,
            source_type=self.source_type,
            tags=self.tags,
            min_trust=self.min_trust,
            include_superseded=self.include_superseded,
        )


class QueryRequest(Filters):
    # not max_length: the service's own check names the limit (library callers get it too)
    query: str = Field(
        min_length=1,
        description=f"What to look for, in words (at most {service.MAX_QUERY_CHARS:,} characters)",
    )
    agent: str | None = Field(
        None, max_length=200, description="The asking agent: its agent memories join the search"
    )
    session: str | None = Field(
        None, max_length=200, description="The current session: its memories join the search"
    )
    scopes: list[ScopeName] | None = Field(
        None,
        max_length=4,
        description="Search only these scopes (default with agent or session: all four)",
    )

    def to_filter(self) -> MemoryFilter:
        flt = super().to_filter()
        flt.owners = scopes.search_owners(self.project, self.agent, self.session, self.scopes)
        return flt

    top_k: int = Field(10, ge=1, le=service.MAX_TOP_K)
    min_score: float | None = Field(
        None,
        ge=-1,
        le=2,
        description=f"Leave out memories whose relevance is below this (default {ranking.MIN_SCORE})",
    )


class TrustRequest(BaseModel):
    model_config = _strict
    event: str = Field(
        description="user_confirmed | user_rejected (the owner token only) | agent_used |"
        " agent_confirmed | agent_rejected | contradicted"
    )
    actor: str | None = Field(None, max_length=200)
    note: str | None = Field(None, max_length=2000)


class VerdictRequest(BaseModel):
    model_config = _strict
    note: str | None = Field(None, max_length=2000, description="Why (kept with the event)")


class RelationshipRequest(BaseModel):
    model_config = _strict
    source_id: str
    target_id: str
    relationship_type: str = Field(
        description="SUPERSEDES | RELATED_TO | CONTRADICTS | DERIVED_FROM"
    )
    confidence: float = Field(1.0, ge=0, le=1)
    metadata: dict[str, Any] = Field(default_factory=dict)
    actor: str | None = Field(None, max_length=200)


class MemoryOut(BaseModel):
    id: str
    content: str
    trust_score: float
    source_type: str | None
    project: str
    tags: list[str]
    metadata: dict[str, Any]
    content_hash: str
    created_at: datetime
    updated_at: datetime
    superseded_by: str | None
    scope: str = Field(description="user | project | agent | session")
    agent: str
    session: str
    origin: str = Field("user", description="Who wrote it: user | agent | system | import")
    origin_project: str = Field(
        "", description="The project whose credential wrote it (an agent's memory)"
    )
    quarantined: bool = Field(
        False,
        description="An agent wrote it and no user confirmed it yet: other projects do not"
        " see it (neuralgentics memory confirm ID)",
    )
    said_on: str | None = Field(
        None,
        description="The date (UTC) the memory was said, when its text holds a relative date "
        "('last week', 'in two days'): read it against this (memini/dates.py)",
    )


class TrustEventOut(BaseModel):
    id: int
    memory_id: str
    event: str
    delta: float
    actor: str | None
    score_after: float
    note: str | None
    created_at: datetime
    origin: str = Field("user", description="Who made it: user | agent | system | import")
    session: str | None = None


class RelationshipOut(BaseModel):
    id: str
    source_id: str
    target_id: str
    relationship_type: str
    confidence: float
    created_at: datetime
    metadata: dict[str, Any]


class SimilarOut(BaseModel):
    memory: MemoryOut
    similarity: float


class FindingOut(BaseModel):
    id: str
    content: str
    score: float = Field(description="How sure update detection is, 0..1 (1.0 when requested)")
    relation: str = Field(description="SUPERSEDES or CONTRADICTS")
    reason: str
    needs_user: bool = Field(
        False,
        description="Only a person may confirm it: the writer's credential may not hide this "
        "memory (an agent's save that reads as an update of a fact the user wrote)",
    )


class AddResponse(BaseModel):
    memory: MemoryOut
    created: bool
    similar: list[SimilarOut]
    superseded: list[FindingOut] = Field(description="Memories this write superseded (hidden now)")
    contradicts: list[FindingOut] = Field(
        description="Older memories this one contradicts (linked, their trust lowered)"
    )
    likely_updates: list[FindingOut] = Field(
        description="Memories this one probably replaces: confirm with"
        ' POST /memory/{id}/supersede {"ids": [...]}'
    )


class SupersedeResponse(BaseModel):
    memory: MemoryOut
    superseded: list[FindingOut]


class WhyOut(BaseModel):
    similarity: float = Field(description="Cosine between the query and the memory")
    exact_match: float = Field(
        description="Share of the query's exact tokens (identifiers, versions, paths, quoted "
        "strings) the memory holds verbatim, rarer ones weighing more (0-1)"
    )
    vector_rank: int | None
    keyword_rank: int | None
    keyword_score: float | None = Field(description="The store's own keyword score (bm25, ts_rank)")
    relevance: float = Field(
        description="similarity + 0.15 x exact_match: what min_score is compared with"
    )
    trust: float
    score: float = Field(
        description="relevance + 0.1 x (trust - 0.5): what hits are ordered by (recency aside)"
    )
    newer: str | None = Field(
        None, description="A newer memory about the same subject, ranked right above this one"
    )


class HitOut(BaseModel):
    memory: MemoryOut
    score: float
    why: WhyOut
    contradicted: bool = Field(description="Another memory CONTRADICTS this one (either direction)")
    contradicts: list[str] = Field(description="The ids of those memories")


class QueryResponse(BaseModel):
    query: str
    hits: list[HitOut]


class ResolvedId(BaseModel):
    id: str
    kind: str


class DecisionOut(BaseModel):
    relationship_id: str
    relation: str = Field(description="SUPERSEDES | CONTRADICTS | RELATED_TO (a likely update)")
    direction: str = Field(
        description="by: the other memory did it to this one (hid it, contradicts it, probably "
        "updates it); of: this one did it to the other"
    )
    other_id: str
    other_content: str | None = Field(description="None when the other memory is gone")
    how: str = Field(
        description="auto (update detection), similar (supersede_similar), explicit "
        "(supersedes on add), confirmed (POST /memory/{id}/supersede), likely_update, manual"
    )
    score: float | None
    reason: str | None = Field(description="Why: the detector's reason")
    at: datetime
    hidden_id: str | None = Field(description="A supersession: the memory it hides")
    undo: str | None = Field(
        description="The command that undoes it, when `memory restore` can (a supersession)"
    )


class MemoryDetailOut(BaseModel):
    memory: MemoryOut
    trust_history: list[TrustEventOut]
    relationships: list[RelationshipOut]
    decisions: list[DecisionOut] = Field(
        description="What hid, contradicted or probably updates this memory, or what it did to "
        "others, and why"
    )


class RestoreRequest(BaseModel):
    model_config = _strict
    actor: str | None = Field(None, max_length=200, description="Who restores it (history)")


class RestoreResponse(BaseModel):
    memory: MemoryOut
    restored: list[DecisionOut] = Field(description="The supersessions undone")
    events: list[TrustEventOut] = Field(description="The `restored` events of its history")


class ListResponse(BaseModel):
    items: list[MemoryOut]
    total: int
    limit: int
    offset: int


class TrustResponse(BaseModel):
    memory: MemoryOut
    event: TrustEventOut


class StepOut(BaseModel):
    relationship: RelationshipOut
    direction: str


class NodeOut(BaseModel):
    memory: MemoryOut
    distance: int
    path: list[StepOut]


class RelatedResponse(BaseModel):
    id: str
    depth: int
    nodes: list[NodeOut]
    edges: list[RelationshipOut]


class ErrorBody(BaseModel):
    code: str
    message: str
    field: str | None = None


class ErrorResponse(BaseModel):
    error: ErrorBody


# -- conversions ----------------------------------------------------------------------------


def memory_out(m: Memory) -> MemoryOut:
    return MemoryOut(**asdict(m), said_on=dates.said_on(m.content, m.created_at))


def relationship_out(r: Relationship) -> RelationshipOut:
    return RelationshipOut(**asdict(r))


def trust_event_out(e: TrustEvent) -> TrustEventOut:
    return TrustEventOut(**asdict(e))


def finding_out(f: detect.Finding) -> FindingOut:
    return FindingOut(
        id=f.memory.id,
        content=f.memory.content,
        score=f.score,
        relation=f.relation,
        reason=f.reason,
        needs_user=f.needs_user,
    )


def add_response(result: service.AddResult) -> AddResponse:
    return AddResponse(
        memory=memory_out(result.memory),
        created=result.created,
        similar=[
            SimilarOut(memory=memory_out(s.memory), similarity=s.similarity) for s in result.similar
        ],
        superseded=[finding_out(f) for f in result.superseded],
        contradicts=[finding_out(f) for f in result.contradicts],
        likely_updates=[finding_out(f) for f in result.likely_updates],
    )


def query_response(text: str, hits: list[service.Hit]) -> QueryResponse:
    return QueryResponse(
        query=text,
        hits=[
            HitOut(
                memory=memory_out(h.memory),
                score=h.score,
                why=WhyOut(**asdict(h.why)),
                contradicted=h.contradicted,
                contradicts=h.contradicts,
            )
            for h in hits
        ],
    )


def decision_out(d: service.Decision) -> DecisionOut:
    undo = f"neuralgentics memory restore {d.hidden_id}" if d.hidden_id else None
    return DecisionOut(**asdict(d), undo=undo)


def detail_out(d: service.MemoryDetail) -> MemoryDetailOut:
    return MemoryDetailOut(
        memory=memory_out(d.memory),
        trust_history=[trust_event_out(e) for e in d.trust_history],
        relationships=[relationship_out(r) for r in d.relationships],
        decisions=[decision_out(x) for x in d.decisions],
    )


def restore_response(r: service.Restored) -> RestoreResponse:
    return RestoreResponse(
        memory=memory_out(r.memory),
        restored=[decision_out(x) for x in r.undone],
        events=[trust_event_out(e) for e in r.events],
    )


def related_response(
    memory_id: str,
    depth: int,
    reached: list[graph.Reached],
    edges: list[Relationship],
    memories: dict[str, Memory],
) -> RelatedResponse:
    return RelatedResponse(
        id=memory_id,
        depth=depth,
        nodes=[
            NodeOut(
                memory=memory_out(memories[r.memory_id]),
                distance=r.distance,
                path=[
                    StepOut(relationship=relationship_out(s.relationship), direction=s.direction)
                    for s in r.path
                ],
            )
            for r in reached
            if r.memory_id in memories
        ],
        edges=[relationship_out(e) for e in edges],
    )
