"""The storage contract. SQLite and PostgreSQL implement it; the same contract tests run on both.

Business rules (trust deltas, which memory a CONTRADICTS link penalises, fusion of rankings)
live in the service; a store only guarantees that each method is one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol

import numpy as np

from neuralgentics.memini.generation import Generation
from neuralgentics.memini.scopes import Owner

RELATIONSHIP_TYPES = ("SUPERSEDES", "RELATED_TO", "CONTRADICTS", "DERIVED_FROM")
# the things a short id can name, and the table each lives in (same names on both backends)
IdKind = Literal["memory", "relationship"]
ID_TABLES: dict[str, str] = {"memory": "memories", "relationship": "memory_relationships"}

# Trust is kept in exact thousandths: scores and deltas are integers k (stored as k for
# events, as k / 1000 for a memory's score); float deltas added one after another drifted
# (0.5000000000000006 after +0.05 +0.10 -0.15).
TRUST_SCALE = 1000


def to_milli(value: float) -> int:
    """A trust value or delta in thousandths (0.05 -> 50; finer steps are rounded)."""
    return round(value * TRUST_SCALE)


def from_milli(value: int) -> float:
    """k thousandths as the float that reads back as the decimal (550 -> 0.55)."""
    return int(value) / TRUST_SCALE


@dataclass
class Memory:
    id: str
    content: str
    trust_score: float
    source_type: str | None
    project: str
    tags: list[str]
    metadata: dict
    content_hash: str
    created_at: datetime
    updated_at: datetime
    # id of the memory that SUPERSEDES this one, if any (kept in step with the relationships)
    superseded_by: str | None = None
    # whose it is (memini/scopes.py): project (default), user, agent, session
    scope: str = "project"
    agent: str = ""
    session: str = ""
    # who wrote it (memini/provenance.py): user, agent, system, import; the project an agent's
    # credential was bound to; waiting for a user's confirmation before it crosses projects
    origin: str = "user"
    origin_project: str = ""
    quarantined: bool = False


@dataclass
class NewMemory:
    content: str
    embedding: np.ndarray  # float32, shape (384,), L2-normalised
    content_hash: str
    source_type: str | None = None
    project: str = ""
    tags: list[str] = field(default_factory=list)
    metadata: dict = field(default_factory=dict)
    trust_score: float = 0.5
    scope: str = "project"
    agent: str = ""
    session: str = ""
    origin: str = "user"
    origin_project: str = ""
    quarantined: bool = False


@dataclass
class MemoryPatch:
    """Fields to change; None leaves a field as it is. A new content comes with its embedding."""

    content: str | None = None
    embedding: np.ndarray | None = None
    content_hash: str | None = None
    source_type: str | None = None
    tags: list[str] | None = None
    metadata: dict | None = None


@dataclass
class Relationship:
    id: str
    source_id: str
    target_id: str
    relationship_type: str
    confidence: float
    created_at: datetime
    metadata: dict = field(default_factory=dict)


@dataclass
class TrustEvent:
    id: int
    memory_id: str
    event: str
    delta: float
    actor: str | None
    score_after: float
    created_at: datetime
    note: str | None = None
    origin: str = "user"  # who made it: user, agent, system, import (memini/provenance.py)
    session: str | None = None  # the agent's session, for an agent's event


@dataclass
class TrustChange:
    """A trust event to apply in the same transaction as another write."""

    memory_id: str
    event: str
    delta: float  # applied in thousandths: to_milli(delta)
    actor: str | None = None
    note: str | None = None
    origin: str = "user"
    session: str | None = None
    # The band an event may move the score within, in thousandths (memini/provenance.py: an
    # agent's events stay within [floor, ceiling]; a score already outside it is not moved
    # further out by them, nor pulled in).
    floor_milli: int = 0
    ceiling_milli: int = TRUST_SCALE
    # a user's confirmation releases the memory from quarantine in the same write
    release: bool = False

    @property
    def delta_milli(self) -> int:
        return to_milli(self.delta)

    def bounded(self, old_milli: int) -> int:
        """The score after this event from `old_milli`: [0, 1], and within the event's band
        (an increase never ends above the ceiling, nor a decrease below the floor; neither
        moves a score the wrong way)."""
        d = self.delta_milli
        if d >= 0:
            return max(old_milli, min(old_milli + d, self.ceiling_milli, TRUST_SCALE))
        return min(old_milli, max(old_milli + d, self.floor_milli, 0))


@dataclass
class NewLink:
    """An edge from a memory being written to an existing one, made in the same transaction
    (update detection's SUPERSEDES / CONTRADICTS, an explicit `supersedes`)."""

    target_id: str
    relationship_type: str
    confidence: float = 1.0
    metadata: dict = field(default_factory=dict)
    trust_change: TrustChange | None = None  # e.g. `contradicted` on the target
    # False: skip the link (not fail the write) when the target is gone by then, as a
    # candidate found a moment earlier may be; an explicit request fails with NotFound.
    required: bool = True


@dataclass
class ProjectMove:
    """What `move_project` found and did (project and session memories of the old name)."""

    found: int = 0
    moved: int = 0
    skipped: int = 0  # the same text is under the new name already: left where it was
    refused: bool = False  # the new name holds memories already and `only_if_empty` was asked


@dataclass
class MemoryFilter:
    project: str | None = None
    source_type: str | None = None
    tags: list[str] = field(default_factory=list)  # a memory must carry all of them
    min_trust: float | None = None
    include_superseded: bool = False
    # memini/scopes.py: the owners whose memories match (any of them); None: `project` alone
    # decides, matching that project's project-scope memories (what it meant before scopes)
    owners: list[Owner] | None = None


class Store(Protocol):
    kind: str  # "sqlite" | "postgres"
    # bumped after every committed write (memini/generation.py): what readers compare
    generation: Generation

    def add_memory(
        self,
        new: NewMemory,
        *,
        on_duplicate: TrustChange | None = None,
        links: Sequence[NewLink] = (),
    ) -> tuple[Memory, bool]:
        """Insert, or return the existing memory with the same (project, content_hash).
        content_hash is the per-owner de-duplication key (`scopes.dedup_key`).

        Returns (memory, created). When not created and `on_duplicate` is given, that trust
        change (its memory_id is ignored) is applied to the existing memory in the same transaction.
        When created, `links` (edges from the new memory) are made in the same transaction, as
        `add_relationship` makes one; when not created they are not made.
        """
        ...

    def get_memory(self, memory_id: str) -> Memory | None: ...

    def find_by_hash(self, project: str, content_hash: str) -> Memory | None:
        """The memory of `project` with this content hash (lets callers skip embedding a duplicate)."""
        ...

    def get_memories(self, ids: list[str]) -> dict[str, Memory]: ...

    def list_memories(
        self, flt: MemoryFilter, *, limit: int = 50, offset: int = 0
    ) -> tuple[list[Memory], int]:
        """Newest first. Returns (page, total matching the filter)."""
        ...

    def update_memory(self, memory_id: str, patch: MemoryPatch) -> Memory:
        """Raises NotFound; Conflict when the new content duplicates another memory of the project."""
        ...

    def delete_memory(self, memory_id: str) -> bool:
        """Deletes the memory, its relationships and trust history. False if it did not exist."""
        ...

    def get_embedding(self, memory_id: str) -> np.ndarray | None: ...

    def get_embeddings(self, ids: list[str]) -> dict[str, np.ndarray]:
        """The stored vectors of those memories that exist (the ranking compares candidates)."""
        ...

    def vector_search(
        self, embedding: np.ndarray, flt: MemoryFilter, k: int
    ) -> list[tuple[str, float]]:
        """(id, cosine similarity) best first, only memories matching `flt`."""
        ...

    def keyword_search(self, text: str, flt: MemoryFilter, k: int) -> list[tuple[str, float]]:
        """(id, keyword score, higher is better) best first, only memories matching `flt`."""
        ...

    def move_project(
        self, old: str, new: str, *, only_if_empty: bool = False, dry_run: bool = False
    ) -> ProjectMove:
        """Give the project and session memories of project `old` the name `new`, in one
        transaction (opencode/installer.py: a folder-name project becomes its repository's
        key). A memory whose text `new` holds already stays. `only_if_empty`: nothing moves
        when `new` holds any memory (two repositories are never merged)."""
        ...

    def apply_trust(self, change: TrustChange) -> tuple[Memory, TrustEvent]:
        """Atomically add delta, clamp to [0, 1], record the event. Raises NotFound."""
        ...

    def trust_history(self, memory_id: str) -> list[TrustEvent]:
        """Oldest first."""
        ...

    def add_relationship(
        self,
        source_id: str,
        target_id: str,
        relationship_type: str,
        confidence: float,
        metadata: dict | None = None,
        *,
        trust_change: TrustChange | None = None,
    ) -> Relationship:
        """One transaction: the edge, `superseded_by` of the target for SUPERSEDES, and the
        optional trust change. Raises NotFound for a missing end, Conflict for an existing edge."""
        ...

    def add_relationships(self, source_id: str, links: Sequence[NewLink]) -> list[Relationship]:
        """Several edges from one memory in one transaction: all made or none. Raises as
        `add_relationship` does (a link with `required=False` whose target is gone is skipped)."""
        ...

    def remove_relationships(
        self, relationship_ids: Sequence[str], changes: Sequence[TrustChange] = ()
    ) -> list[Relationship]:
        """One transaction: delete these edges (recomputing `superseded_by` of SUPERSEDES
        targets, as `delete_relationship` does) and apply the trust changes (a decision undone:
        `memory restore`). All or nothing: NotFound when an edge is gone by then. Returns the
        edges removed."""
        ...

    def get_relationship(self, relationship_id: str) -> Relationship | None: ...

    def delete_relationship(self, relationship_id: str) -> bool: ...

    def edges_of(self, ids: list[str], types: list[str] | None = None) -> list[Relationship]:
        """Every relationship with either end in `ids` (both directions)."""
        ...

    def ids_between(self, kind: IdKind, low: str, high: str, limit: int) -> list[str]:
        """Ids of memories or relationships in [low, high] (canonical UUIDs), in order, at
        most `limit`: what a short id prefix names (`neuralgentics.db.ids`)."""
        ...

    def counts(self) -> dict[str, int]:
        """memories, relationships, trust_events, project_chunks."""
        ...

    def ping(self) -> None:
        """Raises StoreUnavailable when the database cannot be reached."""
        ...

    def close(self) -> None: ...
