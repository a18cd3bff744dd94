"""memini-core by direct call, for when the orchestrator runs inside memini-core's process
(the composition root builds ``Orchestrator(memory=DirectMemory(lazy_service), ...)``).

`get_service` is called on every use so memini-core's lazily opened store (which recovers
after a database outage) is respected.
"""

from __future__ import annotations

from typing import Any, Callable

from neuralgentics.orchestrator.errors import MemoryUnavailable
from neuralgentics.orchestrator.memory_client import MemoryHit, ProjectChunk, chunk_from_json


class DirectMemory:
    def __init__(self, get_service: Callable[[], Any]) -> None:
        self._get_service = get_service

    def _service(self) -> Any:
        from neuralgentics.memini.errors import MeminiError

        try:
            return self._get_service()
        except MeminiError as exc:
            raise MemoryUnavailable(f"memory service unavailable: {exc.message}") from exc

    def _call(self, fn: Callable[[], Any], *, gone_ok: bool = False) -> Any:
        from neuralgentics.memini.errors import Conflict, MeminiError, NotFound

        try:
            return fn()
        except Conflict:
            return None  # e.g. the link already exists: a retried step is not an error
        except NotFound:
            if gone_ok:
                return None  # a used memory deleted since: nothing left to link or credit
            raise MemoryUnavailable("memory service refused: not found") from None
        except MeminiError as exc:
            raise MemoryUnavailable(f"memory service refused: {exc.message}") from exc

    def query(self, text: str, *, top_k: int = 10, project: str | None = None) -> list[MemoryHit]:
        from neuralgentics.memini.store.base import MemoryFilter

        svc = self._service()
        hits = self._call(lambda: svc.query(text, MemoryFilter(project=project or None), top_k=top_k)) or []
        return [
            MemoryHit(h.memory.id, h.memory.content, float(h.score), h.memory.trust_score,
                      h.memory.source_type, h.memory.superseded_by, list(h.memory.tags))
            for h in hits
        ]

    def add(self, content: str, *, source_type: str, project: str | None = None,
            tags: list[str] | None = None, metadata: dict | None = None) -> str:
        svc = self._service()
        result = self._call(lambda: svc.add(content, source_type=source_type, project=project or "",
                                            tags=[t for t in (tags or []) if t], metadata=metadata or {}))
        return str(result.memory.id)

    def relate(self, source_id: str, target_id: str, relationship_type: str, confidence: float = 1.0) -> None:
        svc = self._service()
        self._call(lambda: svc.relate(source_id, target_id, relationship_type, confidence=confidence),
                   gone_ok=True)

    def trust(self, memory_id: str, event: str, *, actor: str | None = None, note: str | None = None) -> None:
        svc = self._service()
        self._call(lambda: svc.apply_trust(memory_id, event, actor=actor, note=note), gone_ok=True)

    def search_project(self, text: str, top_k: int, project_dir: str) -> list[ProjectChunk]:
        from neuralgentics.memini.errors import MeminiError
        from neuralgentics.memini.indexer import chunk_store_for, find_project, search_project

        svc = self._service()
        try:
            store = chunk_store_for(svc.store)
            project = find_project(store, project_dir)
            hits = search_project(store, project, text[:4000], top_k=top_k, embedder=getattr(svc, "embedder", None))
        except MeminiError as exc:
            raise MemoryUnavailable(f"project search: {exc.message}") from exc
        return [chunk_from_json(h.as_dict()) for h in hits]
