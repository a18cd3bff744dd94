"""Project indexer benchmark: indexing speed, incremental re-index, and search quality.

    .venv/bin/python bench/index.py            # ~1,000 files of real Python projects
    .venv/bin/python bench/index.py --quick    # a few dozen files, for CI

The repository is a copy of the source of installed packages (networkx, rich, click, ...), so
it is real code that runs offline. Every docstring is blanked in the copy, and each function's
docstring's first sentence becomes a query whose answer is that function: a search must find
the code from a description of it, the way an agent asks. Hybrid search is compared with BM25
alone and vectors alone, measured in the same run over the same index. Times are medians.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PACKAGES = [
    "networkx", "rich", "click", "httpx", "jinja2", "starlette", "anyio", "urllib3", "typer",
    "psycopg", "_pytest",
]
QUICK_PACKAGES = ["httpx", "click", "jinja2"]


@dataclass(frozen=True)
class Query:
    text: str
    path: str
    line: int  # the def line: a hit whose chunk contains it answers the query


def first_sentence(doc: str) -> str | None:
    para = doc.strip().split("\n\n")[0].replace("\n", " ").strip()
    sentence = para.split(". ")[0].strip().rstrip(".")
    return sentence if len(sentence.split()) >= 3 else None


def strip_docstrings(source: str, rel: str) -> tuple[str, list[Query]]:
    """The source with every docstring blanked (line numbers kept), and one query per function."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source, []
    lines = source.split("\n")
    queries: list[Query] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        body = node.body
        if not (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            continue
        doc = body[0]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            sentence = first_sentence(doc.value.value)
            if sentence:
                queries.append(Query(sentence, rel, node.lineno))
        start, end = doc.lineno - 1, doc.end_lineno - 1
        indent = " " * doc.col_offset
        # `pass` keeps a body that held only its docstring valid
        lines[start] = indent + "pass" if len(body) == 1 else ""
        for i in range(start + 1, end + 1):
            lines[i] = ""
    return "\n".join(lines), queries


def build_repo(packages: list[str], dest: Path) -> tuple[int, list[Query]]:
    site = Path(__import__("rich").__file__).parent.parent
    queries: list[Query] = []
    files = 0
    for pkg in packages:
        src = site / pkg
        if not src.is_dir():
            sys.exit(f"package {pkg} is not installed in {site}")
        for path in src.rglob("*"):
            if "__pycache__" in path.parts or not path.is_file():
                continue
            rel = path.relative_to(site)
            out = dest / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            files += 1
            if path.suffix == ".py":
                text, found = strip_docstrings(path.read_text(encoding="utf-8", errors="replace"),
                                               str(rel))
                out.write_text(text, encoding="utf-8")
                queries += found
            else:
                shutil.copyfile(path, out)
    return files, queries


def forbid_model():
    raise RuntimeError("the model was needed by a run that should not need it")


def evaluate(store, project: str, queries: list[Query], mode: str) -> tuple[float, float, float]:
    from neuralgentics.memini.indexer.search import search_project

    rr, found, times = [], 0, []
    for q in queries:
        t = time.perf_counter()
        hits = search_project(store, project, q.text, top_k=10, mode=mode)
        times.append(time.perf_counter() - t)
        rank = next((i for i, h in enumerate(hits, 1)
                     if h.file_path == q.path and h.start_line <= q.line <= h.end_line), None)
        rr.append(1.0 / rank if rank else 0.0)
        found += rank is not None
    return statistics.fmean(rr), found / len(queries), statistics.median(times) * 1000


def fusion_sweep(store, project: str, queries: list[Query]) -> dict[str, float]:
    """MRR@10 of reciprocal rank fusion at other k and keyword weights, on the same lists."""
    from neuralgentics.memini.embeddings import get_embedder

    vecs = get_embedder().embed([q.text for q in queries])
    runs = []
    for q, vec in zip(queries, vecs):
        kw = [c for c, _ in store.keyword_search(project, q.text, 50)]
        vs = store.vector_search(project, vec, 50)
        meta = store.chunks(list(dict.fromkeys(kw + [c for c, _ in vs])))
        good = {c for c, m in meta.items()
                if m.file_path == q.path and m.start_line <= q.line <= m.end_line}
        runs.append((kw, vs, good))
    out = {}
    for k in (5, 10, 20, 60):
        for wk in (0.5, 1.0):
            rr = []
            for kw, vs, good in runs:
                score: dict[str, float] = {}
                for i, c in enumerate(kw, 1):
                    score[c] = score.get(c, 0.0) + wk / (k + i)
                for i, (c, _) in enumerate(vs, 1):
                    score[c] = score.get(c, 0.0) + 1.0 / (k + i)
                sim = dict(vs)
                ranked = sorted(score, key=lambda c: (-score[c], -sim.get(c, -2.0)))[:10]
                rank = next((i for i, c in enumerate(ranked, 1) if c in good), None)
                rr.append(1.0 / rank if rank else 0.0)
            out[f"rrf k={k} keyword_weight={wk}"] = round(statistics.fmean(rr), 4)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few dozen files (CI)")
    parser.add_argument("--packages", nargs="*", help="installed packages to copy")
    parser.add_argument("--max-queries", type=int, default=600)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    packages = args.packages or (QUICK_PACKAGES if args.quick else DEFAULT_PACKAGES)

    work = Path(tempfile.mkdtemp(prefix="ng-bench-index-"))
    os.environ["NEURALGENTICS_HOME"] = str(work / "home")
    os.environ.pop("NEURALGENTICS_DATABASE_URL", None)
    try:
        from neuralgentics.config import get_settings
        from neuralgentics.memini.embeddings import get_embedder
        from neuralgentics.memini.indexer import index_project, open_chunk_store

        get_settings.cache_clear()
        repo = work / "repo"
        files, queries = build_repo(packages, repo)
        random.Random(7).shuffle(queries)
        queries = queries[: args.max_queries]
        print(f"repository: {files} files from {', '.join(packages)}; {len(queries)} queries",
              flush=True)

        t = time.perf_counter()
        get_embedder().embed(["warm up"])
        model_s = time.perf_counter() - t

        store = open_chunk_store()
        t = time.perf_counter()
        cold = index_project(repo, store)
        cold_s = time.perf_counter() - t
        print(f"cold index: {cold.files} files, {cold.chunks} chunks in {cold_s:.1f} s", flush=True)

        unchanged = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            rep = index_project(repo, store, embedder=forbid_model)
            unchanged.append(time.perf_counter() - t)
            assert rep.chunks == 0
        one_changed = []
        target = next(p for p in sorted(repo.rglob("*.py")) if p.stat().st_size > 2000)
        for i in range(args.repeats):
            with target.open("a") as fh:
                fh.write(f"\n\ndef bench_edit_{i}(x):\n    return x + {i}\n")
            t = time.perf_counter()
            rep = index_project(repo, store)
            one_changed.append(time.perf_counter() - t)
            assert rep.changed == 1, rep.summary()

        project = str(repo.resolve())
        quality = {mode: evaluate(store, project, queries, mode)
                   for mode in ("hybrid", "keyword", "vector")}
        sweep = fusion_sweep(store, project, queries)
        store.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    best_single = max(quality["keyword"][0], quality["vector"][0])
    result = {
        "packages": packages,
        "files": files,
        "indexed_files": cold.files,
        "chunks": cold.chunks,
        "queries": len(queries),
        "model_load_s": round(model_s, 2),
        "cold_index_s": round(cold_s, 2),
        "chunks_per_s": round(cold.chunks / cold_s, 1),
        "reindex_unchanged_s": round(statistics.median(unchanged), 3),
        "reindex_unchanged_per_1000_files_s": round(
            statistics.median(unchanged) * 1000 / max(cold.files, 1), 3),
        "reindex_one_file_s": round(statistics.median(one_changed), 3),
        "unchanged_vs_cold": round(statistics.median(unchanged) / cold_s, 4),
        "mrr10": {m: round(q[0], 4) for m, q in quality.items()},
        "recall10": {m: round(q[1], 4) for m, q in quality.items()},
        "query_ms_median": {m: round(q[2], 1) for m, q in quality.items()},
        "hybrid_vs_best_single": round(quality["hybrid"][0] / best_single, 3) if best_single else None,
        "fusion_sweep_mrr10": sweep,
    }
    print()
    print(f"{'':24}{'hybrid':>10}{'bm25':>10}{'vector':>10}")
    print(f"{'MRR@10':24}" + "".join(f"{quality[m][0]:>10.3f}" for m in ("hybrid", "keyword", "vector")))
    print(f"{'recall@10':24}" + "".join(f"{quality[m][1]:>10.3f}" for m in ("hybrid", "keyword", "vector")))
    # vector and keyword run after hybrid: their query vectors come from the embedder's cache
    print(f"{'median query ms':24}" + "".join(f"{quality[m][2]:>10.1f}" for m in ("hybrid", "keyword", "vector")))
    print(f"hybrid MRR / best single: {result['hybrid_vs_best_single']} (target >= 1.15)")
    for name, value in sweep.items():
        print(f"  {name:34} MRR@10 {value:.4f}  ({value / best_single:.3f} x best single)")
    print(f"cold index {cold_s:.1f} s ({result['chunks_per_s']} chunks/s; model load {model_s:.1f} s)")
    print(f"re-index, nothing changed: {result['reindex_unchanged_s']} s for {cold.files} files"
          f" ({result['reindex_unchanged_per_1000_files_s']} s per 1,000; target < 2 s);"
          f" {result['unchanged_vs_cold']:.4f} x cold")
    print(f"re-index, one file changed: {result['reindex_one_file_s']} s (target < 1 s)")
    print(json.dumps(result))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
