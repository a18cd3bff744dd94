"""Cost of the bubblewrap sandbox for a launched server (issue 29): start-up (spawn,
initialize, tools/list) and per-call latency, the same real server (mcp-server-time, PyPI)
plain and under bwrap, interleaved in one run.

    .venv/bin/python bench/sandbox.py [--starts 10] [--calls 300]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import anyio

from neuralgentics.broker.client import connect, list_all_tools
from neuralgentics.broker.config import ServerConfig

ARGS = {"timezone": "UTC"}


def config(sandbox: dict | None) -> ServerConfig:
    return ServerConfig(command=sys.executable, args=["-m", "mcp_server_time"], sandbox=sandbox)


async def start_once(cfg: ServerConfig) -> float:
    t = time.perf_counter()
    async with connect(cfg) as conn:
        await list_all_tools(conn.session)
        elapsed = time.perf_counter() - t
    return elapsed


async def calls(cfg: ServerConfig, n: int) -> list[float]:
    out = []
    async with connect(cfg) as conn:
        for _ in range(20):  # warm-up
            await conn.session.call_tool("get_current_time", ARGS)
        for _ in range(n):
            t = time.perf_counter()
            await conn.session.call_tool("get_current_time", ARGS)
            out.append(time.perf_counter() - t)
    return out


async def main(starts: int, n: int) -> None:
    variants = {
        "plain": config(None),
        "bwrap network=none": config({"network": "none"}),
        "bwrap network=host": config({"network": "host"}),
    }
    print(f"load average {os.getloadavg()[0]:.1f}; {starts} starts, {n} calls each")
    start: dict[str, list[float]] = {k: [] for k in variants}
    for _ in range(starts):  # interleaved: machine load hits every variant alike
        for name, cfg in variants.items():
            start[name].append(await start_once(cfg))
    call: dict[str, list[float]] = {k: await calls(cfg, n) for k, cfg in variants.items()}
    base_s = statistics.median(start["plain"])
    base_c = statistics.median(call["plain"])
    print(
        f"{'variant':<20} {'start p50 ms':>13} {'ratio':>6} {'call p50 ms':>12} {'p95 ms':>8} {'ratio':>6}"
    )
    for name in variants:
        s = statistics.median(start[name])
        c = statistics.median(call[name])
        p95 = statistics.quantiles(call[name], n=20)[18]
        print(
            f"{name:<20} {s * 1000:>13.1f} {s / base_s:>5.2f}x {c * 1000:>12.3f} "
            f"{p95 * 1000:>8.3f} {c / base_c:>5.2f}x"
        )


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--starts", type=int, default=10)
    ap.add_argument("--calls", type=int, default=300)
    a = ap.parse_args()
    anyio.run(main, a.starts, a.calls)
