"""What memini-core's HTTP app costs per POST /memory/add, apart from the add itself (issue 31
item 4): this tree against another tree's package, interleaved, in one command.

    .venv/bin/python bench/http_hop.py --baseline /tmp/main/src    # git archive main src | ...

Each tree runs in its own process (its package on PYTHONPATH): memini-core built in-process
(`create_app`, a SQLite store, the real model loaded but never called) with
`MemoryService.add` replaced by one canned result, so what is timed is the app alone — HTTPGuard,
routing, the dependencies, body parsing and validation, the thread hand-off, the response's
validation and JSON — driven as ASGI (no socket, no HTTP parser, no client). Reported: CPU per
request (all threads of the process, median of rounds), and per request the thread hand-offs
(`anyio.to_thread.run_sync`) and FastAPI's dependency rebuilds (`get_dependant`). bench/memory.py
--mem0 --http-baseline measures the whole hop over a socket, with the adds real.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import asyncio, json, os, sys, tempfile, time
from pathlib import Path
import anyio.to_thread
import fastapi.dependencies.utils as fastapi_deps
from neuralgentics.app.core import create_app
from neuralgentics.app.process import shared_embedder
from neuralgentics.config import Settings
from neuralgentics.memini.service import MemoryService
from neuralgentics.memini.store import open_store

n, rounds = int(sys.argv[1]), int(sys.argv[2])
home = Path(tempfile.mkdtemp(prefix="neuralgentics-bench-hop-"))
settings = Settings(home=home, database_url=None, token="bench-token")
app = create_app(settings, store=open_store(settings), embedder=shared_embedder())
canned = app.state.service().add("the cache layer must use gzip in staging", project="bench")
MemoryService.add = lambda self, *a, **k: canned  # the app alone is timed
body = json.dumps({"content": "the cache layer must use gzip in production", "project": "bench"})
raw = body.encode()
headers = [
    (b"host", b"127.0.0.1:8900"),
    (b"authorization", b"Bearer bench-token"),
    (b"content-type", b"application/json"),
    (b"content-length", str(len(raw)).encode()),
    (b"user-agent", b"bench"),
    (b"accept", b"*/*"),
]


async def call():
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/memory/add", "raw_path": b"/memory/add",
        "query_string": b"", "root_path": "", "headers": headers,
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8900), "state": {},
    }
    sent, out = False, []

    async def receive():
        nonlocal sent
        if sent:
            await asyncio.sleep(3600)
        sent = True
        return {"type": "http.request", "body": raw, "more_body": False}

    async def send(message):
        out.append(message)

    await app(scope, receive, send)
    assert out[0]["status"] == 201, out


async def main():
    counts = {"threads": 0, "rebuilds": 0}
    run_sync, get_dependant = anyio.to_thread.run_sync, fastapi_deps.get_dependant

    async def counted_run_sync(func, *args, **kwargs):
        counts["threads"] += 1
        return await run_sync(func, *args, **kwargs)

    def counted_get_dependant(*args, **kwargs):
        counts["rebuilds"] += 1
        return get_dependant(*args, **kwargs)

    async with app.router.lifespan_context(app):
        for _ in range(50):
            await call()  # FastAPI builds a route's dependencies on its first request
        anyio.to_thread.run_sync, fastapi_deps.get_dependant = counted_run_sync, counted_get_dependant
        await call()
        anyio.to_thread.run_sync, fastapi_deps.get_dependant = run_sync, get_dependant
        cpu = []
        for _ in range(rounds):
            c0 = time.process_time()
            for _ in range(n):
                await call()
            cpu.append((time.process_time() - c0) / n * 1000)
    print(json.dumps({"cpu_ms": cpu, **counts}))


asyncio.run(main())
"""


def run(src: Path, n: int, rounds: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src), HF_HUB_OFFLINE="1")
    env.pop("NEURALGENTICS_DATABASE_URL", None)
    env.pop("NEURALGENTICS_TOKEN", None)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(n), str(rounds)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"{src}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--baseline", type=Path, required=True, help="another tree's src/ directory")
    ap.add_argument("--requests", type=int, default=1000, help="requests per round")
    ap.add_argument("--rounds", type=int, default=5, help="rounds per process")
    ap.add_argument("--repeats", type=int, default=3, help="processes per tree, interleaved")
    args = ap.parse_args(argv)
    trees = {"this tree": ROOT / "src", "baseline": args.baseline}
    results: dict[str, list[dict]] = {name: [] for name in trees}
    for rep in range(args.repeats):
        order = list(trees) if rep % 2 == 0 else list(trees)[::-1]
        for name in order:
            results[name].append(run(trees[name], args.requests, args.rounds))
    print(f"# bench/http_hop.py {' '.join(sys.argv[1:])}")
    print(
        f"# {os.cpu_count()} cores; {args.repeats} processes per tree x {args.rounds} rounds x"
        f" {args.requests} requests; load average at end"
        f" {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    print(
        "| tree | app CPU per POST /memory/add, ms (median; per process) | thread hand-offs |"
        " dependency rebuilds |"
    )
    print("|---|---|---|---|")
    med = {}
    for name, runs in results.items():
        per = [statistics.median(r["cpu_ms"]) for r in runs]
        med[name] = statistics.median(per)
        print(
            f"| {name} ({trees[name]}) | {med[name]:.3f} ({', '.join(f'{x:.3f}' for x in per)})"
            f" | {runs[-1]['threads']} | {runs[-1]['rebuilds']} |"
        )
    print(f"\nthis tree / baseline, app CPU per request: {med['this tree'] / med['baseline']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
