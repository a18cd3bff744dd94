"""Project indexer benchmark: indexing speed, incremental re-index, and search quality.

    .venv/bin/python bench/index.py            # ~1,000 files of real Python projects
    .venv/bin/python bench/index.py --quick    # a few dozen files, for CI
    .venv/bin/python bench/index.py --work /tmp/ng-bench-index   # keep the index between runs

The repository is a copy of the source of installed packages (networkx, rich, click, ...), so
it is real code that runs offline. Every docstring is blanked in the copy, and each function's
docstring's first sentence becomes a query whose answer is that function: a search must find
the code from a description of it, the way an agent asks. Hybrid search is compared with BM25
alone and vectors alone, measured in the same run over the same index. Times are medians.

The queries are split in two halves by a fixed hash of each query: the fusion's parameters
were chosen on the tuning half only, and the held-out half says whether the choice generalises.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import itertools
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
    "networkx",
    "rich",
    "click",
    "httpx",
    "jinja2",
    "starlette",
    "anyio",
    "urllib3",
    "typer",
    "psycopg",
    "_pytest",
]
QUICK_PACKAGES = ["httpx", "click", "jinja2"]


@dataclass(frozen=True)
class Query:
    text: str
    path: str
    line: int  # the def line: a hit whose chunk contains it answers the query

    @property
    def half(self) -> str:
        """tuning or held-out, fixed by the query itself (not by the sample drawn)."""
        digest = hashlib.sha1(f"{self.path}:{self.line}:{self.text}".encode()).digest()
        return "tuning" if digest[0] % 2 == 0 else "held-out"


HALVES = ("tuning", "held-out", "all")


def reciprocal_rank(ranked: list, good) -> tuple[float, bool]:
    """1/rank of the first answer in the top 10, and whether there was one."""
    rank = next((i for i, hit in enumerate(ranked[:10], 1) if good(hit)), None)
    return (1.0 / rank if rank else 0.0), rank is not None


def by_half(queries: list[Query], values: list[float]) -> dict[str, float]:
    out = {}
    for half in HALVES:
        picked = [v for q, v in zip(queries, values) if half in ("all", q.half)]
        out[half] = statistics.fmean(picked) if picked else 0.0
    return out


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
        if not (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
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
                text, found = strip_docstrings(
                    path.read_text(encoding="utf-8", errors="replace"), str(rel)
                )
                out.write_text(text, encoding="utf-8")
                queries += found
            else:
                shutil.copyfile(path, out)
    return files, queries


class _ForbidModel:
    model_name = "none"
    dim = 384

    def embed(self, texts):
        raise RuntimeError("the model was needed by a run that should not need it")


forbid_model = _ForbidModel()


def evaluate(store, project: str, queries: list[Query], mode: str) -> dict:
    """MRR@10 and recall@10 per half, and the median query time, of search_project itself."""
    from neuralgentics.app.process import shared_embedder
    from neuralgentics.memini.indexer.search import search_project

    rr, found, times = [], [], []
    for q in queries:
        t = time.perf_counter()
        hits = search_project(
            store, project, q.text, top_k=10, mode=mode, embedder=shared_embedder()
        )
        times.append(time.perf_counter() - t)
        r, f = reciprocal_rank(
            hits, lambda h, q=q: h.file_path == q.path and h.start_line <= q.line <= h.end_line
        )
        rr.append(r)
        found.append(float(f))
    return {
        "mrr10": by_half(queries, rr),
        "recall10": by_half(queries, found),
        "query_ms": statistics.median(times) * 1000,
    }


def fusion_sweep(store, project: str, queries: list[Query]) -> dict:
    """MRR@10 per half of other fusions over the same top-50 lists: reciprocal rank fusion
    (the old way) and a grid of score fusions; the best on the tuning half is reported with
    its held-out figure, which no choice here has seen."""
    from neuralgentics.app.process import shared_embedder
    from neuralgentics.memini.indexer.chunk_model import chunk_embedder
    from neuralgentics.memini.indexer.search import Fusion, fuse, rrf

    # the queries' vectors from the model the chunks were embedded with, as search_project does
    vecs = chunk_embedder(shared_embedder()).embed([q.text for q in queries])
    runs = []
    for q, vec in zip(queries, vecs):
        kw = store.keyword_search(project, q.text, 50)
        vs = store.vector_search(project, vec, 50)
        meta = store.chunks(list(dict.fromkeys([c for c, _ in kw + vs])))
        good = {
            c
            for c, m in meta.items()
            if m.file_path == q.path and m.start_line <= q.line <= m.end_line
        }
        runs.append((q, kw, vs, {c: m.symbol for c, m in meta.items()}, good))

    def measure(fused_of) -> dict[str, float]:
        rr = []
        for q, kw, vs, symbols, good in runs:
            fused = fused_of(q, kw, vs, symbols)
            sim = dict(vs)
            ranked = sorted(fused, key=lambda c: (-fused[c], -sim.get(c, -2.0)))
            rr.append(reciprocal_rank(ranked, good.__contains__)[0])
        return {h: round(v, 4) for h, v in by_half(queries, rr).items()}

    out = {"rrf k=10 (before)": measure(lambda q, kw, vs, sy: rrf(q.text, kw, vs))}
    grid = itertools.product(
        ("minmax", "zscore", "max"), (0.3, 0.4, 0.5), (0.4, 0.5, 0.6), (0.0, 0.1, 0.2, 0.3)
    )
    for norm, share, code_share, boost in grid:
        fusion = Fusion(share, code_share, norm, boost)
        name = f"{norm} kw={share} code_kw={code_share} symbol={boost}"
        out[name] = measure(lambda q, kw, vs, sy, f=fusion: fuse(q.text, kw, vs, sy, f))
    return out


# Queries nothing in these packages answers: what the relevance floor must turn away.
OFF_TOPIC = [
    "recipe for banana bread with walnuts",
    "who won the football world cup in 1998",
    "symptoms of seasonal influenza in children",
    "best hiking trails in the swiss alps",
    "how to prune tomato plants in july",
    "quantum chromodynamics lattice simulation",
    "the plot of a midsummer night's dream",
    "tax deductions for a home office",
    "where do we charge the customer's credit card for payments",
    "translate the invoice into french",
    "train the neural network on the gpu cluster",
    "render the 3d mesh with ray tracing shaders",
    "feed the cat twice a day",
    "mortgage interest rates in spain",
    "what is the boiling point of ethanol",
    "compose a sonnet about the ocean",
    "schedule the dentist appointment",
    "kubernetes pod autoscaling on gpu nodes",
    "migrate the oracle database to mainframe cobol",
    "calculate the orbit of a satellite around mars",
]


def floor_check(store, project: str, queries: list[Query], floors: list[float]) -> dict:
    """For each candidate floor: the share of queries whose right answer, found in the top 10,
    would no longer count as matching well, and the share of off-topic queries that would
    still show a hit that does (the shipped rule of search.matches_well, cosine set to each)."""
    from neuralgentics.app.process import shared_embedder
    from neuralgentics.memini.indexer import search

    answered: list[tuple[Query, object, list[str]]] = []
    for q in queries:
        hits = search.search_project(store, project, q.text, top_k=10, embedder=shared_embedder())
        right = next(
            (h for h in hits if h.file_path == q.path and h.start_line <= q.line <= h.end_line),
            None,
        )
        if right is not None:
            answered.append((q, right, search.keyword_words(q.text)))
    off = [
        (search.search_project(store, project, t, top_k=10, embedder=shared_embedder()), t)
        for t in OFF_TOPIC
    ]
    out = {}
    saved = search.MIN_COSINE
    try:
        for floor in floors:
            search.MIN_COSINE = floor
            lost = [q for q, h, words in answered if not search.matches_well(h, words)]
            passed = [
                t
                for hits, t in off
                if any(search.matches_well(h, search.keyword_words(t)) for h in hits)
            ]
            out[str(floor)] = {
                "right_answers_lost": round(len(lost) / max(len(answered), 1), 4),
                "lost_held_out": round(
                    sum(q.half == "held-out" for q in lost)
                    / max(sum(q.half == "held-out" for q, _, _ in answered), 1),
                    4,
                ),
                "off_topic_passed": round(len(passed) / len(off), 4),
                "off_topic_passing": passed,
            }
    finally:
        search.MIN_COSINE = saved
    return out


def chunk_model_tokens() -> int:
    from neuralgentics.memini.indexer import chunk_model

    return chunk_model.CHUNK_MAX_TOKENS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few dozen files (CI)")
    parser.add_argument("--packages", nargs="*", help="installed packages to copy")
    parser.add_argument("--max-queries", type=int, default=600)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--work",
        type=Path,
        help="keep the repository and index here and reuse them next run"
        " (the cold index is then not measured again)",
    )
    parser.add_argument(
        "--chunk-tokens",
        type=int,
        help="word pieces the chunk model reads (default: the shipped CHUNK_MAX_TOKENS;"
        " 256 is the model's full length, as before)",
    )
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    if args.chunk_tokens is not None:
        from neuralgentics.memini.indexer import chunk_model

        chunk_model.CHUNK_MAX_TOKENS = args.chunk_tokens
    packages = args.packages or (QUICK_PACKAGES if args.quick else DEFAULT_PACKAGES)

    work = args.work.resolve() if args.work else Path(tempfile.mkdtemp(prefix="ng-bench-index-"))
    reused = (work / "home").is_dir()
    os.environ["NEURALGENTICS_HOME"] = str(work / "home")
    os.environ.pop("NEURALGENTICS_DATABASE_URL", None)
    try:
        from neuralgentics.app.process import shared_embedder
        from neuralgentics.config import get_settings
        from neuralgentics.memini.indexer import index_project, open_chunk_store

        get_settings.cache_clear()
        repo = work / "repo"
        files, queries = build_repo(packages, repo)
        random.Random(7).shuffle(queries)
        queries = queries[: args.max_queries]
        halves = {h: sum(q.half == h for q in queries) for h in HALVES[:2]}
        print(
            f"repository: {files} files from {', '.join(packages)}; {len(queries)} queries"
            f" ({halves['tuning']} tuning, {halves['held-out']} held-out)",
            flush=True,
        )

        t = time.perf_counter()
        shared_embedder().embed(["warm up"])
        model_s = time.perf_counter() - t

        store = open_chunk_store(get_settings())
        t = time.perf_counter()
        cold = index_project(repo, store, embedder=shared_embedder())
        cold_s = time.perf_counter() - t
        project = str(repo.resolve())
        info = store.project(project)
        chunks = info.chunks if info else cold.chunks
        print(
            f"{'index (reused)' if reused else 'cold index'}: {cold.files} files,"
            f" {chunks} chunks in {cold_s:.1f} s",
            flush=True,
        )

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
            rep = index_project(repo, store, embedder=shared_embedder())
            one_changed.append(time.perf_counter() - t)
            assert rep.changed == 1, rep.summary()

        quality = {
            mode: evaluate(store, project, queries, mode)
            for mode in ("hybrid", "keyword", "vector")
        }
        sweep = fusion_sweep(store, project, queries)
        floors = floor_check(store, project, queries, [0.2, 0.25, 0.3, 0.35, 0.4])
        store.close()
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)

    modes = ("hybrid", "keyword", "vector")
    ratio = {}
    for half in HALVES:
        best_single = max(quality["keyword"]["mrr10"][half], quality["vector"]["mrr10"][half])
        ratio[half] = (
            round(quality["hybrid"]["mrr10"][half] / best_single, 3) if best_single else None
        )
    best_tuned = max(
        (n for n in sweep if n != "rrf k=10 (before)"), key=lambda n: sweep[n]["tuning"]
    )
    result = {
        "packages": packages,
        "files": files,
        "indexed_files": cold.files,
        "chunks": chunks,
        "queries": len(queries),
        "queries_per_half": halves,
        "chunk_tokens": chunk_model_tokens(),
        "model_load_s": round(model_s, 2),
        "index_reused": reused,
        "cold_index_s": None if reused else round(cold_s, 2),
        "chunks_per_s": None if reused else round(cold.chunks / cold_s, 1),
        "reindex_unchanged_s": round(statistics.median(unchanged), 3),
        "reindex_unchanged_per_1000_files_s": round(
            statistics.median(unchanged) * 1000 / max(cold.files, 1), 3
        ),
        "reindex_one_file_s": round(statistics.median(one_changed), 3),
        "mrr10": {m: {h: round(v, 4) for h, v in quality[m]["mrr10"].items()} for m in modes},
        "recall10": {m: {h: round(v, 4) for h, v in quality[m]["recall10"].items()} for m in modes},
        "query_ms_median": {m: round(quality[m]["query_ms"], 1) for m in modes},
        "hybrid_vs_best_single": ratio,
        "fusion_sweep_mrr10": sweep,
        "fusion_best_on_tuning": best_tuned,
        "relevance_floor": floors,
    }
    print()
    for half in HALVES:
        n = len(queries) if half == "all" else halves[half]
        print(f"{half} ({n} queries){'':6}{'hybrid':>10}{'bm25':>10}{'vector':>10}")
        for metric in ("mrr10", "recall10"):
            print(f"  {metric:26}" + "".join(f"{quality[m][metric][half]:>10.3f}" for m in modes))
        print(f"  hybrid MRR / best single: {ratio[half]} (target >= 1.15)")
    # vector and keyword run after hybrid: their query vectors come from the embedder's cache
    print(f"median query ms{'':13}" + "".join(f"{quality[m]['query_ms']:>10.1f}" for m in modes))
    print("fusion sweep, MRR@10 on the same top-50 lists (tuning / held-out):")
    shown = ["rrf k=10 (before)", *sorted(sweep, key=lambda n: -sweep[n]["tuning"])[:8]]
    for name in dict.fromkeys(shown):
        print(f"  {name:44} {sweep[name]['tuning']:.4f} / {sweep[name]['held-out']:.4f}")
    print(f"best on tuning: {best_tuned}")
    print("relevance floor: right answers (in the top 10) lost / held-out lost / off-topic passed")
    for floor, got in floors.items():
        print(
            f"  cosine >= {floor}: {got['right_answers_lost']:.1%} / {got['lost_held_out']:.1%}"
            f" / {got['off_topic_passed']:.0%}"
        )
    if reused:
        print(f"index reused from {work} ({cold_s:.1f} s to check it; cold index not measured)")
    else:
        print(
            f"cold index {cold_s:.1f} s ({result['chunks_per_s']} chunks/s;"
            f" model load {model_s:.1f} s)"
        )
    print(
        f"re-index, nothing changed: {result['reindex_unchanged_s']} s for {cold.files} files"
        f" ({result['reindex_unchanged_per_1000_files_s']} s per 1,000; target < 2 s)"
    )
    print(f"re-index, one file changed: {result['reindex_one_file_s']} s (target < 1 s)")
    print(json.dumps(result))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
