"""Searching a project's chunks by meaning and by keyword, fused by normalised scores.

Each ranking's scores (bm25, cosine) are divided by the query's best one and mixed
convexly, and a chunk whose symbol name the query spells out gains a little (see `Fusion`).
Unlike reciprocal rank fusion (`rrf`, used before and still measured as the baseline), the
scores keep how far apart two candidates are: a clear bm25 winner stays one, and a chunk
ranked #3 by a hair is not pushed as far down as one ranked #3 by a mile. Measured on held-out
queries in bench/index.py (docs/benchmarks-indexer.md).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from neuralgentics.embeddings import Embedder
from neuralgentics.memini.errors import InvalidInput, NotFound
from neuralgentics.memini.indexer.chunk_model import chunk_embedder
from neuralgentics.memini.indexer.chunkstore import ChunkStore, keyword_words, split_identifier
from neuralgentics.memini.indexer.selection import expand_path

RRF_K = 10  # for the rrf() baseline: 5-10 beat the customary 60 on top-50 lists
MAX_TOP_K = 100
# The relevance floor: a hit matches well when its cosine to the query reaches this, or when it
# holds every word of the query. Chosen on bench/index.py's queries against nonsense ones
# (docs/benchmarks-indexer.md, "Relevance floor").
MIN_COSINE = 0.25
NOTHING_WELL = "nothing matches well"
Mode = Literal["hybrid", "keyword", "vector"]


@dataclass(frozen=True)
class SearchHit:
    file_path: str
    start_line: int
    end_line: int
    language: str
    symbol: str | None
    kind: str
    score: float
    why: str
    content: str
    keyword_rank: int | None
    vector_rank: int | None
    similarity: float | None

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class SearchAnswer:
    """What a person or an agent is shown: the hits that match well, or, when none does, the
    closest few marked as such; and how much of the project search by meaning reaches."""

    project: str
    query: str
    hits: list[SearchHit]  # those that match well
    closest: list[SearchHit]  # when none does: the nearest, not to be taken as answers
    chunks: int  # chunks in the project's index
    embedded: int  # of which have their vector

    @property
    def note(self) -> str | None:
        notes = []
        if not self.hits:
            notes.append(NOTHING_WELL if self.closest else "no match")
        if self.embedded < self.chunks:
            notes.append(
                f"search by meaning covers {self.embedded:,} of {self.chunks:,} chunks"
                f" ({self.coverage:.0%}); the rest are still being embedded"
            )
        return "; ".join(notes) or None

    @property
    def coverage(self) -> float:
        return self.embedded / self.chunks if self.chunks else 1.0

    def as_dict(self) -> dict:
        return {
            "project": self.project,
            "query": self.query,
            "hits": [h.as_dict() for h in self.hits],
            "closest": [h.as_dict() for h in self.closest],
            "matches_well": bool(self.hits),
            "chunks": self.chunks,
            "embedded": self.embedded,
            "note": self.note,
        }


def matches_well(hit: SearchHit, words: list[str]) -> bool:
    """Close in meaning, or holding every word the query means (a name spelled out)."""
    if hit.similarity is not None and hit.similarity >= MIN_COSINE:
        return True
    return bool(words) and len(_matched(hit.content, words, limit=len(words), stem=True)) == len(
        words
    )


def answer(
    store: ChunkStore,
    project: str,
    query: str,
    *,
    top_k: int = 10,
    mode: Mode = "hybrid",
    embedder: Embedder,
    closest: int = 3,
) -> SearchAnswer:
    """`search_project` behind the relevance floor, with the index's coverage: what the CLI
    and POST /project/search answer."""
    ranked = search_project(store, project, query, top_k=top_k, mode=mode, embedder=embedder)
    words = keyword_words(query)
    good = [h for h in ranked if matches_well(h, words)]
    info = store.project(project)
    return SearchAnswer(
        project=project,
        query=query,
        hits=good,
        closest=[] if good else ranked[:closest],
        chunks=info.chunks if info else 0,
        embedded=info.embedded if info else 0,
    )


def find_project(store: ChunkStore, path: str | os.PathLike[str] | None) -> str:
    """The indexed project that holds `path` (default: the working directory)."""
    raw = expand_path(path if path is not None else os.getcwd())
    try:
        here = raw.resolve()
    except (OSError, RuntimeError):
        here = raw.absolute()
    roots = [p.root for p in store.projects()]
    matches = [r for r in roots if here == Path(r) or Path(r) in here.parents]
    if not matches:
        hint = f"run `neuralgentics index {raw}` first" if raw.is_dir() else "index it first"
        raise NotFound(f"no indexed project contains {str(raw)!r}; {hint}", field="project")
    return max(matches, key=len)


def search_project(
    store: ChunkStore,
    project: str,
    query: str,
    *,
    top_k: int = 10,
    mode: Mode = "hybrid",
    embedder: Embedder,
) -> list[SearchHit]:
    if not query or not query.strip():
        raise InvalidInput("query is empty", field="query")
    if not 1 <= top_k <= MAX_TOP_K:
        raise InvalidInput(f"top_k must be between 1 and {MAX_TOP_K}", field="top_k")
    if mode not in ("hybrid", "keyword", "vector"):
        raise InvalidInput("mode must be hybrid, keyword or vector", field="mode")
    depth = max(top_k * 5, 50)
    keyword: list[tuple[str, float]] = []
    vector: list[tuple[str, float]] = []
    if mode in ("hybrid", "keyword"):
        keyword = store.keyword_search(project, query, depth)
    if mode in ("hybrid", "vector"):
        vec = chunk_embedder(embedder).embed([query])[0]
        vector = store.vector_search(project, vec, depth)

    k_rank = {cid: i for i, (cid, _) in enumerate(keyword, 1)}
    v_rank = {cid: i for i, (cid, _) in enumerate(vector, 1)}
    k_score = dict(keyword)
    v_score = dict(vector)
    words = keyword_words(query)
    if mode == "hybrid":
        # one read for every candidate: the fusion needs their symbols, the answer their text
        chunks = store.chunks(list(dict.fromkeys([*k_rank, *v_rank])))
        fused = fuse(query, keyword, vector, {cid: c.symbol for cid, c in chunks.items()})
    else:  # a single ranking, as the store ranked it
        fused = {cid: -float(i) for i, (cid, _) in enumerate(keyword or vector)}
    # ties go to the closer meaning
    best = sorted(fused, key=lambda cid: (-fused[cid], -v_score.get(cid, -2.0)))[:top_k]
    # The fusion scales each list by its best score, so the first hit of any query scores ~1.
    # Shown as is, that says nonsense matches perfectly: scale the query's scores down by how
    # far its closest meaning stays under the floor (one factor for all: the order holds).
    confidence = 1.0
    if mode == "hybrid" and vector:
        confidence = min(1.0, max(0.0, max(v_score.values())) / MIN_COSINE)
    if mode != "hybrid":
        chunks = store.chunks(best)
    hits = []
    for cid in best:
        chunk = chunks.get(cid)
        if chunk is None:  # deleted between ranking and reading
            continue
        reasons = []
        if cid in k_rank:
            found = _matched(chunk.content, words)
            reasons.append(
                f"keyword #{k_rank[cid]} (score {k_score[cid]:.2f}"
                + (f"; matched {', '.join(found)}" if found else "")
                + ")"
            )
        if cid in v_rank:
            reasons.append(f"meaning #{v_rank[cid]} (cosine {v_score[cid]:.3f})")
        if mode == "hybrid" and symbol_overlap(chunk.symbol, set(words)):
            reasons.append(f"name {chunk.symbol} matches")
        score = (
            fused[cid] * confidence
            if mode == "hybrid"
            else (k_score.get(cid) or v_score.get(cid) or 0.0)
        )
        hits.append(
            SearchHit(
                file_path=chunk.file_path,
                start_line=chunk.start_line,
                end_line=chunk.end_line,
                language=chunk.language,
                symbol=chunk.symbol,
                kind=chunk.kind,
                score=round(float(score), 6),
                why=" + ".join(reasons),
                content=chunk.content,
                keyword_rank=k_rank.get(cid),
                vector_rank=v_rank.get(cid),
                similarity=round(float(v_score[cid]), 4) if cid in v_score else None,
            )
        )
    return hits


_CODE_TOKEN = re.compile(r"\w_\w|[a-z][A-Z]|\w\.\w|::|\(|\)|[{}<>\[\]=]")
Normalise = Literal["minmax", "zscore", "max"]


@dataclass(frozen=True)
class Fusion:
    """How the keyword (bm25) and vector (cosine) rankings are combined into one.

    Each list's scores are put on one scale (`normalise`: divided by the query's best score,
    by default; min-max and z-score measured worse), then mixed convexly: the keyword
    share for prose queries, another for code-like ones. A chunk one list missed gets that
    list's lowest score: it was at best as good as the last one the list kept. On top, a
    chunk whose symbol name is made of the query's words gains `symbol_boost` times the share
    of its name the query spells out. Chosen on the tuning half of bench/index.py's queries.
    """

    keyword_share: float = 0.4
    code_keyword_share: float = 0.6
    normalise: Normalise = "max"
    symbol_boost: float = 0.1


DEFAULT_FUSION = Fusion()


def is_code_like(query: str) -> bool:
    """An identifier or a bit of code (`parse_config`, `User.save()`, `parseHTTP`, two words)
    names what it wants, and words find it; a sentence in prose shares few words with code."""
    return len(query.split()) <= 2 or bool(_CODE_TOKEN.search(query))


def keyword_weight(query: str) -> float:
    """The keyword ranking's weight in reciprocal rank fusion, next to the vector ranking's 1
    (the fusion before score fusion; bench/index.py still measures it as the baseline)."""
    return 1.0 if is_code_like(query) else 0.5


def fuse(
    query: str,
    keyword: list[tuple[str, float]],
    vector: list[tuple[str, float]],
    symbols: Mapping[str, str | None] | None = None,
    fusion: Fusion = DEFAULT_FUSION,
) -> dict[str, float]:
    """One relevance per chunk from the two ranked (id, score) lists; higher is better."""
    share = fusion.code_keyword_share if is_code_like(query) else fusion.keyword_share
    k_norm = _normalised(keyword, fusion.normalise)
    v_norm = _normalised(vector, fusion.normalise)
    k_floor = min(k_norm.values(), default=0.0)
    v_floor = min(v_norm.values(), default=0.0)
    fused = {
        cid: share * k_norm.get(cid, k_floor) + (1.0 - share) * v_norm.get(cid, v_floor)
        for cid in dict.fromkeys([*k_norm, *v_norm])
    }
    if fusion.symbol_boost and symbols:
        words = set(keyword_words(query))
        for cid in fused:
            overlap = symbol_overlap(symbols.get(cid), words)
            if overlap:
                fused[cid] += fusion.symbol_boost * overlap
    return fused


def rrf(
    query: str, keyword: list[tuple[str, float]], vector: list[tuple[str, float]], k: int = RRF_K
) -> dict[str, float]:
    """Reciprocal rank fusion (Cormack et al., 2009): the fusion this module used before."""
    fused: dict[str, float] = {}
    for ranked, weight in ((keyword, keyword_weight(query)), (vector, 1.0)):
        for rank, (cid, _) in enumerate(ranked, 1):
            fused[cid] = fused.get(cid, 0.0) + weight / (k + rank)
    return fused


def symbol_overlap(symbol: str | None, words: set[str]) -> float:
    """The share of a symbol's own name (`Graph.number_of_nodes` → number, of, nodes) that
    the query's words spell out."""
    if not symbol:
        return 0.0
    parts = set(split_identifier(symbol.rsplit(".", 1)[-1]))
    return len(parts & words) / len(parts) if parts else 0.0


def _normalised(ranked: list[tuple[str, float]], how: Normalise) -> dict[str, float]:
    # bm25 and cosine live on unrelated scales; only their spread within one query compares
    if not ranked:
        return {}
    scores = np.array([score for _, score in ranked], dtype=np.float64)
    if how == "minmax":
        low, spread = scores.min(), scores.max() - scores.min()
    elif how == "zscore":
        low, spread = scores.mean(), scores.std()
    elif scores.max() > 0:  # a share of the query's best: the gaps keep their absolute size
        low, spread = 0.0, scores.max()
    else:  # no positive best to scale by (all cosines below 0): fall back to the range
        low, spread = scores.min(), scores.max() - scores.min()
    spread = spread if spread > 0 else 1.0
    return {cid: float((score - low) / spread) for (cid, _), score in zip(ranked, scores)}


def _matched(content: str, words: list[str], limit: int = 5, stem: bool = False) -> list[str]:
    """The query words found at a word start in `content`; with `stem`, a word's last two
    letters may differ (payments/payment, retry/retries), as the keyword index's stemmer does."""
    lower = content.lower()
    found = []
    for w in words:
        probe = w[: max(4, len(w) - 2)] if stem else w
        if re.search(r"(?<![a-z0-9])" + re.escape(probe), lower):
            found.append(w)
    return found[:limit]
