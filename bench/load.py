"""Load figures for docs/benchmarks-reliability.md: the CI tests' load runs at full length.

    .venv/bin/python bench/load.py                      # 60 s each, every scenario
    .venv/bin/python bench/load.py --seconds 20 --only memini-sqlite,broker

Scenarios (each against real processes on loopback, started and stopped here):
  memini-sqlite    8 clients mixing add/query/trust/relate on `neuralgentics serve` (SQLite)
  memini-postgres  the same on PostgreSQL (embedded server from tests/support/postgres.py, fsync off)
  scale-out        the same split over two memini-core processes on one PostgreSQL
  broker           32 MCP clients over streamable HTTP, three downstream servers

Baseline in the same run: one client (one caller for the broker) for a quarter of the time;
the ratio is throughput at full concurrency over the baseline's. After each run the end state
is checked exactly (tests/reliability/loadmix.verify) and fds/processes are counted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from reliability.broker_proc import descendants, open_fds, serving, write_config  # noqa: E402
from reliability.brokerload import run_broker_load, three_servers  # noqa: E402
from reliability.loadmix import run_load, verify  # noqa: E402
from reliability.memini_proc import clean_env, start, stop  # noqa: E402

SCENARIOS = ["memini-sqlite", "memini-postgres", "scale-out", "broker"]


def _memini(tmp: Path, seconds: float, processes: int, database_url: str | None) -> dict:
    extra = {"NEURALGENTICS_DATABASE_URL": database_url} if database_url else {}
    home = tmp / "home"  # SQLite: one file; PostgreSQL: the shared database
    procs = [start(clean_env(home, **extra), tmp / f"serve{i}.log") for i in range(processes)]
    try:
        urls = [p.url for p in procs]
        base = run_load(urls, max(5.0, seconds / 4), clients=1)
        verify(urls[0], base)
        fds_before = [open_fds(p.proc.pid) for p in procs]
        full = run_load(urls, seconds, clients=8)
        counts = {}
        for url in urls:
            counts = verify(
                url, full, exact_rows=False
            )  # exact within the run; baseline rows also there
        fds_after = [open_fds(p.proc.pid) for p in procs]
    finally:
        for p in procs:
            stop(p.proc)
    s, b = full.summary(), base.summary()
    return {
        **s,
        "baseline_1_client_rps": b["requests_per_s"],
        "baseline_p99_ms": b["p99_ms"],
        "ratio_vs_1_client": round(s["requests_per_s"] / b["requests_per_s"], 2)
        if b["requests_per_s"]
        else None,
        "checked": counts,
        "fds_before_after": [fds_before, fds_after],
    }


def _broker(tmp: Path, seconds: float) -> dict:
    servers, calls = three_servers()
    config = write_config(tmp / "broker.yaml", servers)
    with serving(config, tmp) as (base, proc):
        warm = asyncio.run(run_broker_load(base, calls, 3, callers=3))
        assert not warm.errors, warm.errors[:3]
        baseline = asyncio.run(run_broker_load(base, calls, max(5.0, seconds / 4), callers=1))
        kids, fds = descendants(proc.pid), open_fds(proc.pid)
        full = asyncio.run(run_broker_load(base, calls, seconds, callers=32))
        deadline = time.monotonic() + 10
        while open_fds(proc.pid) > fds and time.monotonic() < deadline:
            time.sleep(0.2)
        after_kids, after_fds = descendants(proc.pid), open_fds(proc.pid)
    s, b = full.summary(), baseline.summary()
    return {
        **s,
        "baseline_1_caller_cps": b["calls_per_s"],
        "baseline_p99_ms": b["p99_ms"],
        "ratio_vs_1_caller": round(s["calls_per_s"] / b["calls_per_s"], 2)
        if b["calls_per_s"]
        else None,
        "fds_before_after": [fds, after_fds],
        "processes_before_after": [len(kids), len(after_kids)],
        "same_processes": kids == after_kids,
        "error_samples": full.errors[:3],
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--only", default=",".join(SCENARIOS))
    args = ap.parse_args()
    wanted = [s for s in args.only.split(",") if s]
    unknown = set(wanted) - set(SCENARIOS)
    if unknown:
        ap.error(f"unknown scenario(s) {sorted(unknown)}; choose from {SCENARIOS}")
    results: dict[str, dict] = {}
    pg = None
    try:
        for name in wanted:
            with tempfile.TemporaryDirectory(prefix=f"ng-load-{name}-") as d:
                tmp = Path(d)
                if name == "broker":
                    results[name] = _broker(tmp, args.seconds)
                elif name == "memini-sqlite":
                    results[name] = _memini(tmp, args.seconds, 1, None)
                else:
                    import support.postgres as _postgres

                    pg = pg or _postgres.postgres_url(None)
                    url = _postgres.fresh_database(pg, "load")
                    try:
                        results[name] = _memini(
                            tmp, args.seconds, 2 if name == "scale-out" else 1, url
                        )
                    finally:
                        _postgres.drop_database(url)
            print(json.dumps({name: results[name]}), flush=True)
    finally:
        if pg is not None:
            import support.postgres as _postgres

            _postgres.stop_server()
    print(
        "\n| scenario | seconds | requests | req/s | p50 ms | p99 ms | 1-client req/s | ratio | errors |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, r in results.items():
        n = r.get("requests", r.get("calls"))
        rate = r.get("requests_per_s", r.get("calls_per_s"))
        base = r.get("baseline_1_client_rps", r.get("baseline_1_caller_cps"))
        ratio = r.get("ratio_vs_1_client", r.get("ratio_vs_1_caller"))
        errs = r.get("failures", r.get("errors"))
        print(
            f"| {name} | {r['seconds']} | {n} | {rate} | {r['p50_ms']} | {r['p99_ms']} | {base} | {ratio} | {errs} |"
        )


if __name__ == "__main__":
    main()
