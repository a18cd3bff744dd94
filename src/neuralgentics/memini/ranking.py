"""How a memory query orders what the vector and keyword searches found (docs/memini.md, "Query").

Pure functions over texts, vectors and numbers: the service fetches, this module scores.

One relevance per memory, in cosine units, from three signals:

- `similarity`: cosine between the question and the memory (all-MiniLM-L6-v2). It carries
  the meaning, and on questions asked in other words it is most of the story.
- `exact_match`: the share of the question's *exact tokens* the memory holds verbatim:
  identifiers, error names and codes, versions, file names, paths, flags, config keys, quoted
  strings (`ERR_OSSL_EVP_UNSUPPORTED`, `max.poll.interval.ms`, `.nvmrc`, `--dist`, `E0502`,
  "denied: requested access"). This is where keyword search beats meaning: MiniLM reads
  `ECONNRESET` and `ECONNREFUSED` as near twins. Each token weighs by how rare it is among
  this query's candidates (an idf over the pool the two searches returned): a token most
  candidates hold tells them apart no better than none.
- `word_match`: how well the memory's word pieces cover the question's content words, each
  question piece scored by its best cosine to a piece of the memory in MiniLM's *input* table
  (embeddings/wordpieces.py: "approves" ~ "approver", "bill" ~ "invoice" part of the way) and
  weighted by an idf over the candidates, so the entity's name that ten candidates share says
  little. Cosine pools a whole sentence into one vector, where a question's one telling word
  drowns; this keeps each word's vote. It needs no model call: a tokenizer pass over the best
  `WORD_POOL` candidates and one small matrix product. What counts is the lift over the
  candidates' median (`word_lift`), so a question that matches nothing lifts nothing.

    relevance = similarity + exact * exact_match + words * word_lift
    score     = relevance + trust * (trust_score - 0.5)

Plain shared words get no vote of their own (an exact count of shared words is what made
reciprocal rank fusion lose to plain cosine: issue 20's "billing service" failure), and the
word match never counts a word the other candidates share as evidence. The keyword search
still brings candidates the vector search missed. Trust is a small prior: full trust adds
0.05, none takes 0.05 away.

Recency: among the top candidates, an older memory about the same subject as a newer one
(cosine between the two >= `Recency.same_subject`) is placed right under the newer one,
unless its relevance leads by more than `Recency.margin` (then the question asks for it).

`exact` and `words` were chosen on the `tune` part of the evaluation sets (bench/data),
recency's two numbers too: `bench/memory_quality.py --fit` refits the two weights, prints the
grid and a group-wise cross-validation.
docs/benchmarks-memory-quality.md tells what else was tried and dropped, and why.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

import numpy as np


@dataclass(frozen=True)
class Weights:
    exact: float = 0.1  # added by a memory holding every exact token of the question
    # per unit of word match above the candidates' median (`word_match`): +0.1 to +0.2 for
    # the memory that covers the question's words best
    words: float = 0.5
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
# How many candidates the word match is computed for (`signals`).
WORD_POOL = 30
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


def word_match(
    query: np.ndarray, memories: Sequence[np.ndarray], vectors: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """For each memory, how well its word pieces cover the question's: for every content piece
    of the question (ids from embeddings/wordpieces.py), the best cosine between its row of
    MiniLM's input table and any piece of the memory, averaged with each question piece
    weighted by an idf over the candidates (a piece most candidates hold — the entity's name —
    says little). 1.0 when the memory holds every piece; near-synonyms and word forms count
    part of the way. `vectors(ids)` gives the unit rows."""
    out = np.zeros(len(memories), dtype=np.float64)
    if query.size == 0 or not memories:
        return out
    n = len(memories)
    held = [set(m.tolist()) for m in memories]
    idf = np.array([math.log((n + 1) / (sum(1 for h in held if q in h) + 0.5)) for q in query])
    idf = np.maximum(idf, 0.05)  # a piece every candidate holds still counts a little
    lengths = np.array([m.size for m in memories])
    if not lengths.any():
        return out
    unique, inverse = np.unique(np.concatenate(memories), return_inverse=True)
    best = vectors(query) @ vectors(unique).T  # (question pieces, distinct memory pieces)
    columns = best[:, inverse]  # every memory's pieces, one after the other
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    has = lengths > 0
    per_memory = np.maximum.reduceat(columns, starts[has], axis=1)  # (question pieces, memories)
    out[has] = (idf @ per_memory) / idf.sum()
    return out


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
    word_match: float = 0.0
    # word_match above the median of this query's candidates, never below 0: what `words`
    # weighs (a shift that is the same for every candidate changes no order, and a question
    # that matches nothing well lifts nothing over the floor)
    word_lift: float = 0.0
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


class Lexicon(Protocol):
    """What `signals` needs of embeddings/wordpieces.py's WordPieces."""

    def pieces(self, texts: Sequence[str]) -> list[np.ndarray]: ...

    def vectors(self, ids: np.ndarray) -> np.ndarray: ...


def signals(query: str, candidates: list[Candidate], lexicon: Lexicon | None = None) -> None:
    """Fill each candidate's exact_match and, given the word-piece lexicon, word_match and
    word_lift (its similarity comes from the vector search)."""
    exact = exact_match(query, [c.content for c in candidates])
    for c, value in zip(candidates, exact):
        c.exact_match = float(value)
    if lexicon is None or not candidates:
        return
    # the best WORD_POOL by cosine and exact tokens: the answer is among them when it is among
    # the candidates at all (tune: 470 of 481 questions, all but one of those in the best 30),
    # and the rest would only cost time
    best = sorted(candidates, key=lambda c: -(c.similarity + WEIGHTS.exact * c.exact_match))
    best = best[:WORD_POOL]
    pieces = lexicon.pieces([query, *(c.content for c in best)])
    words = word_match(pieces[0], pieces[1:], lexicon.vectors)
    median = float(np.median(words))
    for c, value in zip(best, words):
        c.word_match = float(value)
        c.word_lift = max(0.0, float(value) - median)


def relevance(c: Candidate, weights: Weights = WEIGHTS) -> float:
    return c.similarity + weights.exact * c.exact_match + weights.words * c.word_lift


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


def newer_first(ranked: list[Candidate], recency: Recency = RECENCY) -> list[Candidate]:
    """Place an older memory under a newer one about the same subject among the top
    `recency.window`, unless the older one's relevance leads by more than the margin. A memory
    of a higher-precedence scope counts as newer than one of a lower (session > project =
    agent > user), so scope orders only near-restatements."""
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
