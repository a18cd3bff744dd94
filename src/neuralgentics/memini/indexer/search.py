"""Searching a project's chunks by meaning and by keyword, fused by reciprocal rank.

Reciprocal rank fusion (Cormack et al., 2009) adds 1/(k + rank) over the rankings a chunk
appears in; it needs no score calibration between bm25 and cosine, which live on unrelated
scales, and a chunk both rankings like rises above one only a single ranking likes.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from neuralgentics.memini.errors import InvalidInput, NotFound
from neuralgentics.memini.indexer.chunkstore import ChunkStore, keyword_words
from neuralgentics.memini.indexer.indexing import Embedder

RRF_K = 10  # measured in bench/index.py: 5-10 beat the customary 60 on top-50 lists
MAX_TOP_K = 100
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


def find_project(store: ChunkStore, path: str | os.PathLike[str] | None) -> str:
    """The indexed project that holds `path` (default: the working directory)."""
    raw = Path(path if path is not None else os.getcwd()).expanduser()
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
    embedder: Embedder | None = None,
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
        if embedder is None:
            from neuralgentics.memini.embeddings import get_embedder

            embedder = get_embedder()
        vec = embedder.embed([query])[0]
        vector = store.vector_search(project, vec, depth)

    fused: dict[str, float] = {}
    k_rank = {cid: i for i, (cid, _) in enumerate(keyword, 1)}
    v_rank = {cid: i for i, (cid, _) in enumerate(vector, 1)}
    k_score = dict(keyword)
    v_score = dict(vector)
    k_weight = keyword_weight(query)
    for ranks, weight in ((k_rank, k_weight), (v_rank, 1.0)):
        for cid, rank in ranks.items():
            fused[cid] = fused.get(cid, 0.0) + weight / (RRF_K + rank)
    # ties (one ranking's #1 is the other's #2, and back) go to the closer meaning
    best = sorted(fused, key=lambda cid: (-fused[cid], -v_score.get(cid, -2.0)))[:top_k]
    chunks = store.chunks(best)
    words = keyword_words(query)
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
                + (f"; matched {', '.join(found)}" if found else "") + ")"
            )
        if cid in v_rank:
            reasons.append(f"meaning #{v_rank[cid]} (cosine {v_score[cid]:.3f})")
        score = fused[cid] if mode == "hybrid" else (k_score.get(cid) or v_score.get(cid) or 0.0)
        hits.append(SearchHit(
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
        ))
    return hits


_CODE_TOKEN = re.compile(r"\w_\w|[a-z][A-Z]|\w\.\w|::|\(|\)|[{}<>\[\]=]")


def keyword_weight(query: str) -> float:
    """How much the keyword ranking counts in the fusion, next to the vector ranking's 1.

    An identifier or a bit of code (`parse_config`, `User.save()`, `parseHTTP`) names what it
    wants, and words find it; a sentence in prose ("where do we retry failed payments")
    shares few words with the code, so its word matches are weaker evidence.
    Measured on docstring-sentence queries: weight 0.5 beats 1.0 (bench/index.py).
    """
    words = query.split()
    if len(words) <= 2 or _CODE_TOKEN.search(query):
        return 1.0
    return 0.5


def _matched(content: str, words: list[str], limit: int = 5) -> list[str]:
    lower = content.lower()
    found = [w for w in words if re.search(r"(?<![a-z0-9])" + re.escape(w), lower)]
    return found[:limit]
