"""Hybrid search finds code from a description of it better than either ranking alone.

The repository is real code (modules of the installed `click`) with every docstring blanked;
each function's docstring's first sentence asks for that function, as bench/index.py does at
scale. The model and store are real; only the size is small.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
from pathlib import Path

import click

from neuralgentics.app.process import shared_embedder
from neuralgentics.memini.indexer.indexing import index_project
from neuralgentics.memini.indexer.search import search_project

# 165 queries: with 5 modules (66 queries) the vectors alone came within noise of hybrid once
# the chunk model read 128 word pieces (0.763 vs 0.750; bench/index.py's 490 held-out queries
# give hybrid 0.442, vectors 0.391)
MODULES = (
    "types.py",
    "utils.py",
    "formatting.py",
    "parser.py",
    "termui.py",
    "core.py",
    "decorators.py",
)


def _bench():
    path = Path(__file__).resolve().parents[3] / "bench" / "index.py"
    spec = importlib.util.spec_from_file_location("bench_index", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_index", module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_hybrid_beats_keyword_and_vector_rankings_alone(sqlite_chunks, tmp_path: Path) -> None:
    bench = _bench()
    src = Path(click.__file__).parent
    repo = tmp_path / "repo"
    queries = []
    for name in MODULES:
        text, found = bench.strip_docstrings(
            (src / name).read_text(encoding="utf-8"), f"click/{name}"
        )
        (repo / "click").mkdir(parents=True, exist_ok=True)
        (repo / "click" / name).write_text(text, encoding="utf-8")
        queries += found
    assert len(queries) >= 20
    index_project(repo, sqlite_chunks, embedder=shared_embedder())
    project = str(repo.resolve())

    def mrr(mode: str) -> float:
        rr = []
        for q in queries:
            hits = search_project(
                sqlite_chunks, project, q.text, top_k=10, mode=mode, embedder=shared_embedder()
            )
            rank = next(
                (
                    i
                    for i, h in enumerate(hits, 1)
                    if h.file_path == q.path and h.start_line <= q.line <= h.end_line
                ),
                None,
            )
            rr.append(1.0 / rank if rank else 0.0)
        return statistics.fmean(rr)

    hybrid, keyword, vector = mrr("hybrid"), mrr("keyword"), mrr("vector")
    print(
        f"MRR@10 over {len(queries)} queries: hybrid {hybrid:.3f}, keyword {keyword:.3f},"
        f" vector {vector:.3f}"
    )
    assert hybrid > keyword and hybrid > vector
