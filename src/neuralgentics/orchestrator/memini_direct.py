"""memini-core by direct call, for when the orchestrator runs inside memini-core's process
(the composition root builds ``Orchestrator(memory=DirectMemory(lazy_service, ...), ...)``).

`get_service` is called on every use so memini-core's lazily opened store (which recovers
after a database outage) is respected. Any error of the memory side is a `MemoryUnavailable`
to the orchestrator, except the two a retried step expects: the link already exists (409), and
the memory it credits was deleted since (404).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from neuralgentics import errors
from neuralgentics.memini import (
    Actor,
    ChunkStore,
    MemoryFilter,
    MemoryService,
    chunk_store_for,
    find_project,
    said_on,
    search_owners,
    search_project,
)
from neuralgentics.orchestrator.errors import MemoryUnavailable
from neuralgentics.orchestrator.memory_client import (
    QUERY_CHARS,
    MemoryHit,
    ProjectChunk,
    chunk_from_json,
)

T = TypeVar("T")


class DirectMemory:
    """`chunk_store`: the project index over the same store (default: one made per search)."""

    def __init__(
        self,
        get_service: Callable[[], MemoryService],
        chunk_store: Callable[[], ChunkStore] | None = None,
    ) -> None:
        self._get_service = get_service
        self._chunk_store = chunk_store

    def _service(self) -> MemoryService:
        try:
            return self._get_service()
        except errors.NeuralgenticsError as exc:
            raise MemoryUnavailable(f"memory service unavailable: {exc.message}") from exc

    def _call(self, fn: Callable[[], T], *, gone_ok: bool = False) -> T | None:
        try:
            return fn()
        except errors.Conflict:
            return None  # e.g. the link already exists: a retried step is not an error
        except errors.NotFound:
            if gone_ok:
                return None  # a used memory deleted since: nothing left to link or credit
            raise MemoryUnavailable("memory service refused: not found") from None
        except errors.NeuralgenticsError as exc:
            raise MemoryUnavailable(f"memory service refused: {exc.message}") from exc

    def query(
        self,
        text: str,
        *,
        top_k: int = 10,
        project: str | None = None,
        agent: str | None = None,
        session: str | None = None,
    ) -> list[MemoryHit]:
        svc = self._service()

        def run() -> list:
            # no project: the whole store, as before scopes (HttpMemoryClient.query)
            owners = search_owners(project, agent, session, None) if project else None
            flt = MemoryFilter(project=project or None, owners=owners)
            return svc.query(text[:QUERY_CHARS], flt, top_k=top_k)

        hits = self._call(run) or []
        return [
            MemoryHit(
                h.memory.id,
                h.memory.content,
                float(h.score),
                h.memory.trust_score,
                h.memory.source_type,
                h.memory.superseded_by,
                list(h.memory.tags),
                h.memory.quarantined,
                said_on(h.memory.content, h.memory.created_at),
            )
            for h in hits
        ]

    def add(
        self,
        content: str,
        *,
        source_type: str,
        project: str | None = None,
        tags: list[str] | None = None,
        metadata: dict | None = None,
    ) -> str:
        svc = self._service()
        result = self._call(
            lambda: svc.add(
                content,
                source_type=source_type,
                project=project or "",
                tags=[t for t in (tags or []) if t],
                metadata=metadata or {},
            )
        )
        if result is None:
            raise MemoryUnavailable("memory service refused: the memory could not be stored")
        return str(result.memory.id)

    def relate(
        self, source_id: str, target_id: str, relationship_type: str, confidence: float = 1.0
    ) -> None:
        svc = self._service()
        self._call(
            lambda: svc.relate(source_id, target_id, relationship_type, confidence=confidence),
            gone_ok=True,
        )

    def trust(
        self,
        memory_id: str,
        event: str,
        *,
        actor: str | None = None,
        note: str | None = None,
        session: str | None = None,
    ) -> None:
        svc = self._service()
        # trust from use is the agent's evidence (memini/provenance.py): within the agent's
        # band, once per memory and session
        by = Actor("agent", name=actor, session=session)
        self._call(
            lambda: svc.apply_trust(memory_id, event, actor=actor, note=note, by=by), gone_ok=True
        )

    def search_project(self, text: str, top_k: int, project_dir: str) -> list[ProjectChunk]:
        svc = self._service()
        try:
            store = (
                self._chunk_store() if self._chunk_store is not None else chunk_store_for(svc.store)
            )
            project = find_project(store, project_dir)
            hits = search_project(store, project, text[:4000], top_k=top_k, embedder=svc.embedder)
        except errors.NeuralgenticsError as exc:
            raise MemoryUnavailable(f"project search: {exc.message}") from exc
        return [chunk_from_json(h.as_dict()) for h in hits]
