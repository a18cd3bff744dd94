"""Broker overhead: tools/call latency and throughput, direct vs our broker vs FastMCP's proxy.

    .venv/bin/python bench/broker.py [--rounds 20] [--calls 25] [--concurrency 16] [--quick]
                                     [--compare-src DIR]

For each downstream (a minimal raw-JSON-RPC Python stdio server, and server-everything's
`echo`), one SDK `ClientSession` per path calls a trivial tool:

  direct   client -> server
  broker   client -> `neuralgentics broker stdio` -> server     (via mcp_router_call)
  fastmcp  client -> FastMCP 4 `create_proxy` over stdio -> server   (own venv; skipped if absent)

"cpu ms/call" is the CPU time of the process the client talks to (the server itself for
direct, the broker or the proxy otherwise) per call during the latency rounds: on a busy
machine it is the steadier figure, since wall time then mostly measures waiting for a core.

Latency is measured in interleaved rounds (every path gets a slice of each round, so load on
the machine hits all paths alike); throughput is N calls from `--concurrency` tasks sharing
each path's session, in `--tp-rounds` interleaved rounds (median). Prints medians/p99, added latency over direct, and ratios.

`--compare-src DIR` adds a fourth path, "broker@DIR": the same broker command with
PYTHONPATH=DIR, i.e. another checkout's `neuralgentics` package (for example the commit
before a change: `git archive <ref> src/neuralgentics | tar -x -C /tmp/before` then
`--compare-src /tmp/before/src`), measured interleaved with the others in the same run.

FastMCP lives in its own venv so its pins cannot touch ours; create it with
  python3 -m venv ~/.cache/neuralgentics-bench/fastmcp-venv &&
  ~/.cache/neuralgentics-bench/fastmcp-venv/bin/pip install fastmcp==4.1.6
or point FASTMCP_PYTHON at a Python that has fastmcp.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
NEURALGENTICS = str(Path(PY).parent / "neuralgentics")
EVERYTHING = ROOT / "node_modules" / ".bin" / "mcp-server-everything"
ECHO_SERVER = ROOT / "bench" / "broker_echo_server.py"
FASTMCP_PY = Path(
    os.environ.get("FASTMCP_PYTHON", Path.home() / ".cache/neuralgentics-bench/fastmcp-venv/bin/python")
)

FASTMCP_PROXY = """
import sys
from fastmcp.server import create_proxy
cfg = {"mcpServers": {"target": {"command": sys.argv[1], "args": sys.argv[2:]}}}
create_proxy(cfg, name="fastmcp-proxy").run(show_banner=False)
"""


@dataclass
class Path_:
    name: str
    params: StdioServerParameters
    tool: str
    wrap: bool  # call through mcp_router_call
    latencies: list[float] = field(default_factory=list)
    throughput: float = 0.0
    tp_runs: list[float] = field(default_factory=list)
    errors: int = 0
    pid: int | None = None  # the process the client talks to (server, broker or proxy)
    cpu: float = 0.0  # its CPU seconds during the latency rounds


def _children() -> set[int]:
    """Direct children of this process (the stdio peers the SDK client spawned)."""
    out = set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == os.getpid():
                        out.add(int(d))
            except (OSError, ValueError, IndexError):
                pass
    return out


def _cpu_seconds(pid: int | None) -> float:
    """utime + stime of one process: load on the machine does not inflate it like wall time."""
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


@contextlib.asynccontextmanager
async def session(params: StdioServerParameters) -> AsyncIterator[ClientSession]:
    async with stdio_client(params, errlog=open(os.devnull, "w")) as (r, w), ClientSession(r, w) as s:  # noqa: SIM115
        await s.initialize()
        yield s


async def one_call(s: ClientSession, p: Path_, i: int) -> float:
    msg = f"ping {i}"
    if p.wrap:
        args: dict[str, Any] = {"server": "target", "tool": "echo", "arguments": {"message": msg}}
        name = "mcp_router_call"
    else:
        args, name = {"message": msg}, p.tool
    t0 = time.perf_counter()
    r = await s.call_tool(name, args)
    dt = time.perf_counter() - t0
    if r.is_error or msg not in "".join(getattr(c, "text", "") for c in r.content):
        p.errors += 1
    return dt


async def bench_target(label: str, command: str, args: list[str], opts: argparse.Namespace,
                       workdir: Path) -> list[Path_]:
    cfg = {
        "servers": {"target": {"command": command, "args": args, "idle_timeout": 0}},
        "roles": {"bench": {"allow": ["target/*"]}},
        "audit": {"path": str(workdir / f"audit-{label}.jsonl")},
    }
    cfg_path = workdir / f"broker-{label}.yaml"
    cfg_path.write_text(yaml.safe_dump(cfg))
    env = {**os.environ, "NEURALGENTICS_HOME": str(workdir / "home")}
    paths = [
        Path_("direct", StdioServerParameters(command=command, args=args), "echo", False),
        Path_("broker", StdioServerParameters(
            command=NEURALGENTICS, args=["broker", "stdio", "--config", str(cfg_path), "--role", "bench"],
            env=env), "mcp_router_call", True),
    ]
    if opts.compare_src:
        paths.append(Path_("broker@ref", StdioServerParameters(
            command=NEURALGENTICS, args=["broker", "stdio", "--config", str(cfg_path), "--role", "bench"],
            env={**env, "PYTHONPATH": str(Path(opts.compare_src).resolve())}), "mcp_router_call", True))
    if FASTMCP_PY.exists():
        script = workdir / "fastmcp_proxy.py"
        script.write_text(FASTMCP_PROXY)
        paths.append(Path_("fastmcp", StdioServerParameters(
            command=str(FASTMCP_PY), args=[str(script), command, *args]), "echo", False))
    else:
        print(f"  (fastmcp skipped: {FASTMCP_PY} not found)")

    async with contextlib.AsyncExitStack() as stack:
        sessions = []
        for p in paths:
            before = _children()
            sessions.append(await stack.enter_async_context(session(p.params)))
            new = _children() - before
            p.pid = min(new) if new else None
        for s, p in zip(sessions, paths, strict=True):
            if not p.wrap:
                names = [t.name for t in (await s.list_tools()).tools]
                p.tool = next(n for n in names if n == "echo" or n.endswith("echo"))
            for i in range(20):  # warm-up: servers started, caches filled
                await one_call(s, p, i)
        for rnd in range(opts.rounds):
            order = list(zip(sessions, paths, strict=True))
            if rnd % 2:
                order.reverse()
            for s, p in order:
                c0 = _cpu_seconds(p.pid)
                for i in range(opts.calls):
                    p.latencies.append(await one_call(s, p, i))
                p.cpu += _cpu_seconds(p.pid) - c0
        # Throughput in interleaved rounds too (order reversed every other round); median.
        for rnd in range(opts.tp_rounds):
            order = list(zip(sessions, paths, strict=True))
            if rnd % 2:
                order.reverse()
            for s, p in order:
                n = opts.concurrency * opts.per_task
                t0 = time.perf_counter()

                async def worker(k: int, s: ClientSession = s, p: Path_ = p) -> None:
                    for i in range(opts.per_task):
                        await one_call(s, p, k * 1000 + i)

                await asyncio.gather(*(worker(k) for k in range(opts.concurrency)))
                p.tp_runs.append(n / (time.perf_counter() - t0))
        for p in paths:
            p.throughput = statistics.median(p.tp_runs)
    return paths


def report(label: str, paths: list[Path_], concurrency: int) -> None:
    direct = paths[0]
    d50, d99 = statistics.median(direct.latencies), pct(direct.latencies, 99)
    print(f"\n## {label}  ({len(direct.latencies)} calls per path, interleaved)")
    print(f"{'path':<10} {'p50 ms':>8} {'p99 ms':>8} {'+p50 ms':>8} {'+p99 ms':>8} "
          f"{'calls/s@' + str(concurrency):>12} {'vs direct':>9} {'cpu ms/call':>11} {'errors':>6}")
    added = {}
    for p in paths:
        p50, p99 = statistics.median(p.latencies), pct(p.latencies, 99)
        added[p.name] = p50 - d50
        print(f"{p.name:<10} {p50 * 1e3:8.2f} {p99 * 1e3:8.2f} {(p50 - d50) * 1e3:8.2f} "
              f"{(p99 - d99) * 1e3:8.2f} {p.throughput:12.0f} {p.throughput / direct.throughput:9.2f} "
              f"{p.cpu / len(p.latencies) * 1e3:11.3f} {p.errors:6d}")
    if "fastmcp" in added and added["fastmcp"] > 0:
        for name in ("broker", "broker@ref"):
            if name in added:
                print(f"{name} added p50 / fastmcp added p50 = {added[name] / added['fastmcp']:.2f}")


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--calls", type=int, default=25)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--per-task", type=int, default=40)
    ap.add_argument("--tp-rounds", type=int, default=3, help="interleaved throughput rounds (median)")
    ap.add_argument("--quick", action="store_true", help="CI smoke: a few calls only")
    ap.add_argument("--compare-src", help="also measure the broker from this source dir (PYTHONPATH)")
    opts = ap.parse_args()
    if opts.quick:
        opts.rounds, opts.calls, opts.per_task, opts.tp_rounds = 3, 5, 5, 1
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}")
    if opts.compare_src:
        print(f"broker@ref = the broker with PYTHONPATH={opts.compare_src}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        targets = [("python-raw-echo", PY, [str(ECHO_SERVER)])]
        if EVERYTHING.exists():
            targets.append(("server-everything-echo", str(EVERYTHING), ["stdio"]))
        for label, cmd, args in targets:
            paths = await bench_target(label, cmd, args, opts, work)
            report(label, paths, opts.concurrency)
    print(f"\nload at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
