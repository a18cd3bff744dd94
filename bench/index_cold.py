"""A cold project index as a user waits for it: this tree against another (today's main) in one run.

Builds one repository from the installed source of a few well-known packages (as
bench/index.py does), then indexes it from scratch with each tree's code, in turn, each in a
fresh home (SQLite) in its own process, interleaved when repeated. While a run goes, this
process polls the same database every 0.25 s:

- time to first result: a keyword search for one of the probe names (functions defined in
  files spread over the repository) first finds its file;
- time to keyword-complete: every probe is found by keyword;
- time to fully embedded: every chunk has its vector (the run's end for the old code, which
  embeds before it writes).

Each older tree is given as a folder holding its `src/` (a `git worktree` of main, or
`git archive <commit> src | tar -x -C /tmp/x`), named with `NAME=` when there are several.
Prints one JSON line and each older tree's ratios to this one.

    git worktree add --detach /work/wt/index-base main
    .venv/bin/python bench/index_cold.py --old main=/work/wt/index-base \
        [--old issue=/tmp/pre-src] [--packages click httpx] [--repeats 1]

Speed of the embedding is given both per wall-clock second (what a user waits, but mostly the
share of the shared CPU a run got) and per CPU-second of the index process from its first file
read to its end (what the code decides).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from index import build_repo  # noqa: E402

HERE = Path(__file__).resolve().parents[1]
DEFAULT_PACKAGES = ["click", "httpx", "starlette"]
PROBES = 20

CHILD = """
import json, sys, time
t = time.perf_counter()
from neuralgentics.app.process import shared_embedder
from neuralgentics.config import get_settings
from neuralgentics.memini.indexer import index_project, open_chunk_store
store = open_chunk_store(get_settings())
marks = {}
def progress(status):
    marks.setdefault(status.phase, time.process_time())
rep = index_project(sys.argv[1], store, embedder=shared_embedder(), progress=progress)
end = time.process_time()
store.close()
work_cpu = end - marks["indexing"]  # reading, chunking, embedding, writing: the run's work
embed_cpu = end - marks.get("embedding", marks["indexing"])
print(json.dumps({"seconds": time.perf_counter() - t, "report": rep.as_dict(),
                  "work_cpu_s": work_cpu, "embed_cpu_s": embed_cpu}))
"""


def probes(repo: Path, n: int) -> list[tuple[str, str]]:
    """(function name, file) pairs from files spread over the repository, names unique."""
    seen: dict[str, int] = {}
    per_file: list[tuple[str, list[str]]] = []
    for path in sorted(repo.rglob("*.py")):
        names = re.findall(r"^\s*def ([a-z][a-z0-9]*_[a-z0-9_]{4,})\(", path.read_text(), re.M)
        for name in names:
            seen[name] = seen.get(name, 0) + 1
        per_file.append((str(path.relative_to(repo)), names))
    usable = [(f, [x for x in names if seen[x] == 1]) for f, names in per_file]
    usable = [(f, names) for f, names in usable if names]
    step = max(1, len(usable) // n)
    rng = random.Random(3)
    return [(rng.choice(names), f) for f, names in usable[::step]][:n]


def poll(db: Path, project: str, wanted: list[tuple[str, str]], out: dict, started: float) -> bool:
    """One look at the database; True once every chunk has its vector and the run is done."""
    if not db.exists():
        return False
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.2)
    except sqlite3.Error:
        return False
    try:
        now = time.perf_counter() - started
        found = 0
        for name, path in wanted:
            row = conn.execute(
                "SELECT 1 FROM project_chunks_fts JOIN project_chunks c"
                " ON c.rowid = project_chunks_fts.rowid WHERE project_chunks_fts MATCH ?"
                " AND c.project = ? AND c.file_path = ? LIMIT 1",
                (f'"{name}"', project, path),
            ).fetchone()
            found += row is not None
        if found and "first_result_s" not in out:
            out["first_result_s"] = round(now, 2)
        if found == len(wanted) and "keyword_complete_s" not in out:
            out["keyword_complete_s"] = round(now, 2)
        total, embedded = conn.execute(
            "SELECT count(*), count(embedding) FROM project_chunks WHERE project = ?", (project,)
        ).fetchone()
        status = conn.execute(
            "SELECT status FROM indexed_projects WHERE root = ?", (project,)
        ).fetchone()
        return bool(total) and total == embedded and status is not None and status[0] == "ready"
    except sqlite3.Error:  # the schema is still being made
        return False
    finally:
        conn.close()


def run_once(src: Path, repo: Path, wanted: list[tuple[str, str]], work: Path) -> dict:
    home = work / f"home-{time.monotonic_ns()}"
    env = dict(os.environ, NEURALGENTICS_HOME=str(home), PYTHONPATH=str(src))
    env.pop("NEURALGENTICS_DATABASE_URL", None)
    db = home / "data" / "memini.db"
    out: dict = {}
    cpu_before = _children_cpu()
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(repo)], env=env, stdout=subprocess.PIPE, text=True
    )
    project = str(repo.resolve())
    while child.poll() is None:
        poll(_db(home, db), project, wanted, out, started)
        time.sleep(0.25)
    wall = time.perf_counter() - started
    stdout, _ = child.communicate()
    cpu = _children_cpu() - cpu_before
    if child.returncode != 0:
        sys.exit(f"the index run under {src} failed ({child.returncode})")
    poll(_db(home, db), project, wanted, out, started)
    result = json.loads(stdout.strip().splitlines()[-1])
    rep = result["report"]
    out["fully_embedded_s"] = round(wall, 2)
    out["chunks"] = rep["chunks"]
    out["embedded"] = rep["embedded"]
    out["keyword_seconds_reported"] = rep.get("keyword_seconds")
    embed_s = wall - (rep.get("keyword_seconds") or 0.0)
    out["chunks_per_s"] = round(rep["embedded"] / max(wall, 1e-9), 1)
    out["embedding_chunks_per_s"] = round(rep["embedded"] / max(embed_s, 1e-9), 1)
    # on a shared machine the wall-clock rate is mostly the share of CPU a run got: the work
    # per chunk is what the code decides
    out["cpu_s"] = round(cpu, 1)  # the whole process: start-up and imports too
    out["work_cpu_s"] = round(result["work_cpu_s"], 1)
    # from the first file read to the end (today's code embeds as it reads)
    out["chunks_per_cpu_s"] = round(rep["embedded"] / max(result["work_cpu_s"], 1e-9), 2)
    shutil.rmtree(home, ignore_errors=True)
    return out


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _db(home: Path, default: Path) -> Path:
    found = list(home.rglob("memini.db")) if home.exists() else []
    return found[0] if found else default


def _tree(spec: str) -> tuple[str, Path]:
    """`NAME=FOLDER` or `FOLDER` (named "today"): a folder holding a tree's `src/`."""
    name, sep, folder = spec.partition("=")
    if not sep:
        name, folder = "today", spec
    return name, Path(folder).resolve() / "src"


KEYS = (
    "first_result_s",
    "keyword_complete_s",
    "fully_embedded_s",
    "embedding_chunks_per_s",
    "chunks_per_cpu_s",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--old",
        action="append",
        required=True,
        metavar="[NAME=]FOLDER",
        help="a folder holding an older tree's src/ (repeat for several, each with a name)",
    )
    parser.add_argument("--packages", nargs="*", default=DEFAULT_PACKAGES)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    trees = dict(_tree(spec) for spec in args.old)
    if "new" in trees or len(trees) != len(args.old):
        sys.exit("--old: give each tree its own name, not 'new' (this tree)")
    trees["new"] = HERE / "src"
    for name, src in trees.items():
        if not (src / "neuralgentics").is_dir():
            sys.exit(f"{name}: no neuralgentics package under {src}")
    load_before = os.getloadavg()
    work = Path(tempfile.mkdtemp(prefix="ng-bench-cold-"))
    try:
        repo = work / "repo"
        files, _ = build_repo(args.packages, repo)
        wanted = probes(repo, PROBES)
        print(f"repository: {files} files from {', '.join(args.packages)}; {len(wanted)} probes")
        runs: dict[str, list[dict]] = {name: [] for name in trees}
        for i in range(args.repeats):
            # every tree once per round, the order reversed each round (the machine's load
            # drifts; interleaving spreads it over all of them)
            order = list(trees) if i % 2 == 0 else list(reversed(trees))
            for name in order:
                got = run_once(trees[name], repo, wanted, work)
                got["load_1min"] = round(os.getloadavg()[0], 2)
                runs[name].append(got)
                print(f"{name}: {json.dumps(got)}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def median(name: str, key: str) -> float:
        values = [r[key] for r in runs[name] if r.get(key) is not None]
        return round(statistics.median(values), 2) if values else float("nan")

    summary = {name: {k: median(name, k) for k in KEYS} for name in trees}
    new = summary["new"]
    ratios = {
        name: {
            # times: how many times sooner the new tree gets there; rates: how many times more
            "first_result": round(got["first_result_s"] / new["first_result_s"], 2),
            "keyword_complete": round(got["keyword_complete_s"] / new["keyword_complete_s"], 2),
            "fully_embedded": round(got["fully_embedded_s"] / new["fully_embedded_s"], 2),
            "embedding_chunks_per_s": round(
                new["embedding_chunks_per_s"] / got["embedding_chunks_per_s"], 2
            ),
            "chunks_per_cpu_s": round(new["chunks_per_cpu_s"] / got["chunks_per_cpu_s"], 2),
        }
        for name, got in summary.items()
        if name != "new"
    }
    result = {
        "packages": args.packages,
        "repeats": args.repeats,
        "trees": {name: str(src) for name, src in trees.items()},
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "runs": runs,
        "median": summary,
        "new_vs": ratios,
    }
    print()
    print(f"{'median':26}" + "".join(f"{name:>12}" for name in trees))
    for k in KEYS:
        print(f"{k:26}" + "".join(f"{summary[name][k]:>12}" for name in trees))
    for name, r in ratios.items():
        print(
            f"new vs {name}: first result {r['first_result']}x sooner, keyword-complete"
            f" {r['keyword_complete']}x sooner, fully embedded {r['fully_embedded']}x sooner;"
            f" embedding {r['embedding_chunks_per_s']}x the chunks/s,"
            f" {r['chunks_per_cpu_s']}x the chunks per CPU-second"
        )
    print(f"load average before {result['load_before']}, after {result['load_after']}")
    print(json.dumps(result))
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
