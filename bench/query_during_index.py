"""Memory queries while the project indexer embeds: p50/p99 idle vs during an index of >= 2,000 chunks.

    .venv/bin/python bench/query_during_index.py [--packages rich click ...] [--json out.json]

Runs the real service (`neuralgentics serve`) twice on a random loopback port, each time with a
fresh home (so nothing is reused between the runs) and the same copied repository (the source
of installed packages: real code that runs offline):

  run A  300 memories added, then `--queries` memory queries one after another (idle, the
         baseline), then the repository indexed with nothing else running (baseline index time)
  run B  the same 300 memories, then the repository indexed while memory queries run one
         after another until the index job is done

Queries arrive open-loop, one every `--interval` seconds whatever the answers (each on its own
connection, at most 16 outstanding), so a query stuck behind the indexer does not hide the ones
that would have arrived meanwhile: the figures are what an agent asking at a random moment
sees. Every query text is new (the embedder's cache never answers), so each query embeds one
short text, searches and answers over HTTP, as an agent's recall does. Prints p50/p90/p99 idle
and during the index, their ratios (target: during within 3x idle), and both index times.
Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PACKAGES = ["rich", "click", "jinja2"]  # ~2,800 chunks
_WORDS = (
    "memory agent project index query trust graph vector search token cache model database "
    "migration schema latency embedding function class module error retry timeout server client "
    "request response route handler config session batch worker thread queue lock file commit"
).split()


def copy_repo(packages: list[str], dest: Path) -> int:
    site = Path(__import__("rich").__file__).parent.parent
    files = 0
    for pkg in packages:
        src = site / pkg
        if not src.is_dir():
            sys.exit(f"package {pkg} is not installed in {site}")
        for path in src.rglob("*.py"):
            if "__pycache__" in path.parts:
                continue
            out = dest / path.relative_to(site)
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, out)
            files += 1
    return files


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    """`neuralgentics serve` in a fresh home; stopped on exit."""

    def __init__(self, home: Path) -> None:
        self.port = free_port()
        self.token = secrets.token_urlsafe(24)
        env = dict(os.environ)
        env.update(
            NEURALGENTICS_HOME=str(home / "home"),
            NEURALGENTICS_CONFIG_DIR=str(home / "config"),
            NEURALGENTICS_TOKEN=self.token,
            HF_HUB_OFFLINE="1",
        )
        env.pop("NEURALGENTICS_DATABASE_URL", None)
        home.mkdir(parents=True, exist_ok=True)
        self.log = (home / "serve.log").open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "neuralgentics.cli", "serve", "--port", str(self.port)],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
        )
        self.http = httpx.Client(
            base_url=f"http://127.0.0.1:{self.port}",
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=120,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if self.http.get("/health").status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.2)
        raise RuntimeError(f"service did not start: see {self.log.name}")

    def __enter__(self) -> Service:
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()

    def seed(self, n: int, rng: random.Random) -> None:
        for i in range(n):
            text = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(8, 30)))
            r = self.http.post("/memory/add", json={"content": f"{text} ({i})", "project": "bench"})
            r.raise_for_status()

    def query(self, text: str) -> float:
        started = time.perf_counter()
        r = self.http.post("/memory/query", json={"query": text, "top_k": 10})
        elapsed = time.perf_counter() - started
        r.raise_for_status()
        return elapsed * 1000

    def open_loop(self, texts, interval: float, until) -> list[float]:  # type: ignore[no-untyped-def]
        """A query every `interval` s until `until()` is true; latencies of those that started
        before it was (answers may come later: they still count)."""
        pool = ThreadPoolExecutor(max_workers=16)
        futures: list[Future[float]] = []
        lock = threading.Lock()
        next_at = time.perf_counter()
        while not until():
            with lock:
                text = next(texts)
            futures.append(pool.submit(self.query, text))
            next_at += interval
            time.sleep(max(0.0, next_at - time.perf_counter()))
        pool.shutdown(wait=True)
        return [f.result() for f in futures]

    def start_index(self, path: Path) -> str:
        r = self.http.get("/project/index", params={"path": str(path)})
        r.raise_for_status()
        return r.json()["id"]

    def job(self, job_id: str) -> dict:
        r = self.http.get(f"/project/index/{job_id}")
        r.raise_for_status()
        return r.json()


def query_texts(rng: random.Random):  # -> Iterator[str]
    i = 0
    while True:
        i += 1
        words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(4, 12)))
        yield f"how does the {words} work {i}"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def summary(values: list[float]) -> dict:
    return {
        "n": len(values),
        "p50_ms": round(statistics.median(values), 1),
        "p90_ms": round(pct(values, 0.90), 1),
        "p99_ms": round(pct(values, 0.99), 1),
        "max_ms": round(max(values), 1),
    }


class JobWatch:
    """Polls an index job from its own thread; `done()` says when it finished."""

    def __init__(self, svc: Service, job_id: str) -> None:
        self.job: dict = {}
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._poll, args=(svc, job_id), daemon=True)
        self._thread.start()

    def _poll(self, svc: Service, job_id: str) -> None:
        with httpx.Client(base_url=str(svc.http.base_url), headers=svc.http.headers) as http:
            while True:
                job = http.get(f"/project/index/{job_id}").json()
                if job["status"] in ("done", "failed"):
                    self.job = job
                    self._done.set()
                    return
                time.sleep(0.2)

    def done(self) -> bool:
        return self._done.is_set()

    def wait(self) -> dict:
        self._done.wait()
        if self.job["status"] == "failed":
            raise RuntimeError(f"index failed: {self.job.get('error')}")
        return self.job


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--packages", nargs="*", default=DEFAULT_PACKAGES)
    parser.add_argument("--queries", type=int, default=200, help="idle queries (baseline)")
    parser.add_argument("--interval", type=float, default=0.25, help="seconds between queries")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args()
    rng = random.Random(5)
    texts = query_texts(rng)
    print(
        f"# query during index  {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  "
        f"cpus={os.cpu_count()}  load-avg={os.getloadavg()[0]:.1f}"
    )
    with tempfile.TemporaryDirectory(prefix="ng-qdi-") as tmp:
        repo = Path(tmp) / "repo"
        files = copy_repo(args.packages, repo)
        with Service(Path(tmp) / "a") as svc:
            svc.seed(300, random.Random(1))
            for _ in range(10):
                svc.query(next(texts))  # warm-up: the model is loaded, the kernels are warm
            sent = iter(range(args.queries))
            idle = svc.open_loop(texts, args.interval, lambda: next(sent, None) is None)
            started = time.perf_counter()
            job = JobWatch(svc, svc.start_index(repo)).wait()
            alone_s = time.perf_counter() - started
        chunks = job["progress"]["chunks"]
        with Service(Path(tmp) / "b") as svc:
            svc.seed(300, random.Random(1))
            for _ in range(10):
                svc.query(next(texts))
            started = time.perf_counter()
            watch = JobWatch(svc, svc.start_index(repo))
            during = svc.open_loop(texts, args.interval, watch.done)
            job = watch.wait()
            with_queries_s = time.perf_counter() - started
    result = {
        "files": files,
        "chunks": chunks,
        "embedded": job["progress"]["embedded"],
        "idle": summary(idle),
        "during_index": summary(during),
        "index_alone_s": round(alone_s, 1),
        "index_with_queries_s": round(with_queries_s, 1),
    }
    result["ratio_p50"] = round(result["during_index"]["p50_ms"] / result["idle"]["p50_ms"], 2)
    result["ratio_p99"] = round(result["during_index"]["p99_ms"] / result["idle"]["p99_ms"], 2)
    print(
        f"repository: {files} files, {chunks} chunks ({result['embedded']} embedded)"
        + ("  (fewer than 2,000: add --packages)" if chunks < 2000 else "")
    )
    for name in ("idle", "during_index"):
        s = result[name]
        print(
            f"/memory/query {name:<13} n={s['n']:<4} p50 {s['p50_ms']:7.1f} ms  p90 {s['p90_ms']:7.1f} ms  "
            f"p99 {s['p99_ms']:7.1f} ms  max {s['max_ms']:7.1f} ms"
        )
    print(
        f"during/idle: p50 x{result['ratio_p50']}, p99 x{result['ratio_p99']} (target: within 3x)"
    )
    print(
        f"index time: alone {alone_s:.1f} s, with queries running {with_queries_s:.1f} s "
        f"(x{with_queries_s / alone_s:.2f})"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
