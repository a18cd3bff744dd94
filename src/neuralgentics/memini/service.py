"""What memini-core does, as library calls. HTTP routes and CLI commands both call these."""

from __future__ import annotations

# `MemoryService.list` shadows the builtin in the class body: its methods say builtins.list
import builtins
import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime

import numpy as np

from neuralgentics import __version__
from neuralgentics.config import Settings
from neuralgentics.db import ids
from neuralgentics.embeddings import Embedder
from neuralgentics.memini import graph, provenance, ranking, scopes, trust
from neuralgentics.memini.errors import Conflict, InvalidInput, NotFound
from neuralgentics.memini.provenance import USER, Actor
from neuralgentics.memini.store.base import (
    IdKind,
    Memory,
    MemoryFilter,
    MemoryPatch,
    NewLink,
    NewMemory,
    Relationship,
    Store,
    TrustChange,
    TrustEvent,
)
from neuralgentics.memini.store.validate import (
    check_filter,
    check_json,
    check_relationship_type,
    check_text,
)
from neuralgentics.memini.updates import detect

MAX_TOP_K = 100
# A query's text, in characters (as /project/search): more is refused with a 422. The model
# reads the first 256 tokens (~1,000 characters) anyway; past that only the keyword search saw
# the rest, and 100,000 words of it took 54 s.
MAX_QUERY_CHARS = 4_000
# At most this many near-duplicates are reported as `similar` on add.
SIMILAR_MAX = 5
# Each search returns at least this many candidates for the ranking to weigh.
POOL = 50
# How much of a replaced memory's lead on a question its replacement takes (Query, docs).
INHERIT = 1.0
# SQLite integers are 64-bit; any real offset is far below this.
MAX_OFFSET = 2**53
# How a likely update (reported on add, not acted on) is kept: an edge new -> old.
LIKELY_EDGE = "RELATED_TO"
LIKELY_DETECTED = "likely_update"


@dataclass
class Why:
    """What placed a hit where it is (memini/ranking.py explains each signal)."""

    similarity: float
    exact_match: float
    vector_rank: int | None
    keyword_rank: int | None
    keyword_score: float | None
    relevance: float
    trust: float
    score: float
    newer: str | None = None  # a newer memory about the same subject, ranked just above


@dataclass
class Hit:
    memory: Memory
    score: float
    why: Why
    # CONTRADICTS edges, either direction: the other memories, so the reader sees the dispute
    contradicts: list[str] = field(default_factory=list)

    @property
    def contradicted(self) -> bool:
        return bool(self.contradicts)


@dataclass
class Similar:
    memory: Memory
    similarity: float


@dataclass
class AddResult:
    memory: Memory
    created: bool
    similar: list[Similar] = field(default_factory=list)
    # Update detection and explicit requests (docs/memini.md, "Update detection"): memories
    # this write superseded or linked as contradicted, and those it probably updates.
    superseded: list[detect.Finding] = field(default_factory=list)
    contradicts: list[detect.Finding] = field(default_factory=list)
    likely_updates: list[detect.Finding] = field(default_factory=list)


@dataclass
class Decision:
    """A decision about a memory that changed what the reader sees: a supersession (hides the
    older one), a contradiction (costs it trust) or a likely update (ranks the newer first),
    read from the edge that holds it, seen from one memory (`memory get`)."""

    relationship_id: str
    relation: str  # SUPERSEDES | CONTRADICTS | RELATED_TO (a likely update)
    # "by": the other memory did it to this one (hid it, contradicts it, probably updates it);
    # "of": this one did it to the other
    direction: str
    other_id: str
    other_content: str | None  # None: the other memory is gone
    how: str  # the edge's `detected`: auto, similar, explicit, confirmed, likely_update; or manual
    score: float | None
    reason: str | None
    at: datetime
    hidden_id: str | None = None  # a supersession: the memory it hides (what restore takes)


# The event `restore` records in the restored memory's history.
RESTORED_EVENT = "restored"


@dataclass
class MemoryDetail:
    memory: Memory
    trust_history: list[TrustEvent]
    relationships: list[Relationship]
    decisions: list[Decision] = field(default_factory=list)


@dataclass
class Restored:
    """What `restore` undid: the memory (visible again) and each supersession removed."""

    memory: Memory
    undone: list[Decision]
    events: list[TrustEvent]


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


def _asked(finding: detect.Finding) -> detect.Finding:
    """A finding detection may not act on for this writer, reported as a likely update: the
    reason says a person confirms it."""
    why = f"{finding.reason}; not this writer's to hide: a person confirms"
    return replace(finding, reason=why, needs_user=True)


def _by(by: Actor, actor: str | None = None) -> dict:
    """Who made an edge, in its metadata (every supersession says who made it)."""
    out: dict = {"by": by.kind}
    if by.label(actor):
        out["by_name"] = by.label(actor)
    if by.session:
        out["by_session"] = by.session
    if by.project is not None:
        out["by_project"] = by.project
    return out


class MemoryService:
    def __init__(self, store: Store, embedder: Embedder, settings: Settings) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        # what update detection compares sentences' meaning with (memini/updates/evidence.py)
        self._meaning = detect.meaning_of(embedder.embed)

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
        supersedes: list[str] | None = None,
        detection: str | None = None,
        scope: str | None = None,
        agent: str | None = None,
        session: str | None = None,
        by: Actor = USER,
    ) -> AddResult:
        """Store a memory, or return the identical one already stored (an agent_used event).

        Update detection (`detection`; default the setting `update_detection`, and `off` for
        records such as task results — detect.RECORD_SOURCE_TYPES): `auto`
        supersedes the one memory the new fact confidently replaces (or links it as
        contradicted) in the same transaction and reports likely updates; `report` only
        reports; `off` does neither. `supersedes` names memories to supersede explicitly.

        `scope` (memini/scopes.py, default project) with `agent` / `session` says whose the
        memory is; de-duplication, similar memories and update detection stay within that
        owner (an explicit `supersedes` may cross owners).

        `by` (memini/provenance.py): who writes. An agent's credential writes only in its own
        project and the user's and agents' scopes, where its memory waits for a user's
        confirmation before other projects see it; it supersedes only memories it owns.
        """
        content = self._check_content(content)
        check_fields(
            project=project,
            source_type=source_type,
            tags=tags,
            metadata=metadata,
            actor=actor,
            agent=agent,
            session=session,
        )
        place = scopes.placement(scope, project, agent, session)
        if place.scope in ("project", "session"):
            provenance.require_project(by, project)
        mode = detection or detect.default_mode(source_type, self.settings.update_detection)
        if mode not in detect.MODES:
            raise InvalidInput(
                f"detection must be one of {', '.join(detect.MODES)}, not {mode!r}",
                field="detection",
            )
        explicit = list(dict.fromkeys(check_id(i, "supersedes") for i in supersedes or []))
        digest = scopes.dedup_key(content, place)
        reuse = trust.trust_change("", "agent_used", actor=actor, note="added again", by=by)
        existing = self.store.find_by_hash(project, digest)
        if existing is not None:
            return self._readded(existing, actor, explicit, by=by)
        embedding = self.embedder.embed_one(content)
        flt = MemoryFilter(owners=[place.owner])
        near = self.store.vector_search(embedding, flt, detect.VECTOR_CANDIDATES)
        threshold = (
            self.settings.similar_threshold if similar_threshold is None else similar_threshold
        )
        similar_ids = [(mid, sim) for mid, sim in near[:SIMILAR_MAX] if sim >= threshold]
        found = self.store.get_memories([mid for mid, _ in similar_ids])
        similar = [Similar(found[mid], sim) for mid, sim in similar_ids if mid in found]
        found_updates = detect.detect(
            self.store,
            content,
            embedding,
            project,
            mode=mode,
            near=near,
            owner=place.owner,
            meaning=self._meaning,
        )
        links: dict[str, tuple[NewLink, detect.Finding]] = {}
        # what an agent does not own, or a person wrote, detection only reports (it never
        # hides the user's or another project's memory because an agent wrote something like
        # it; provenance.may_detect_over)
        acted = [f for f in found_updates.act if provenance.may_detect_over(by, f.memory)]
        for finding in acted:
            links[finding.memory.id] = (self._link(finding, "auto", actor, by=by), finding)
        found_updates.likely.extend(_asked(f) for f in found_updates.act if f not in acted)
        similar = [x for x in similar if provenance.visible(by, x.memory)]
        if supersede_similar and similar and provenance.may_detect_over(by, similar[0].memory):
            closest = similar[0]
            finding = detect.Finding(
                closest.memory,
                round(min(1.0, max(0.0, closest.similarity)), 6),
                "SUPERSEDES",
                f"near-duplicate on add (cosine {closest.similarity:.2f})",
            )
            links[closest.memory.id] = (self._link(finding, "similar", actor, by=by), finding)
        if explicit:
            targets = self.store.get_memories(explicit)
            for mid in explicit:
                if mid not in targets or not provenance.visible(by, targets[mid]):
                    raise NotFound(f"memory {mid} does not exist", field="supersedes")
                provenance.require_may_hide(by, targets[mid], "supersedes")
                finding = detect.Finding(targets[mid], 1.0, "SUPERSEDES", "requested")
                links[mid] = (
                    self._link(finding, "explicit", actor, required=True, by=by),
                    finding,
                )
        likely = [f for f in found_updates.likely if f.memory.id not in links]
        # In auto mode each likely update is kept as a RELATED_TO edge (new -> old,
        # detected=likely_update): a record of what was reported, for the one call that
        # confirms it (POST /memory/{id}/supersede). It does not change ranking (issue 27: an
        # unconfirmed guess must cost the older fact nothing); skipped if the old one is gone
        # by then. `report` writes nothing but the memory.
        kept = [self._likely_link(f) for f in likely] if mode == "auto" else []
        memory, created = self.store.add_memory(
            NewMemory(
                content=content,
                embedding=embedding,
                content_hash=digest,
                source_type=source_type,
                project=project,
                tags=tags or [],
                metadata=metadata or {},
                scope=place.scope,
                agent=place.agent,
                session=place.session,
                origin=by.kind,
                origin_project=by.project or "",
                quarantined=by.kind == "agent",
            ),
            on_duplicate=reuse if place.scope in ("project", "session") or not by.bound else None,
            links=[*(link for link, _ in links.values()), *kept],
        )
        if not created:  # another writer stored the same text a moment ago
            return self._readded(memory, actor, explicit, counted=True, by=by)
        made = {e.target_id for e in self.store.edges_of([memory.id]) if e.source_id == memory.id}
        done = [f for _, f in links.values() if f.memory.id in made]
        return AddResult(
            memory,
            created=True,
            similar=similar,
            superseded=[f for f in done if f.relation == "SUPERSEDES"],
            contradicts=[f for f in done if f.relation == "CONTRADICTS"],
            likely_updates=likely,
        )

    @staticmethod
    def _likely_link(finding: detect.Finding) -> NewLink:
        return NewLink(
            finding.memory.id,
            LIKELY_EDGE,
            round(min(1.0, max(0.0, finding.score)), 6),
            {"detected": LIKELY_DETECTED, "score": finding.score, "reason": finding.reason},
            required=False,
        )

    def _link(
        self,
        finding: detect.Finding,
        how: str,
        actor: str | None,
        *,
        required: bool = False,
        by: Actor = USER,
    ) -> NewLink:
        """The edge for a finding; a contradiction costs the older memory trust (within the
        agent's band when an agent's write found it)."""
        change = None
        if finding.relation == "CONTRADICTS":
            change = trust.trust_change(
                finding.memory.id,
                "contradicted",
                actor=actor,
                note="contradicted by a newer memory (update detection)",
                by=by,
                origin="system",
            )
        return NewLink(
            finding.memory.id,
            finding.relation,
            round(min(1.0, max(0.0, finding.score)), 6),
            {"detected": how, "score": finding.score, "reason": finding.reason, **_by(by, actor)},
            trust_change=change,
            required=required,
        )

    def _readded(
        self,
        existing: Memory,
        actor: str | None,
        explicit: list[str],
        *,
        counted: bool = False,
        by: Actor = USER,
    ) -> AddResult:
        """The same content again: any explicit `supersedes` (first: a refused one leaves
        nothing behind), and an agent_used event (only on a memory `by` owns: an agent saving
        the user's words again is no vote for them)."""
        if not provenance.visible(by, existing):
            raise provenance.Forbidden(
                "the same text is already stored there, waiting for the user's confirmation "
                "from another project: it cannot be saved from this one",
                field="content",
            )
        superseded: list[detect.Finding] = []
        if explicit:
            superseded = self.supersede(existing.id, explicit, actor=actor, by=by)
        memory = existing
        if not counted and provenance.owns(by, existing):
            memory, _ = self._record(
                trust.trust_change(
                    existing.id, "agent_used", actor=actor, note="added again", by=by
                )
            )
        elif explicit:
            memory = self._require(existing.id)
        return AddResult(memory, created=False, superseded=superseded)

    def supersede(
        self, memory_id: str, ids: list[str], *, actor: str | None = None, by: Actor = USER
    ) -> list[detect.Finding]:
        """Memory `memory_id` replaces each of `ids` (the one-call confirm of likely updates):
        SUPERSEDES edges in one transaction, all or none (the store refuses one that would close
        a cycle: 409). Already superseded by it: left as is."""
        memory_id = check_id(memory_id)
        wanted = list(dict.fromkeys(check_id(i, "ids") for i in ids))
        if not wanted:
            raise InvalidInput("ids is empty: name the memories this one replaces", field="ids")
        if memory_id in wanted:
            raise InvalidInput("a memory cannot supersede itself", field="ids")
        check_fields(actor=actor)
        newer = self._require(memory_id, by)
        provenance.require_owned(by, newer, "supersede with")
        targets = self.store.get_memories(wanted)
        for mid in wanted:
            if mid not in targets or not provenance.visible(by, targets[mid]):
                raise NotFound(f"memory {mid} does not exist", field="ids")
            provenance.require_may_hide(by, targets[mid])
        already = {
            e.target_id
            for e in self.store.edges_of([memory_id], ["SUPERSEDES"])
            if e.source_id == memory_id
        }
        links = [
            NewLink(mid, "SUPERSEDES", 1.0, {"detected": "confirmed", **_by(by, actor)})
            for mid in wanted
            if mid not in already
        ]
        if links:
            self.store.add_relationships(memory_id, links)
        fresh = self.store.get_memories(wanted)
        return [
            detect.Finding(fresh.get(mid, targets[mid]), 1.0, "SUPERSEDES", "confirmed")
            for mid in wanted
        ]

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
            patch.content_hash = scopes.dedup_key(content, scopes.placed(current))
            if patch.content_hash == current.content_hash:
                patch.content = patch.content_hash = None
            else:
                patch.embedding = self.embedder.embed_one(content)
        return self.store.update_memory(memory_id, patch)

    def delete(self, memory_id: str) -> None:
        if not self.store.delete_memory(check_id(memory_id)):
            raise NotFound(f"memory {memory_id} does not exist", field="id")

    def apply_trust(
        self,
        memory_id: str,
        event: str,
        *,
        actor: str | None = None,
        note: str | None = None,
        by: Actor = USER,
    ) -> tuple[Memory, TrustEvent]:
        """Record `event` (memini/trust.py) as `by`: only a person records the user's events;
        an agent gives feedback only on memories its project owns, within its band, once per
        memory and session."""
        check_fields(event=event, actor=actor, note=note)
        provenance.check_event(by, event)
        change = trust.trust_change(check_id(memory_id), event, actor=actor, note=note, by=by)
        if by.bound:
            provenance.require_owned(by, self._require(change.memory_id, by), "give feedback on")
        return self._record(change)

    def confirm(self, memory_id: str, *, note: str | None = None) -> tuple[Memory, TrustEvent]:
        """The user's "yes, that is right" (`memory confirm`, the dashboard, /memory-confirm):
        +0.10 and, for an agent's memory, release from quarantine."""
        return self.apply_trust(memory_id, "user_confirmed", note=note or "confirmed by the user")

    def reject(self, memory_id: str, *, note: str | None = None) -> tuple[Memory, TrustEvent]:
        """The user's "no, that is wrong": -0.15."""
        return self.apply_trust(memory_id, "user_rejected", note=note or "rejected by the user")

    def _record(self, change: TrustChange) -> tuple[Memory, TrustEvent]:
        """Apply `change`; an agent's event counts once per memory and session (the same
        session repeating itself is no new evidence): a repeat is kept in the history with
        delta 0."""
        if change.floor_milli > 0 and change.session:
            seen = any(
                e.session == change.session and e.event in provenance.AGENT_EVENTS
                for e in self.store.trust_history(change.memory_id)
            )
            if seen:
                change = replace(
                    change,
                    delta=0.0,
                    note=f"{change.note or change.event} (already counted in this session)",
                )
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
        by: Actor = USER,
    ) -> Relationship:
        source_id, target_id = check_id(source_id, "source_id"), check_id(target_id, "target_id")
        check_fields(relationship_type=relationship_type, metadata=metadata, actor=actor)
        kind = check_relationship_type(relationship_type.upper(), shown=relationship_type)
        if not 0.0 <= confidence <= 1.0:
            raise InvalidInput("confidence must be between 0 and 1", field="confidence")
        if source_id == target_id:
            raise InvalidInput("a memory cannot be related to itself", field="target_id")
        if by.bound:
            for mid in (source_id, target_id):
                provenance.require_owned(by, self._require(mid, by), "link")
        source, target = self._require(source_id), self._require(target_id)
        # The older of two contradicting memories loses trust: the newer statement is the
        # likelier truth.
        older = min((source, target), key=lambda m: m.created_at)
        newer = target if older is source else source
        # a link that hides a memory or costs it trust is a supersession: an agent makes none
        # of a fact a person wrote (provenance.require_may_hide)
        if kind == "SUPERSEDES":
            provenance.require_may_hide(by, target, "target_id")
        elif kind == "CONTRADICTS":
            provenance.require_may_hide(by, older, "target_id" if older is target else "source_id")
        change = None
        if kind == "CONTRADICTS":
            change = trust.trust_change(
                older.id,
                "contradicted",
                actor=actor,
                note=f"contradicted by {newer.id}",
                by=by,
                origin="system" if by.kind == "agent" else None,
            )
        return self.store.add_relationship(
            source_id,
            target_id,
            kind,
            confidence,
            {**(metadata or {}), **_by(by, actor)},
            trust_change=change,
        )

    def unrelate(self, relationship_id: str) -> None:
        if not self.store.delete_relationship(check_id(relationship_id, "relationship_id")):
            raise NotFound(f"relationship {relationship_id} does not exist", field="id")

    def restore(self, memory_id: str, *, actor: str | None = None) -> Restored:
        """Undo the supersession of `memory_id` in one transaction: every SUPERSEDES edge that
        hides it is removed (so it is current again) and a `restored` event in its history says
        what was undone and why it had been hidden. 409 when nothing hides it (nothing is
        changed)."""
        memory = self._require(check_id(memory_id))
        check_fields(actor=actor)
        edges = [
            e for e in self.store.edges_of([memory.id], ["SUPERSEDES"]) if e.target_id == memory.id
        ]
        if not edges:
            raise Conflict(f"memory {memory.id} is not superseded: nothing to restore", field="id")
        undone = self._decisions(memory.id, edges)
        # A supersession moves no trust (the hidden memory keeps its score), so there is none
        # to give back: the event, delta 0, is the record. Nothing is read from the edge's
        # metadata to move trust: `relate` lets a caller write any metadata.
        changes = [
            TrustChange(
                memory.id,
                RESTORED_EVENT,
                0.0,
                actor,
                f"supersession by {d.other_id} undone ({d.how}"
                + (f": {d.reason})" if d.reason else ")"),
            )
            for d in undone
        ]
        self.store.remove_relationships([e.id for e in edges], changes)
        history = self.store.trust_history(memory.id)
        return Restored(self._require(memory.id), undone, history[-len(changes) :])

    def _decisions(
        self, memory_id: str, edges: builtins.list[Relationship]
    ) -> builtins.list[Decision]:
        """The edges that hold a decision, seen from `memory_id` (others: left out)."""
        kept = [
            e
            for e in edges
            if e.relationship_type in ("SUPERSEDES", "CONTRADICTS")
            or (e.metadata or {}).get("detected") == LIKELY_DETECTED
        ]
        others = self.store.get_memories(
            [e.target_id if e.source_id == memory_id else e.source_id for e in kept]
        )
        out: builtins.list[Decision] = []
        for e in kept:
            meta = e.metadata or {}
            by = e.target_id == memory_id
            other = e.source_id if by else e.target_id
            score = meta.get("score")
            reason = meta.get("reason")
            found = others.get(other)
            out.append(
                Decision(
                    relationship_id=e.id,
                    relation=e.relationship_type,
                    direction="by" if by else "of",
                    other_id=other,
                    other_content=found.content if found else None,
                    how=str(meta.get("detected") or "manual"),
                    score=float(score) if isinstance(score, (int, float)) else None,
                    reason=reason if isinstance(reason, str) else None,
                    at=e.created_at,
                    hidden_id=e.target_id if e.relationship_type == "SUPERSEDES" else None,
                )
            )
        return out

    # -- reading ------------------------------------------------------------------------

    def resolve_id(self, ref: str, kind: IdKind = "memory") -> str:
        """The whole id of a memory (or relationship) from the id or a unique start of it, as
        the tables print it: NotFound when none starts so, AmbiguousId naming the candidates."""
        return ids.resolve(
            ref,
            lambda low, high, limit: self.store.ids_between(kind, low, high, limit),
            what="id",
            noun=f"{kind} id",
        )

    def _require(self, memory_id: str, by: Actor = USER) -> Memory:
        """The memory, or NotFound, also for one `by` may not see (its existence is not told)."""
        memory = self.store.get_memory(memory_id)
        if memory is None or not provenance.visible(by, memory):
            raise NotFound(f"memory {memory_id} does not exist", field="id")
        return memory

    def get(self, memory_id: str) -> MemoryDetail:
        memory = self._require(check_id(memory_id))
        edges = self.store.edges_of([memory.id])
        return MemoryDetail(
            memory,
            self.store.trust_history(memory.id),
            edges,
            self._decisions(memory.id, edges),
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

    def query(
        self,
        text: str,
        flt: MemoryFilter,
        *,
        top_k: int = 10,
        min_score: float | None = None,
    ) -> builtins.list[Hit]:
        """Vector and keyword search, their candidates scored together (memini/ranking.py);
        memories whose relevance is below `min_score` (default ranking.MIN_SCORE) are left out."""
        floor = ranking.MIN_SCORE if min_score is None else self._check_floor(min_score)
        ranked = ranking.order(self.candidates(text, flt, top_k=top_k), recency=None)
        # recency compares the best few with each other: their vectors, read only for them
        window = ranked[: ranking.RECENCY.window]
        stored = self.store.get_embeddings([c.id for c in window if c.vector is None])
        for c in window:
            if c.vector is None:
                c.vector = stored.get(c.id)
        ranked = ranking.newer_first(ranked)
        kept = [c for c in ranked if c.relevance >= floor][:top_k]
        disputes: dict[str, builtins.list[str]] = {}
        for rel in self.store.edges_of([c.id for c in kept], ["CONTRADICTS"]):
            disputes.setdefault(rel.source_id, []).append(rel.target_id)
            disputes.setdefault(rel.target_id, []).append(rel.source_id)
        hits: builtins.list[Hit] = []
        for c in kept:
            why = Why(
                similarity=round(c.similarity, 6),
                exact_match=round(c.exact_match, 6),
                vector_rank=c.vector_rank,
                keyword_rank=c.keyword_rank,
                keyword_score=c.keyword_score,
                relevance=round(c.relevance, 6),
                trust=c.trust_score,
                score=round(c.score, 6),
                newer=c.newer,
            )
            others = builtins.list(dict.fromkeys(disputes.get(c.id, [])))
            hits.append(Hit(c.memory, why.score, why, contradicts=others))
        return hits

    @staticmethod
    def _check_floor(value: float) -> float:
        if not isinstance(value, (int, float)) or not -1.0 <= value <= 2.0:
            raise InvalidInput("min_score must be a number between -1 and 2", field="min_score")
        return float(value)

    def candidates(
        self, text: str, flt: MemoryFilter, *, top_k: int = 10
    ) -> builtins.list[ranking.Candidate]:
        """Everything the two searches found for `text`, with the signals the ranking weighs
        (unordered)."""
        if not text or not text.strip():
            raise InvalidInput("query is empty", field="query")
        if len(text) > MAX_QUERY_CHARS:
            raise InvalidInput(
                f"query has {len(text)} characters; the limit is {MAX_QUERY_CHARS}",
                field="query",
            )
        check_text(text, "query")
        check_filter(flt)
        if not 1 <= top_k <= MAX_TOP_K:
            raise InvalidInput(f"top_k must be between 1 and {MAX_TOP_K}", field="top_k")
        pool = max(top_k, POOL)
        query_vector = self.embedder.embed_one(text)
        vector, replaced, memories = self._vector_pool(query_vector, flt, pool)
        keyword = self.store.keyword_search(text, flt, pool)
        wanted = [mid for mid in dict.fromkeys(mid for mid, _ in [*vector, *keyword])]
        memories.update(self.store.get_memories([m for m in wanted if m not in memories]))
        memories = {m: memories[m] for m in wanted if m in memories}
        similarity = dict(vector)
        # a keyword hit the vector search did not return: its cosine from its stored vector
        stored = self.store.get_embeddings([mid for mid in memories if mid not in similarity])
        found: dict[str, ranking.Candidate] = {}
        for mid, memory in memories.items():
            vec = stored.get(mid)
            if mid not in similarity and vec is None:
                continue  # deleted between the searches and now
            found[mid] = ranking.Candidate(
                id=mid,
                content=memory.content,
                created_at=memory.created_at,
                trust_score=memory.trust_score,
                vector=vec,
                similarity=similarity[mid] if mid in similarity else float(vec @ query_vector),
                precedence=scopes.PRECEDENCE.get(memory.scope, 0),
                memory=memory,
            )
        # a memory that replaced another answers the questions the replaced one answered
        # ("Where does Philippa leave the car?" found "The garage spot allocated to Philippa is
        # bay P2-41", now hidden by "Facilities reassigned Philippa from bay P2-41 to P3-22"):
        # it is as similar to the question as the best memory it hides (issue 27, eighth pass)
        for mid, (sim, hidden) in replaced.items():
            c = found.get(mid)
            if c is not None and sim > c.similarity:
                c.similarity += INHERIT * (sim - c.similarity)
                c.extra["answers_for"] = hidden
        for rank, (mid, _) in enumerate(vector, 1):
            if mid in found:
                found[mid].vector_rank = rank
        for rank, (mid, score) in enumerate(keyword, 1):
            if mid in found:
                found[mid].keyword_rank, found[mid].keyword_score = rank, round(score, 6)
        result = builtins.list(found.values())
        ranking.signals(text, result)
        return result

    def _vector_pool(
        self, query_vector: np.ndarray, flt: MemoryFilter, pool: int
    ) -> tuple[builtins.list[tuple[str, float]], dict[str, tuple[float, str]], dict[str, Memory]]:
        """The vector search's live memories (at most `pool`), and for each live memory that
        replaced a memory the search found, the best such memory's cosine and id; with the
        memories read on the way. One search over live and superseded memories together
        (superseded ones are few), so a query costs what it did; with `include_superseded`
        the filter's own results, nothing inherited."""
        if flt.include_superseded:
            return self.store.vector_search(query_vector, flt, pool), {}, {}
        hits = self.store.vector_search(
            query_vector, replace(flt, include_superseded=True), 2 * pool
        )
        rows = self.store.get_memories([mid for mid, _ in hits])
        live: builtins.list[tuple[str, float]] = []
        replaced: dict[str, tuple[float, str]] = {}
        for mid, sim in hits:
            memory = rows.get(mid)
            if memory is None:
                continue
            if memory.superseded_by is None:
                if len(live) < pool:
                    live.append((mid, sim))
                continue
            # the live end of the chain (A hidden by B hidden by C: C answers for A)
            end = self._live_end(memory.superseded_by, rows)
            if end is not None and (end not in replaced or replaced[end][0] < sim):
                replaced[end] = (sim, mid)
        return live, replaced, {m: rows[m] for m, _ in live}

    def _live_end(self, by: str, rows: dict[str, Memory]) -> str | None:
        """The memory at the end of a chain of supersessions starting at `by` (a few steps at
        most; None when one is gone or the chain does not end)."""
        for _ in range(8):
            found = rows.get(by) or self.store.get_memory(by)
            if found is None:
                return None
            rows[by] = found
            if found.superseded_by is None:
                return by
            by = found.superseded_by
        return None

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
