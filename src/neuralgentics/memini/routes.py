"""memini-core's HTTP routes (memory, graph, trust, health): each a thin call into the
`MemoryService` the composition root provides (`memory_service`, wired in `neuralgentics.app`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from neuralgentics.memini import models as m
from neuralgentics.memini import provenance, scopes
from neuralgentics.memini.provenance import Actor
from neuralgentics.memini.service import MAX_OFFSET, MemoryService
from neuralgentics.memini.store.base import IdKind, MemoryFilter
from neuralgentics.provided import provided


async def memory_service(request: Request) -> Callable[[], MemoryService]:
    """The service the routes call, as a getter: the composition root opens the store on first
    use, inside the route (so a request is validated first, and the service starts — answering
    503 — while its database is down). The root provides it (`neuralgentics.provided`); an app
    that mounts `router` without it fails loudly instead of guessing."""
    return provided(request, memory_service)


Service = Annotated[Callable[[], MemoryService], Depends(memory_service)]

# The plugin names the agent and the session it calls for (the model never sets headers).
AGENT_HEADER = "x-neuralgentics-agent"
SESSION_HEADER = "x-neuralgentics-session"


async def caller(request: Request) -> Actor:
    """Who the request comes from (memini/provenance.py), decided by its credential: a project
    credential is that project's agent; the owner token (CLI, dashboard) the user. Nothing in
    the body changes which."""
    principal = getattr(request.state, "principal", None)
    headers = request.headers
    return Actor.from_principal(
        principal,
        agent=headers.get(AGENT_HEADER, "")[:200],
        session=headers.get(SESSION_HEADER, "")[:200],
    )


By = Annotated[Actor, Depends(caller)]
_ERRORS = {"model": m.ErrorResponse}

router = APIRouter()


@router.get("/health", tags=["service"])
def health(svc: Service) -> dict:
    """Liveness, store kind, embedding model and row counts."""
    return svc().health()


@router.post("/memory/query", response_model=m.QueryResponse, tags=["memory"])
async def query(svc: Service, body: m.QueryRequest, by: By) -> m.QueryResponse:
    """Hybrid semantic + keyword search (docs/memini.md, "Query"); each hit says why it ranked
    and whether another memory contradicts it. Nothing below `min_score` comes back. A project
    credential searches its own project (and the memories of the user's that other projects
    may see)."""
    if by.bound:
        provenance.require_project(by, body.project)

    def run() -> m.QueryResponse:
        hits = svc().query(body.query, body.to_filter(), top_k=body.top_k, min_score=body.min_score)
        return m.query_response(body.query, hits)

    return await run_in_threadpool(run)


@router.post("/memory/add", response_model=m.AddResponse, status_code=201, tags=["memory"])
async def add(svc: Service, body: m.AddRequest, response: Response, by: By) -> m.AddResponse:
    """Store a memory (embedded on the way in). The same content twice returns the first (200)."""
    created, out = await run_in_threadpool(_add, svc, body, by)
    if not created:
        response.status_code = 200
    return out


def _add(
    svc: Callable[[], MemoryService], body: m.AddRequest, by: Actor
) -> tuple[bool, m.AddResponse]:
    result = svc().add(
        body.content,
        source_type=body.source_type,
        project=body.project,
        tags=body.tags,
        metadata=body.metadata,
        actor=body.actor,
        supersede_similar=body.supersede_similar,
        similar_threshold=body.similar_threshold,
        supersedes=body.supersedes,
        detection=body.detection,
        scope=body.scope,
        agent=body.agent,
        session=body.session,
        by=by,
    )
    return result.created, m.add_response(result)


@router.get("/memory", response_model=m.ListResponse, tags=["memory"])
def list_memories(
    svc: Service,
    project: str | None = None,
    source_type: str | None = None,
    tag: list[str] = Query(default_factory=list),
    min_trust: float | None = Query(None, ge=0, le=1),
    include_superseded: bool = False,
    limit: int = Query(50, ge=1, le=1000),
    offset: int = Query(0, ge=0, le=MAX_OFFSET),
    scope: m.ScopeName | None = None,
    agent: str | None = None,
    session: str | None = None,
) -> m.ListResponse:
    """Newest first, with filters and pagination; `scope` (with `project`, `agent` or
    `session` naming whose) lists one scope's memories."""
    flt = MemoryFilter(project, source_type, tag, min_trust, include_superseded)
    flt.owners = scopes.list_owners(scope, project, agent, session)
    items, total = svc().list(flt, limit=limit, offset=offset)
    return m.ListResponse(
        items=[m.memory_out(x) for x in items], total=total, limit=limit, offset=offset
    )


@router.get("/memory/related/{memory_id}", response_model=m.RelatedResponse, tags=["graph"])
def related(
    svc: Service,
    memory_id: str,
    depth: int = Query(1, ge=1, le=5),
    types: list[str] = Query(
        default_factory=list, description="Relationship types (repeat or comma-separate)"
    ),
) -> m.RelatedResponse:
    """Breadth-first walk of the memory graph from one memory."""
    wanted = [t for part in types for t in part.split(",") if t]
    reached, edges, memories = svc().related(memory_id, depth=depth, types=wanted)
    return m.related_response(memory_id, depth, reached, edges, memories)


@router.get("/memory/resolve/{ref}", response_model=m.ResolvedId, tags=["memory"])
def resolve(svc: Service, ref: str, kind: IdKind = "memory") -> m.ResolvedId:
    """The whole id a unique start of one names (at least 4 hex digits, as tables print ids):
    404 when no id starts so, 422 `ambiguous_id` with the `candidates` when several do."""
    return m.ResolvedId(id=svc().resolve_id(ref, kind), kind=kind)


@router.post(
    "/memory/relationship", response_model=m.RelationshipOut, status_code=201, tags=["graph"]
)
def relate(svc: Service, body: m.RelationshipRequest, by: By) -> m.RelationshipOut:
    """Link two memories. CONTRADICTS lowers the older one's trust; SUPERSEDES hides the target."""
    rel = svc().relate(
        body.source_id,
        body.target_id,
        body.relationship_type,
        confidence=body.confidence,
        metadata=body.metadata,
        actor=body.actor,
        by=by,
    )
    return m.relationship_out(rel)


@router.delete("/memory/relationship/{relationship_id}", status_code=204, tags=["graph"])
def unrelate(svc: Service, relationship_id: str) -> Response:
    svc().unrelate(relationship_id)
    return Response(status_code=204)


@router.get("/memory/{memory_id}", response_model=m.MemoryDetailOut, tags=["memory"])
def get(svc: Service, memory_id: str) -> m.MemoryDetailOut:
    """One memory with its trust history and relationships."""
    return m.detail_out(svc().get(memory_id))


@router.patch("/memory/{memory_id}", response_model=m.MemoryOut, tags=["memory"])
def update(svc: Service, memory_id: str, body: m.UpdateRequest) -> m.MemoryOut:
    """Change content (re-embedded), tags, metadata or source type."""
    return m.memory_out(
        svc().update(
            memory_id,
            content=body.content,
            source_type=body.source_type,
            tags=body.tags,
            metadata=body.metadata,
        )
    )


@router.delete("/memory/{memory_id}", status_code=204, tags=["memory"])
def delete(svc: Service, memory_id: str) -> Response:
    svc().delete(memory_id)
    return Response(status_code=204)


@router.post(
    "/memory/{memory_id}/supersede",
    response_model=m.SupersedeResponse,
    tags=["graph"],
    responses={404: _ERRORS, 409: _ERRORS},
)
def supersede(
    svc: Service, memory_id: str, body: m.SupersedeRequest, by: By
) -> m.SupersedeResponse:
    """This memory replaces those in `ids` (e.g. the `likely_updates` of its add): SUPERSEDES
    edges in one transaction; the replaced ones leave query results and keep their history.
    A project credential supersedes only memories its project owns (403)."""
    superseded = svc().supersede(memory_id, body.ids, actor=body.actor, by=by)
    return m.SupersedeResponse(
        memory=m.memory_out(svc().get(memory_id).memory),
        superseded=[m.finding_out(f) for f in superseded],
    )


@router.post(
    "/memory/{memory_id}/restore",
    response_model=m.RestoreResponse,
    tags=["graph"],
    responses={404: _ERRORS, 409: _ERRORS},
)
def restore(
    svc: Service, memory_id: str, body: m.RestoreRequest | None = None
) -> m.RestoreResponse:
    """Undo the supersession of this memory (it comes back in queries and lists): the
    SUPERSEDES edges hiding it are removed, a trust change they made is given back, and a
    `restored` event in its history says what was undone. 409 when nothing hides it."""
    actor = body.actor if body is not None else None
    return m.restore_response(svc().restore(memory_id, actor=actor))


@router.post("/memory/{memory_id}/trust", response_model=m.TrustResponse, tags=["trust"])
def adjust_trust(svc: Service, memory_id: str, body: m.TrustRequest, by: By) -> m.TrustResponse:
    """Record a trust event: user_confirmed +0.10, user_rejected -0.15 (the owner token only);
    agent_used / agent_confirmed +0.05, agent_rejected -0.05 (within [0.3, 0.6], once per
    memory and session); contradicted -0.10."""
    memory, event = svc().apply_trust(
        memory_id, body.event, actor=body.actor, note=body.note, by=by
    )
    return m.TrustResponse(memory=m.memory_out(memory), event=m.trust_event_out(event))


def _user_only(by: Actor, what: str) -> None:
    if by.kind != "user":
        raise provenance.Forbidden(
            f"only a person {what}s a memory (`neuralgentics memory {what} ID`, the dashboard, "
            "/memory-confirm in OpenCode): this credential is an agent's",
        )


@router.post("/memory/{memory_id}/confirm", response_model=m.TrustResponse, tags=["trust"])
def confirm(
    svc: Service, memory_id: str, by: By, body: m.VerdictRequest | None = None
) -> m.TrustResponse:
    """The user confirms a memory: user_confirmed +0.10, and an agent's memory waiting for a
    user's confirmation may now reach other projects (`neuralgentics memory confirm`)."""
    _user_only(by, "confirm")
    memory, event = svc().confirm(memory_id, note=body.note if body else None)
    return m.TrustResponse(memory=m.memory_out(memory), event=m.trust_event_out(event))


@router.post("/memory/{memory_id}/reject", response_model=m.TrustResponse, tags=["trust"])
def reject(
    svc: Service, memory_id: str, by: By, body: m.VerdictRequest | None = None
) -> m.TrustResponse:
    """The user rejects a memory: user_rejected -0.15 (`neuralgentics memory reject`)."""
    _user_only(by, "reject")
    memory, event = svc().reject(memory_id, note=body.note if body else None)
    return m.TrustResponse(memory=m.memory_out(memory), event=m.trust_event_out(event))
