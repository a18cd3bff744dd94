"""The orchestrator's view of memini-core: recall, remember, link, and record trust.

The orchestrator depends on memini-core's original routes only (POST /memory/query,
POST /memory/add, POST /memory/relationship, POST /memory/{id}/trust), through `MemoryClient`:
`HttpMemoryClient` over HTTP, or `memini_direct.DirectMemory` in memini-core's own process.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from neuralgentics.orchestrator.errors import MemoryUnavailable

# What the orchestrator searches memory with: the start of a task (memini refuses a query over
# 4,000 characters; the embedding model reads ~1,000 of them anyway).
QUERY_CHARS = 2_000


@dataclass
class MemoryHit:
    id: str
    content: str
    score: float  # relevance from the memory service, higher is better
    trust_score: float = 0.5
    source_type: str | None = None
    superseded_by: str | None = None
    tags: list[str] = field(default_factory=list)
    # an agent wrote it and no user confirmed it yet (memini/provenance.py)
    unconfirmed: bool = False
    # when its text holds a relative date: the day it was said (memini's `said_on`)
    said_on: str | None = None


@dataclass
class ProjectChunk:
    id: str
    file_path: str
    content: str
    score: float


class MemoryClient(Protocol):
    def query(
        self,
        text: str,
        *,
        top_k: int = 10,
        project: str | None = None,
        agent: str | None = None,
        session: str | None = None,
    ) -> list[MemoryHit]:
        """With a project and `agent` or `session`: that session's, the project's, that
        agent's and the user's memories, in memini's scope precedence (docs/memini.md,
        "Scopes"); with a project alone: the project's; without a project: the whole store
        (agent and session are then not sent: they would narrow it)."""
        ...

    def add(
        self,
        content: str,
        *,
        source_type: str,
        project: str | None = None,
        tags: list[str] | None = None,
        metadata: dict | None = None,
    ) -> str:
        """Returns the id of the stored (or already existing) memory."""
        ...

    def relate(
        self, source_id: str, target_id: str, relationship_type: str, confidence: float = 1.0
    ) -> None: ...

    def trust(
        self,
        memory_id: str,
        event: str,
        *,
        actor: str | None = None,
        note: str | None = None,
        session: str | None = None,
    ) -> None: ...


ChunkSearch = Callable[[str, int], list[ProjectChunk]]


def _first(item: dict, *keys: str, default: Any = None) -> Any:
    for key in keys:
        if key in item and item[key] is not None:
            return item[key]
    return default


def hit_from_json(item: dict) -> MemoryHit:
    """One query result; tolerant of a flat hit or one with a nested `memory` object."""
    nested = item.get("memory")
    memory: dict = nested if isinstance(nested, dict) else item
    return MemoryHit(
        id=str(_first(memory, "id")),
        content=str(_first(memory, "content", default="")),
        score=float(_first(item, "score", "similarity", "relevance", default=0.0)),
        trust_score=float(_first(memory, "trust_score", "trust", default=0.5)),
        source_type=_first(memory, "source_type"),
        superseded_by=_first(memory, "superseded_by"),
        tags=list(_first(memory, "tags", default=[])),
        unconfirmed=bool(_first(memory, "quarantined", default=False)),
        said_on=_first(memory, "said_on"),
    )


def chunk_from_json(hit: dict) -> ProjectChunk:
    where = f"{hit['file_path']}:{hit.get('start_line', '?')}-{hit.get('end_line', '?')}"
    symbol = hit.get("symbol")
    return ProjectChunk(
        id=where,
        file_path=where + (f" ({symbol})" if symbol else ""),
        content=str(hit.get("content", "")),
        score=float(hit.get("score", 0.0)),
    )


class HttpMemoryClient:
    """memini-core over HTTP JSON, with a short timeout: a slow service must not stall routing."""

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        timeout: float = 5.0,
        http: httpx.Client | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.base_url = base_url.rstrip("/")
        # `http` lets a caller hand in a ready client (e.g. Starlette's TestClient on the real app)
        self._http = http or httpx.Client(base_url=self.base_url, headers=headers, timeout=timeout)

    def close(self) -> None:
        self._http.close()

    def _post(
        self, path: str, body: dict, *, ok_conflict: bool = False, gone_ok: bool = False
    ) -> dict:
        try:
            resp = self._http.post(path, json=body)
        except httpx.HTTPError as exc:
            raise MemoryUnavailable(
                f"memory service at {self.base_url} unreachable: {exc}"
            ) from exc
        if ok_conflict and resp.status_code == 409:
            return {}
        if gone_ok and resp.status_code == 404:
            return {}  # a used memory deleted since: nothing left to link or credit
        if resp.status_code >= 400:
            try:
                detail = resp.json()
            except ValueError:
                detail = resp.text[:200]
            raise MemoryUnavailable(f"memory service {path} answered {resp.status_code}: {detail}")
        return resp.json() if resp.content else {}

    def query(
        self,
        text: str,
        *,
        top_k: int = 10,
        project: str | None = None,
        agent: str | None = None,
        session: str | None = None,
    ) -> list[MemoryHit]:
        body: dict = {"query": text[:QUERY_CHARS], "top_k": top_k}
        if project:
            for name, value in (("project", project), ("agent", agent), ("session", session)):
                if value:
                    body[name] = value
        data = self._post("/memory/query", body)
        items = (
            data
            if isinstance(data, list)
            else _first(data, "results", "hits", "memories", default=[])
        )
        return [hit_from_json(item) for item in items]

    def add(
        self,
        content: str,
        *,
        source_type: str,
        project: str | None = None,
        tags: list[str] | None = None,
        metadata: dict | None = None,
    ) -> str:
        body: dict = {
            "content": content,
            "source_type": source_type,
            "tags": tags or [],
            "metadata": metadata or {},
        }
        if project:
            body["project"] = project
        data = self._post("/memory/add", body)
        nested = data.get("memory")
        memory: dict = nested if isinstance(nested, dict) else data
        return str(memory["id"])

    def relate(
        self, source_id: str, target_id: str, relationship_type: str, confidence: float = 1.0
    ) -> None:
        self._post(
            "/memory/relationship",
            {
                "source_id": source_id,
                "target_id": target_id,
                "relationship_type": relationship_type,
                "confidence": confidence,
            },
            ok_conflict=True,  # the link already exists: a retried step 8 is not an error
            gone_ok=True,
        )

    def search_project(self, text: str, top_k: int, project_dir: str) -> list[ProjectChunk]:
        """Code chunks from memini-core's project index (POST /project/search)."""
        try:
            resp = self._http.post(
                "/project/search",
                json={"query": text[:4000], "project": project_dir, "top_k": top_k},
            )
        except httpx.HTTPError as exc:
            raise MemoryUnavailable(
                f"memory service at {self.base_url} unreachable: {exc}"
            ) from exc
        if resp.status_code in (404, 501):
            raise MemoryUnavailable(
                f"project {project_dir} is not indexed (run `neuralgentics index {project_dir}`)"
            )
        if resp.status_code >= 400:
            raise MemoryUnavailable(
                f"memory service /project/search answered {resp.status_code}: {resp.text[:200]}"
            )
        return [chunk_from_json(h) for h in resp.json().get("hits", [])]

    def trust(
        self,
        memory_id: str,
        event: str,
        *,
        actor: str | None = None,
        note: str | None = None,
        session: str | None = None,
    ) -> None:
        # the session is the server's to know from the caller's headers; over HTTP the owner's
        # call is the user's, and agent_used stays in the agent's band (memini/trust.py)
        body: dict = {"event": event}
        if actor:
            body["actor"] = actor
        if note:
            body["note"] = note
        self._post(f"/memory/{memory_id}/trust", body, gone_ok=True)
