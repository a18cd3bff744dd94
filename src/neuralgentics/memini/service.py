"""What memini-core does, as library calls. HTTP routes and CLI commands both call these."""

from __future__ import annotations

# `MemoryService.list` shadows the builtin in the class body: its methods say builtins.list
import builtins
import uuid
from dataclasses import dataclass, field

from neuralgentics import __version__, errors
from neuralgentics.config import Settings
from neuralgentics.embeddings import Embedder, content_hash
from neuralgentics.memini import graph, trust
from neuralgentics.memini.errors import InvalidInput, NotFound
from neuralgentics.memini.store.base import (
    Memory,
    MemoryFilter,
    MemoryPatch,
    NewMemory,
    Relationship,
    Store,
    TrustEvent,
)
from neuralgentics.memini.store.validate import (
    check_filter,
    check_json,
    check_relationship_type,
    check_text,
)

# Reciprocal rank fusion constant (Cormack et al.); 60 is the usual, robust choice.
RRF_K = 60
MAX_TOP_K = 100
# SQLite integers are 64-bit; any real offset is far below this.
MAX_OFFSET = 2**53


@dataclass
class Why:
    similarity: float | None
    vector_rank: int | None
    keyword_rank: int | None
    keyword_score: float | None
    trust: float
    rrf: float
    score: float


@dataclass
class Hit:
    memory: Memory
    score: float
    why: Why


@dataclass
class Similar:
    memory: Memory
    similarity: float


@dataclass
class AddResult:
    memory: Memory
    created: bool
    similar: list[Similar] = field(default_factory=list)
    superseded: str | None = None


@dataclass
class MemoryDetail:
    memory: Memory
    trust_history: list[TrustEvent]
    relationships: list[Relationship]


def check_fields(**fields: object) -> None:
    """Every given field can be stored and sent back as UTF-8 JSON (None: not given).

    Checked before any read or write, so a bad value is refused with a 422 naming it instead of
    failing half-way (a lone surrogate reached SQLite, was committed, and broke every read)."""
    for name, value in fields.items():
        if value is not None:
            check_json(value, name)


def check_id(value: str, what: str = "id") -> str:
    try:
        return str(uuid.UUID(value))
    except (ValueError, AttributeError, TypeError):
        raise InvalidInput(f"{what} {value!r} is not a valid UUID", field=what) from None


class MemoryService:
    def __init__(self, store: Store, embedder: Embedder, settings: Settings) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings

    # -- writing ------------------------------------------------------------------------

    def _check_content(self, content: str) -> str:
        if not isinstance(content, str) or not content.strip():
            raise InvalidInput("content is empty", field="content")
        check_text(content, "content")
        if len(content) > self.settings.max_content_chars:
            raise InvalidInput(
                f"content has {len(content)} characters; the limit is "
                f"{self.settings.max_content_chars}",
                field="content",
            )
        return content

    def add(
        self,
        content: str,
        *,
        source_type: str | None = None,
        project: str = "",
        tags: list[str] | None = None,
        metadata: dict | None = None,
        actor: str | None = None,
        supersede_similar: bool = False,
        similar_threshold: float | None = None,
    ) -> AddResult:
        """Store a memory, or return the identical one already stored (an agent_used event)."""
        content = self._check_content(content)
        check_fields(
            project=project, source_type=source_type, tags=tags, metadata=metadata, actor=actor
        )
        digest = content_hash(content)
        reuse = trust.trust_change("", "agent_used", actor=actor, note="added again")
        existing = self.store.find_by_hash(project, digest)
        if existing is not None:
            memory, _ = self.store.apply_trust(
                trust.trust_change(existing.id, "agent_used", actor=actor, note="added again")
            )
            return AddResult(memory, created=False)
        embedding = self.embedder.embed_one(content)
        memory, created = self.store.add_memory(
            NewMemory(
                content=content,
                embedding=embedding,
                content_hash=digest,
                source_type=source_type,
                project=project,
                tags=tags or [],
                metadata=metadata or {},
            ),
            on_duplicate=reuse,
        )
        if not created:  # another writer stored the same text a moment ago
            return AddResult(memory, created=False)
        threshold = (
            self.settings.similar_threshold if similar_threshold is None else similar_threshold
        )
        near = self.store.vector_search(embedding, MemoryFilter(project=project), k=6)
        similar_ids = [(mid, sim) for mid, sim in near if mid != memory.id and sim >= threshold]
        found = self.store.get_memories([mid for mid, _ in similar_ids])
        similar = [Similar(found[mid], sim) for mid, sim in similar_ids if mid in found]
        superseded = None
        if supersede_similar and similar:
            closest = similar[0]
            try:
                self.store.add_relationship(
                    memory.id,
                    closest.memory.id,
                    "SUPERSEDES",
                    round(min(1.0, max(0.0, closest.similarity)), 6),
                    {"reason": "near-duplicate on add"},
                )
                superseded = closest.memory.id
            except errors.NotFound:
                # deleted since the search: the memory is stored (201) and supersedes nothing,
                # rather than a failed request that left a committed row behind
                superseded = None
        return AddResult(memory, created=True, similar=similar, superseded=superseded)

    def update(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        source_type: str | None = None,
        tags: list[str] | None = None,
        metadata: dict | None = None,
    ) -> Memory:
        memory_id = check_id(memory_id)
        check_fields(source_type=source_type, tags=tags, metadata=metadata)
        patch = MemoryPatch(source_type=source_type, tags=tags, metadata=metadata)
        if content is not None:
            current = self._require(memory_id)
            patch.content = self._check_content(content)
            patch.content_hash = content_hash(content)
            if patch.content_hash == current.content_hash:
                patch.content = patch.content_hash = None
            else:
                patch.embedding = self.embedder.embed_one(content)
        return self.store.update_memory(memory_id, patch)

    def delete(self, memory_id: str) -> None:
        if not self.store.delete_memory(check_id(memory_id)):
            raise NotFound(f"memory {memory_id} does not exist", field="id")

    def apply_trust(
        self, memory_id: str, event: str, *, actor: str | None = None, note: str | None = None
    ) -> tuple[Memory, TrustEvent]:
        check_fields(event=event, actor=actor, note=note)
        change = trust.trust_change(check_id(memory_id), event, actor=actor, note=note)
        return self.store.apply_trust(change)

    def relate(
        self,
        source_id: str,
        target_id: str,
        relationship_type: str,
        *,
        confidence: float = 1.0,
        metadata: dict | None = None,
        actor: str | None = None,
    ) -> Relationship:
        source_id, target_id = check_id(source_id, "source_id"), check_id(target_id, "target_id")
        check_fields(relationship_type=relationship_type, metadata=metadata, actor=actor)
        kind = check_relationship_type(relationship_type.upper(), shown=relationship_type)
        if not 0.0 <= confidence <= 1.0:
            raise InvalidInput("confidence must be between 0 and 1", field="confidence")
        if source_id == target_id:
            raise InvalidInput("a memory cannot be related to itself", field="target_id")
        change = None
        if kind == "CONTRADICTS":
            # The older of the two loses trust: the newer statement is the likelier truth.
            source, target = self._require(source_id), self._require(target_id)
            older = min((source, target), key=lambda m: m.created_at)
            newer = target if older is source else source
            change = trust.trust_change(
                older.id, "contradicted", actor=actor, note=f"contradicted by {newer.id}"
            )
        return self.store.add_relationship(
            source_id, target_id, kind, confidence, metadata, trust_change=change
        )

    def unrelate(self, relationship_id: str) -> None:
        if not self.store.delete_relationship(check_id(relationship_id, "relationship_id")):
            raise NotFound(f"relationship {relationship_id} does not exist", field="id")

    # -- reading ------------------------------------------------------------------------

    def _require(self, memory_id: str) -> Memory:
        memory = self.store.get_memory(memory_id)
        if memory is None:
            raise NotFound(f"memory {memory_id} does not exist", field="id")
        return memory

    def get(self, memory_id: str) -> MemoryDetail:
        memory = self._require(check_id(memory_id))
        return MemoryDetail(
            memory, self.store.trust_history(memory.id), self.store.edges_of([memory.id])
        )

    def list(
        self, flt: MemoryFilter, *, limit: int = 50, offset: int = 0
    ) -> tuple[list[Memory], int]:
        if not 1 <= limit <= 1000:
            raise InvalidInput("limit must be between 1 and 1000", field="limit")
        if not 0 <= offset <= MAX_OFFSET:
            raise InvalidInput(f"offset must be between 0 and {MAX_OFFSET}", field="offset")
        check_filter(flt)
        return self.store.list_memories(flt, limit=limit, offset=offset)

    def query(self, text: str, flt: MemoryFilter, *, top_k: int = 10) -> builtins.list[Hit]:
        """Hybrid search: vector and keyword rankings fused by RRF, then weighted by trust."""
        if not text or not text.strip():
            raise InvalidInput("query is empty", field="query")
        check_text(text, "query")
        check_filter(flt)
        if not 1 <= top_k <= MAX_TOP_K:
            raise InvalidInput(f"top_k must be between 1 and {MAX_TOP_K}", field="top_k")
        pool = max(top_k * 5, 50)
        vector = self.store.vector_search(self.embedder.embed_one(text), flt, pool)
        keyword = self.store.keyword_search(text, flt, pool)
        fused: dict[str, dict] = {}
        for rank, (mid, sim) in enumerate(vector, 1):
            fused.setdefault(mid, {})["vector"] = (rank, sim)
        for rank, (mid, score) in enumerate(keyword, 1):
            fused.setdefault(mid, {})["keyword"] = (rank, score)
        memories = self.store.get_memories(list(fused))
        hits: list[Hit] = []
        for mid, parts in fused.items():
            memory = memories.get(mid)
            if memory is None:  # deleted between the searches and now
                continue
            vrank, sim = parts.get("vector", (None, None))
            krank, kscore = parts.get("keyword", (None, None))
            rrf = sum(1.0 / (RRF_K + r) for r in (vrank, krank) if r is not None)
            # Trust scales the fused rank: 0.5 (the default) leaves it, 1.0 lifts it by half.
            score = rrf * (0.5 + memory.trust_score)
            why = Why(sim, vrank, krank, kscore, memory.trust_score, rrf, score)
            hits.append(Hit(memory, score, why))
        hits.sort(key=lambda h: h.score, reverse=True)
        return hits[:top_k]

    def related(
        self, memory_id: str, *, depth: int = 1, types: builtins.list[str] | None = None
    ) -> tuple[builtins.list[graph.Reached], builtins.list[Relationship], dict[str, Memory]]:
        memory_id = check_id(memory_id)
        self._require(memory_id)
        if not 1 <= depth <= graph.MAX_DEPTH:
            raise InvalidInput(f"depth must be between 1 and {graph.MAX_DEPTH}", field="depth")
        check_fields(types=types)
        wanted = builtins.list(
            dict.fromkeys(check_relationship_type(t.upper(), "types") for t in types or [])
        )
        reached, edges = graph.related(self.store, memory_id, depth=depth, types=wanted or None)
        return reached, edges, self.store.get_memories([r.memory_id for r in reached])

    def health(self) -> dict:
        self.store.ping()
        return {
            "status": "ok",
            "version": __version__,
            "store": self.store.kind,
            "embedding_model": self.embedder.model_name,
            "embedding_dim": self.embedder.dim,
            "counts": self.store.counts(),
        }
