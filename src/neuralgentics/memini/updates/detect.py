"""Update detection on write: which live memories of the same project a new fact replaces or
contradicts. No LLM: a candidate search (vector + keywords), then the scorer on each pair.

Three outcomes (docs/memini.md, "Update detection"):
- the best candidate scores >= `auto` and reads as a replacement: SUPERSEDES (new -> old; the
  old one is hidden from queries, kept with its history); or it scores >= `contradict` and
  reads as two sources disagreeing: CONTRADICTS (the older one loses trust);
- a candidate scores >= `likely`: report it as a likely update, with its score and a reason,
  so the caller can confirm with one call (`POST /memory/{id}/supersede`);
- anything lower: leave it alone.
Only the single best candidate is ever acted on: a new fact replaces one old fact; anything
else it resembles is reported, never hidden.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from neuralgentics.memini.scopes import Owner
from neuralgentics.memini.store.base import Memory, MemoryFilter, Store
from neuralgentics.memini.updates import evidence, scorer
from neuralgentics.memini.updates.text import read

MODES = ("auto", "report", "off")
# How many memories of the project are judged: the nearest by cosine, plus the best keyword
# matches the vector search missed (an update can share a rare name and little meaning).
VECTOR_CANDIDATES = 8
KEYWORD_CANDIDATES = 4
# At most this many likely updates are reported.
MAX_LIKELY = 3
# Records of what happened (a task's result, a session's backup, written by the orchestrator
# and the OpenCode plugin) are history, not facts that change: a newer record does not make
# an older one untrue, and their templated text ("Result of ... by coder:") reads as an
# update of the last one. Detection is off for them unless asked for, and they are never a
# candidate for a fact to supersede or contradict.
RECORD_SOURCE_TYPES = frozenset({"task_result", "session_backup"})


def default_mode(source_type: str | None, configured: str) -> str:
    return "off" if source_type in RECORD_SOURCE_TYPES else configured


@dataclass
class Finding:
    memory: Memory
    score: float  # P(the new fact updates or contradicts this memory), 0..1
    relation: str  # "SUPERSEDES" | "CONTRADICTS"
    reason: str
    # only a person may confirm it: the writer (an agent) may not hide this memory
    # (provenance.may_detect_over)
    needs_user: bool = False


@dataclass
class Detection:
    act: list[Finding] = field(default_factory=list)  # confident: link in the same write
    likely: list[Finding] = field(default_factory=list)  # unsure: report, change nothing


def candidates(
    store: Store,
    text: str,
    embedding: np.ndarray,
    project: str,
    near: list[tuple[str, float]] | None = None,
    owner: Owner | None = None,
) -> list[tuple[Memory, float]]:
    """Live memories of `project` (or of `owner`, memini/scopes.py) worth judging, each with
    its cosine to the new fact. `near` is a vector search the caller already made (id,
    cosine), best first, with the same filter. Only the same owner's memories are judged: a
    user fact is never superseded by a project fact, nor a session's by another session's."""
    flt = MemoryFilter(project=project) if owner is None else MemoryFilter(owners=[owner])
    if near is None:
        near = store.vector_search(embedding, flt, VECTOR_CANDIDATES)
    cosines = dict(near[:VECTOR_CANDIDATES])
    for mid, _ in store.keyword_search(text, flt, KEYWORD_CANDIDATES + len(cosines)):
        if mid in cosines:
            continue
        vector = store.get_embedding(mid)
        if vector is not None:
            cosines[mid] = float(np.dot(vector, embedding))
        if len(cosines) >= VECTOR_CANDIDATES + KEYWORD_CANDIDATES:
            break
    found = store.get_memories(list(cosines))
    return [
        (found[mid], sim)
        for mid, sim in cosines.items()
        if mid in found and found[mid].source_type not in RECORD_SOURCE_TYPES
    ]


def decide(
    text: str,
    judged_against: list[tuple[Memory, float]],
    *,
    mode: str = "auto",
    weights: scorer.Weights | None = None,
    meaning: evidence.Meaning | None = None,
) -> Detection:
    """The three outcomes for a new fact against its candidates (pure: no store access).
    `meaning` (two texts -> the cosine of their embeddings) lets one entity's attribute be read
    by meaning as well as by words (evidence.weigh)."""
    weights = weights or scorer.load()
    new = read(text)
    judged: list[tuple[Finding, evidence.Evidence]] = []
    for memory, cosine in judged_against:
        if memory.content == text:
            continue
        old = read(memory.content)
        ev = evidence.weigh(new, old, meaning)
        if ev.different or not (ev.may_report or ev.may_act or ev.may_contradict):
            continue  # another entity, or another attribute of it: not an update of it
        j = scorer.judge(new, old, cosine, weights)
        reason = ev.reason() + "; " + _without_shared_words(j.reason)
        # a stated change is an update, never two sources disagreeing; and two facts that
        # cite no source are one writer's older and newer word, not two sources (eighth pass)
        cited = evidence.cites(new.text) or evidence.cites(old.text)
        relation = "SUPERSEDES" if ev.cue or not cited else j.relation
        if relation != j.relation:
            reason = reason.replace("; two sources disagree, no change stated", "")
        judged.append((Finding(memory, round(j.conflict, 4), relation, reason), ev))
    judged.sort(key=lambda pair: pair[0].score, reverse=True)
    out = Detection()
    for finding, ev in judged:
        bar = weights.auto if finding.relation == "SUPERSEDES" else weights.contradict
        if finding.relation == "SUPERSEDES":
            allowed = ev.may_act
        else:
            allowed = ev.may_contradict
        # the text states the change of this very value: the scorer need only find it likely
        # ("Label: value" states the current value of the label: "Identity lead: Mara")
        # and a stated change of a value of one kind, the attributes tied (evidence.cue_only)
        stated = finding.relation == "SUPERSEDES" and (
            (ev.may_supersede and (ev.cue or new.label) and ev.changed)
            or (ev.cue_only and ev.firmly_tied)
            # the old value named beside its replacement, one attribute by meaning
            or (ev.named_change and ev.may_supersede)
        )
        sure = finding.score >= bar or (stated and finding.score >= weights.likely)
        if not out.act and allowed and mode == "auto" and sure:
            out.act.append(finding)
        elif ev.may_report and finding.score >= weights.likely and len(out.likely) < MAX_LIKELY:
            out.likely.append(finding)
    return out


def _without_shared_words(reason: str) -> str:
    """The scorer's reason without its "same subject (shared words)" part: shared words are
    not the subject (the entity is, and the reason names it)."""
    return "; ".join(p for p in reason.split("; ") if not p.startswith("same subject ("))


def detect(
    store: Store,
    text: str,
    embedding: np.ndarray,
    project: str,
    *,
    mode: str = "auto",
    near: list[tuple[str, float]] | None = None,
    owner: Owner | None = None,
    meaning: evidence.Meaning | None = None,
) -> Detection:
    if mode == "off":
        return Detection()
    found = candidates(store, text, embedding, project, near, owner)
    return decide(text, found, mode=mode, meaning=meaning)


def meaning_of(embed: Callable[[list[str]], np.ndarray], size: int = 2048) -> evidence.Meaning:
    """`evidence.Meaning` over an embedder's batch call (`Embedder.embed`): the cosine of two
    texts' vectors, each text embedded once (a small cache: detection compares one new fact
    with a few candidates, and the same texts come back on the next add)."""
    cache: dict[str, np.ndarray] = {}

    def cosine(a: str, b: str) -> float:
        missing = [t for t in dict.fromkeys((a, b)) if t not in cache]
        if missing:
            if len(cache) + len(missing) > size:
                cache.clear()
            for t, v in zip(missing, embed(missing), strict=True):
                cache[t] = np.asarray(v, dtype=np.float32)
        return float(cache[a] @ cache[b])

    return cosine
