"""How a memory query orders what the vector and keyword searches found (docs/memini.md, "Query").

Pure functions over texts, vectors and numbers: the service fetches, this module scores.

One relevance per memory, in cosine units, from two signals:

- `similarity`: cosine between the question and the memory (all-MiniLM-L6-v2). It carries
  the meaning, and on questions asked in other words it is the whole story.
- `exact_match`: the share of the question's *exact tokens* the memory holds verbatim:
  identifiers, error names and codes, versions, file names, paths, flags, config keys, quoted
  strings (`ERR_OSSL_EVP_UNSUPPORTED`, `max.poll.interval.ms`, `.nvmrc`, `--dist`, `E0502`,
  "denied: requested access"). This is where keyword search beats meaning: MiniLM reads
  `ECONNRESET` and `ECONNREFUSED` as near twins. Each token weighs by how rare it is among
  this query's candidates (an idf over the pool the two searches returned): a token most
  candidates hold tells them apart no better than none.

    relevance = similarity + exact * exact_match
    score     = relevance + trust * (trust_score - 0.5)

Plain words get no say of their own: cosine already weighs them, and an extra vote for shared
words is what made the default lose to plain cosine (issue 20's "billing service" failure,
where reciprocal rank fusion gave a keyword ranking built on the entity's name as much say as
the vector ranking). The keyword search still brings candidates the vector search missed.
Trust is a small prior: full trust adds 0.05, none takes 0.05 away.

Recency: among the top candidates, an older memory that restates or updates a newer one — the
same entity and the same attribute (memini/updates/evidence.py), and cosine between the two
>= `Recency.same_subject` — is placed right under the newer one, unless its relevance leads by
more than `Recency.margin` (then the question asks for it). A newer fact about the same
entity's other attribute, or about another entity, never moves it (issue 27). A likely update
that nobody confirmed changes nothing here either: it is a report, not a ranking signal.

`exact` was chosen on the `tune` part of the evaluation sets (bench/data), recency's two
numbers too: `bench/memory_quality.py --fit` refits `exact` and prints the grid.
docs/benchmarks-memory-quality.md tells what else was tried and dropped, and why.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from neuralgentics.memini.updates.evidence import same_subject_and_attribute


@dataclass(frozen=True)
class Weights:
    exact: float = 0.15  # added by a memory holding every exact token of the question
    trust: float = 0.1  # per unit of trust away from 0.5: +-0.05 at the ends


@dataclass(frozen=True)
class Recency:
    # cosine between two memories from which they are about one subject: some updates and
    # their originals reach it (16 of the tune set's 91), two different true facts almost
    # never (none of its 97 near-topic pairs; 1 of 3,185 same-entity pairs of the paraphrase
    # and keyword sets)
    same_subject: float = 0.8
    margin: float = 0.3  # the older keeps its place when its relevance leads by more
    window: int = 10  # among the best this many


WEIGHTS = Weights()
RECENCY = Recency()
# The relevance below which a memory is not returned by default (`min_score` per call).
MIN_SCORE = 0.1

# Exact tokens: a digit, inner punctuation (snake_case, dotted.keys, paths/, host:port,
# kebab-names), a leading dot or dashes (.nvmrc, --flag), camelCase, or capitals (HPA, GH006).
_EXACT = re.compile(r"\d|\w[_./:@#=-]\w|^(?:--?|\.|/|@|\$)\w|\w/$|[a-z][A-Z]|^[A-Z][A-Z0-9_]+$")
_QUOTED = re.compile(r'"([^"]{2,})"|`([^`]{2,})`|\u201c([^\u201d]{2,})\u201d')
_EDGE = "\"'`,;:!?()[]{}<>*"


def _tokens(text: str) -> list[str]:
    """Whitespace-separated tokens without the punctuation around them (a sentence's full stop,
    quotes, brackets) and without a possessive 's."""
    out = []
    for raw in text.split():
        token = raw.strip(_EDGE).rstrip(".").strip(_EDGE)
        if token.endswith(("'s", "’s")):
            token = token[:-2]
        if len(token) > 1:
            out.append(token)
    return out


def exact_terms(text: str) -> frozenset[str]:
    """The question's exact tokens, lowercased: identifier-shaped tokens and quoted strings."""
    found = {t.lower() for t in _tokens(text) if _EXACT.search(t)}
    for match in _QUOTED.finditer(text):
        found.add(next(g for g in match.groups() if g).lower())
    return frozenset(found)


def _shares(wanted: frozenset[str], held: list[set[str]]) -> np.ndarray:
    """For each candidate, the idf-weighted share of `wanted` it holds; the idf is over the
    candidates themselves (a term most of them hold tells them apart no better than none)."""
    out = np.zeros(len(held), dtype=np.float64)
    if not wanted or not held:
        return out
    n = len(held)
    idf = {w: math.log((n + 1) / (sum(1 for h in held if w in h) + 0.5)) for w in wanted}
    total = sum(idf.values())
    if total <= 0:
        return out
    for i, h in enumerate(held):
        out[i] = sum(idf[w] for w in h) / total
    return out


def exact_match(query: str, texts: Sequence[str]) -> np.ndarray:
    """For each text, the idf-weighted share of the query's exact tokens it holds verbatim."""
    wanted = exact_terms(query)
    if not wanted:
        return np.zeros(len(texts), dtype=np.float64)
    held = []
    for text in texts:
        lower = text.lower()
        tokens = {t.lower() for t in _tokens(text)}
        held.append({w for w in wanted if (w in lower if " " in w else w in tokens)})
    return _shares(wanted, held)


@dataclass
class Candidate:
    """One memory the searches found, with every signal the ranking uses."""

    id: str
    content: str
    created_at: datetime
    trust_score: float
    # the stored vector; recency needs it for the best few only, and may find it missing
    vector: np.ndarray | None = None
    similarity: float = 0.0
    exact_match: float = 0.0
    vector_rank: int | None = None
    keyword_rank: int | None = None
    keyword_score: float | None = None
    relevance: float = 0.0
    score: float = 0.0
    # a newer memory about the same subject that this one was placed under
    newer: str | None = None
    # scope precedence (memini/scopes.py): among near-restatements the higher ranks first,
    # then the newer; all equal (project scope) leaves recency alone
    precedence: int = 0
    memory: Any = None  # whatever the caller wants back with it (the service: the Memory)
    extra: dict = field(default_factory=dict)


def signals(query: str, candidates: list[Candidate]) -> None:
    """Fill each candidate's exact_match (its similarity comes from the vector search)."""
    exact = exact_match(query, [c.content for c in candidates])
    for c, value in zip(candidates, exact):
        c.exact_match = float(value)


def relevance(c: Candidate, weights: Weights = WEIGHTS) -> float:
    return c.similarity + weights.exact * c.exact_match


def order(
    candidates: list[Candidate], weights: Weights = WEIGHTS, recency: Recency | None = RECENCY
) -> list[Candidate]:
    """Score every candidate and return them best first (recency applied to the top ones)."""
    for c in candidates:
        c.relevance = relevance(c, weights)
        c.score = c.relevance + weights.trust * (c.trust_score - 0.5)
        c.newer = None
    ranked = sorted(candidates, key=lambda c: (-c.score, -c.similarity, c.id))
    if recency is not None:
        ranked = newer_first(ranked, recency)
    return ranked


def newer_first(
    ranked: list[Candidate],
    recency: Recency = RECENCY,
    restates: Callable[[str, str], bool] = same_subject_and_attribute,
) -> list[Candidate]:
    """Place an older memory under a newer one that restates it (`restates`: same entity and
    attribute; cosine >= `recency.same_subject`) among the top `recency.window`, unless the
    older one's relevance leads by more than the margin. A memory of a higher-precedence scope
    counts as newer than one of a lower (session > project = agent > user), so scope orders
    only near-restatements."""
    top = [c for c in ranked[: recency.window] if c.vector is not None]
    if len(top) < 2:
        return ranked
    matrix = np.vstack([c.vector for c in top if c.vector is not None]).astype(np.float32)
    same = matrix @ matrix.T
    position = {id(c): i for i, c in enumerate(top)}
    # newest first, so a chain (A < B < C, one subject) ends newest on top
    by_age = sorted(top, key=lambda c: (c.precedence, c.created_at), reverse=True)
    adjusted: dict[int, float] = {}
    for c in by_age:
        i = position[id(c)]
        value = c.score
        for other in top:
            j = position[id(other)]
            if (other.precedence, other.created_at) <= (c.precedence, c.created_at) or j == i:
                continue
            if same[i, j] < recency.same_subject or c.relevance - other.relevance > recency.margin:
                continue
            if not restates(c.content, other.content):
                continue
            under = adjusted.get(j, other.score) - 1e-6
            if under < value:
                value = under
                c.newer = other.id
        adjusted[i] = value
    for c in top:
        c.extra["order"] = adjusted[position[id(c)]]
    reordered = iter(sorted(top, key=lambda c: (-c.extra["order"], -c.similarity, c.id)))
    # the best few with a vector take their new order in the places they held
    head = [next(reordered) if c.vector is not None else c for c in ranked[: recency.window]]
    return head + ranked[recency.window :]
