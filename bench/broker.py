"""Broker overhead: tools/call latency and throughput, direct vs our broker vs two proxies.

    .venv/bin/python bench/broker.py [--rounds 20] [--calls 25] [--concurrency 16] [--quick]
                                     [--compare-src DIR] [--no-http] [--profile-http DIR]
                                     [--floor] [--http-only] [--targets raw,everything,time]
                                     [--message-chars N]

For each downstream (`--targets`: a minimal raw-JSON-RPC Python stdio server's `echo`,
server-everything's `echo`, and mcp-server-time's `get_current_time`, a real tool with an
`outputSchema` whose structured content every path must return), one SDK `ClientSession`
per path calls one tool:

  direct          client -> server                                       (stdio)
  broker          client -> `neuralgentics broker stdio` -> server        (stdio, via mcp_router_call)
  broker-pt       the same, the server passed through (`expose: tools`; called as target_<tool>)
  fastmcp         client -> FastMCP 4 `create_proxy` over stdio -> server (own venv; skipped if absent)
  broker-http     client -> `neuralgentics broker serve` /mcp -> server   (streamable HTTP, via mcp_router_call)
  broker-http-pt  the same, passed through
  mcp-proxy       client -> `mcp-proxy` 0.13 /mcp -> server               (streamable HTTP; own venv, skipped if absent)

The summary at the end puts every broker path against its peer from the same run: the stdio
paths against fastmcp, the HTTP paths against mcp-proxy (added p50, CPU per call, throughput).

`--floor` adds two more HTTP paths, `floor-canned` and `floor-forward`
(bench/http_floor_front.py): a raw asyncio front with no checks that answers the call itself,
or relays it on the server's pipe. They are the least any front can add with this client.

`--message-chars N` pads the echo's message with N characters of plain prose: a call that
carries text (a note to write, a query, code), which every front parses and returns and the
broker also audits (redacted, digested).

The HTTP paths use the same SDK client (`streamable_http_client` over one httpx2
connection pool, one MCP session per path), so the comparison between them is the server side.
`broker serve` gets a bearer token (NEURALGENTICS_TOKEN) and the client sends it with the
role header, as a real deployment does; mcp-proxy has no credential check.

"cpu ms/call" is the CPU time of the process the client talks to (the server itself for
direct, the broker or the proxy otherwise) per call during the latency rounds: on a busy
machine it is the steadier figure, since wall time then mostly measures waiting for a core.

Latency is measured in interleaved rounds (every path gets a slice of each round, so load on
the machine hits all paths alike); throughput is N calls from `--concurrency` tasks sharing
each path's session, in `--tp-rounds` interleaved rounds (median). Prints medians/p99, added latency over direct, and ratios.

`--compare-src DIR` adds the paths "broker@ref" and "broker-http@ref": the same broker
commands with PYTHONPATH=DIR, i.e. another checkout's `neuralgentics` package (for example the
commit before a change: `git archive <ref> src/neuralgentics | tar -x -C /tmp/before` then
`--compare-src /tmp/before/src`), measured interleaved with the others in the same run.

FastMCP lives in its own venv so its pins cannot touch ours; create it with
  python3 -m venv /work/venvs/fastmcp && /work/venvs/fastmcp/bin/pip install fastmcp==4.2.3
or point FASTMCP_PYTHON at a Python that has fastmcp. mcp-proxy pins mcp < 2, so it too has
its own venv:
  python3 -m venv /work/venvs/mcp-proxy && /work/venvs/mcp-proxy/bin/pip install mcp-proxy==0.13.0
or point MCP_PROXY at its `mcp-proxy` script.

`--profile-http DIR`: after the measured rounds, py-spy (`pip install py-spy`) records
`broker serve`, then mcp-proxy, for `--profile-seconds` each while the client keeps 16 calls
in flight on it (first downstream only); writes
raw folded stacks (active and --gil) and their top frames (bench/folded_stacks.py) into DIR.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import yaml
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from folded_stacks import read_folded, summarize

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
NEURALGENTICS = str(Path(PY).parent / "neuralgentics")
EVERYTHING = ROOT / "node_modules" / ".bin" / "mcp-server-everything"
ECHO_SERVER = ROOT / "bench" / "broker_echo_server.py"
FLOOR_FRONT = ROOT / "bench" / "http_floor_front.py"
FASTMCP_PY = Path(os.environ.get("FASTMCP_PYTHON", "/work/venvs/fastmcp/bin/python"))
MCP_PROXY = Path(os.environ.get("MCP_PROXY", "/work/venvs/mcp-proxy/bin/mcp-proxy"))

FASTMCP_PROXY = """
import sys
from fastmcp.server import create_proxy
cfg = {"mcpServers": {"target": {"command": sys.argv[1], "args": sys.argv[2:]}}}
create_proxy(cfg, name="fastmcp-proxy").run(show_banner=False)
"""


@dataclass
class Target:
    """A downstream server and the call the bench makes to it: `tool` with `arguments(i)`,
    whose text must contain `expect(i)` (else the call counts as an error)."""

    label: str
    command: str
    args: list[str]
    tool: str = "echo"
    structured: bool = False  # the tool declares an outputSchema
    pad: str = ""  # appended to the echo's message (`--message-chars`)

    def arguments(self, i: int) -> dict[str, Any]:
        if self.tool == "get_current_time":
            return {"timezone": "UTC"}
        return {"message": f"ping {i}{self.pad}"}

    def expect(self, i: int) -> str:
        return '"UTC"' if self.tool == "get_current_time" else f"ping {i}"


@dataclass
class HttpFront:
    """A process serving streamable HTTP at http://127.0.0.1:<port>/mcp, started by the bench."""

    argv: list[str]
    env: dict[str, str]
    port: int
    headers: dict[str, str]
    log: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


@dataclass
class Path_:
    name: str
    params: StdioServerParameters | None
    tool: str
    wrap: bool  # call through mcp_router_call
    target: Target
    http: HttpFront | None = None
    latencies: list[float] = field(default_factory=list)
    throughput: float = 0.0
    tp_runs: list[float] = field(default_factory=list)
    errors: int = 0
    pid: int | None = None  # the process the client talks to (server, broker or proxy)
    cpu: float = 0.0  # its CPU seconds during the latency rounds
    tp_cpu: float = 0.0  # ... and during the throughput rounds
    tp_calls: int = 0


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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _wait_listening(front: HttpFront, timeout: float = 60.0) -> None:
    assert front.proc is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if front.proc.poll() is not None:
            raise RuntimeError(
                f"{front.argv[0]} exited with {front.proc.returncode} before listening on "
                f"{front.port}; its log ({front.log}):\n{front.log.read_text()[-2000:]}"
            )
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", front.port)) == 0:
                return
        await asyncio.sleep(0.1)
    raise RuntimeError(
        f"{front.argv[0]} did not listen on {front.port} within {timeout:.0f}s; log: {front.log}"
    )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process group this bench started (the front and the server it spawned)."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


@contextlib.asynccontextmanager
async def session(p: Path_) -> AsyncIterator[ClientSession]:
    if p.http is None:
        assert p.params is not None
        async with (
            stdio_client(p.params, errlog=open(os.devnull, "w")) as (r, w),
            ClientSession(r, w) as s,
        ):
            await s.initialize()
            yield s
        return
    front = p.http
    with front.log.open("wb") as log:
        # Set-up, before any timing: a blocking fork is fine here.
        front.proc = subprocess.Popen(
            front.argv,
            env=front.env,
            stdout=log,
            stderr=log,  # noqa: ASYNC220
            start_new_session=True,
        )
    try:
        await _wait_listening(front)
        p.pid = front.proc.pid
        async with (
            httpx2.AsyncClient(headers=front.headers, timeout=60) as http,
            streamable_http_client(front.url, http_client=http) as (r, w),
            ClientSession(r, w) as s,
        ):
            await s.initialize()
            yield s
    finally:
        _stop(front.proc)


async def one_call(s: ClientSession, p: Path_, i: int) -> float:
    t = p.target
    if p.wrap:
        args: dict[str, Any] = {"server": "target", "tool": t.tool, "arguments": t.arguments(i)}
        name = "mcp_router_call"
    else:
        args, name = t.arguments(i), p.tool
    t0 = time.perf_counter()
    r = await s.call_tool(name, args)
    dt = time.perf_counter() - t0
    if r.is_error or t.expect(i) not in "".join(getattr(c, "text", "") for c in r.content):
        p.errors += 1
    elif t.structured and not r.structured_content:
        p.errors += 1
    return dt


async def in_flight(s: ClientSession, p: Path_, concurrency: int, per_task: int) -> float:
    """`concurrency` tasks each making `per_task` calls on the shared session; calls per second."""
    t0 = time.perf_counter()

    async def worker(k: int) -> None:
        for i in range(per_task):
            await one_call(s, p, k * 1000 + i)

    await asyncio.gather(*(worker(k) for k in range(concurrency)))
    return concurrency * per_task / (time.perf_counter() - t0)


def build_paths(target: Target, opts: argparse.Namespace, workdir: Path) -> list[Path_]:
    label, command, args = target.label, target.command, target.args

    def broker_config(name: str, expose: str | list[str]) -> Path:
        server: dict[str, Any] = {"command": command, "args": args, "idle_timeout": 0}
        if expose:
            server["expose"] = expose
        cfg = {
            "servers": {"target": server},
            "roles": {"bench": {"allow": ["target/*"]}},
            "audit": {"path": str(workdir / f"audit-{name}.jsonl")},
        }
        path = workdir / f"broker-{name}.yaml"
        path.write_text(yaml.safe_dump(cfg))
        return path

    # Behind the catalog (`expose: none`): one small server alone would be listed directly by
    # `expose: auto`, and a router call to a tool the connection was not listed takes the
    # SDK's path — not a path an agent takes.
    cfg_path = broker_config(label, "none")
    # The same server passed through (`expose: tools`): called as `target_<tool>`.
    pt_path = broker_config(f"{label}-pt", ["tools"])
    # Own home and config dir: nothing of the user's (token, broker.yaml, audit) is read or written.
    env = {
        **os.environ,
        "NEURALGENTICS_HOME": str(workdir / "home"),
        "NEURALGENTICS_CONFIG_DIR": str(workdir / "config"),
    }

    def broker_stdio(name: str, config: Path, wrap: bool, extra: dict[str, str]) -> Path_:
        return Path_(
            name,
            StdioServerParameters(
                command=NEURALGENTICS,
                args=["broker", "stdio", "--config", str(config), "--role", "bench"],
                env={**env, **extra},
            ),
            "mcp_router_call" if wrap else target.tool,
            wrap,
            target,
        )

    paths = [
        Path_(
            "direct",
            StdioServerParameters(command=command, args=args),
            target.tool,
            False,
            target,
        ),
    ]
    if not opts.http_only:
        paths.append(broker_stdio("broker", cfg_path, True, {}))
        paths.append(broker_stdio("broker-pt", pt_path, False, {}))
    if opts.compare_src and not opts.http_only:
        ref_env = {"PYTHONPATH": str(Path(opts.compare_src).resolve())}
        paths.append(broker_stdio("broker@ref", cfg_path, True, ref_env))
        paths.append(broker_stdio("broker-pt@ref", pt_path, False, ref_env))
    if opts.http_only:
        pass
    elif FASTMCP_PY.exists():
        script = workdir / "fastmcp_proxy.py"
        script.write_text(FASTMCP_PROXY)
        paths.append(
            Path_(
                "fastmcp",
                StdioServerParameters(command=str(FASTMCP_PY), args=[str(script), command, *args]),
                target.tool,
                False,
                target,
            )
        )
    elif label == opts.first_label:
        print(f"  (fastmcp skipped: {FASTMCP_PY} not found; see the module docstring to create it)")
    if opts.no_http:
        return paths

    def broker_http(
        name: str, log: str, extra_env: dict[str, str], config: Path = cfg_path, wrap: bool = True
    ) -> Path_:
        token = secrets.token_urlsafe(24)
        port = free_port()
        argv = [NEURALGENTICS, "broker", "serve", "--config", str(config), "--port", str(port)]
        return Path_(
            name,
            None,
            "mcp_router_call" if wrap else target.tool,
            wrap,
            target,
            http=HttpFront(
                argv=argv,
                env={**env, "NEURALGENTICS_TOKEN": token, **extra_env},
                port=port,
                headers={"Authorization": f"Bearer {token}", "X-Neuralgentics-Role": "bench"},
                log=workdir / log,
            ),
        )

    paths.append(broker_http("broker-http", f"serve-{label}.log", {}))
    paths.append(broker_http("broker-http-pt", f"serve-pt-{label}.log", {}, pt_path, False))
    if opts.compare_src:
        ref = {"PYTHONPATH": str(Path(opts.compare_src).resolve())}
        paths.append(broker_http("broker-http@ref", f"serve-ref-{label}.log", ref))
        paths.append(
            broker_http("broker-http-pt@ref", f"serve-pt-ref-{label}.log", ref, pt_path, False)
        )
    if opts.floor:
        for mode in ("canned", "forward"):
            port = free_port()
            paths.append(
                Path_(
                    f"floor-{mode}",
                    None,
                    "mcp_router_call",
                    True,
                    target,
                    http=HttpFront(
                        argv=[PY, str(FLOOR_FRONT), mode, str(port), command, *args],
                        env=dict(os.environ),
                        port=port,
                        headers={},
                        log=workdir / f"floor-{mode}-{label}.log",
                    ),
                )
            )
    if MCP_PROXY.exists():
        port = free_port()
        # --log-level WARNING: the broker's uvicorn logs at warning too, so neither pays for
        # a log line per request.
        paths.append(
            Path_(
                "mcp-proxy",
                None,
                target.tool,
                False,
                target,
                http=HttpFront(
                    argv=[
                        str(MCP_PROXY),
                        "--port",
                        str(port),
                        "--host",
                        "127.0.0.1",
                        "--log-level",
                        "WARNING",
                        "--pass-environment",
                        "--",
                        command,
                        *args,
                    ],
                    env=dict(os.environ),
                    port=port,
                    headers={},
                    log=workdir / f"mcp-proxy-{label}.log",
                ),
            )
        )
    elif label == opts.first_label:
        print(
            f"  (mcp-proxy skipped: {MCP_PROXY} not found; create it with `python3 -m venv "
            f"/work/venvs/mcp-proxy && /work/venvs/mcp-proxy/bin/pip install mcp-proxy==0.13.0` "
            f"or set MCP_PROXY)"
        )
    return paths


async def bench_target(target: Target, opts: argparse.Namespace, workdir: Path) -> list[Path_]:
    paths = build_paths(target, opts, workdir)
    async with contextlib.AsyncExitStack() as stack:
        sessions = []
        for p in paths:
            before = _children()
            sessions.append(await stack.enter_async_context(session(p)))
            if p.http is None:
                new = _children() - before
                p.pid = min(new) if new else None
        for s, p in zip(sessions, paths, strict=True):
            if not p.wrap:  # the tool's name as this path lists it (prefixed by a proxy)
                names = [t.name for t in (await s.list_tools()).tools]
                tool = p.target.tool
                p.tool = next(n for n in names if n == tool or n.endswith(f"_{tool}"))
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
                c0 = _cpu_seconds(p.pid)
                p.tp_runs.append(await in_flight(s, p, opts.concurrency, opts.per_task))
                p.tp_cpu += _cpu_seconds(p.pid) - c0
                p.tp_calls += opts.concurrency * opts.per_task
        for p in paths:
            p.throughput = statistics.median(p.tp_runs)
        if opts.profile_http and target.label == opts.first_label:
            for s, p in zip(sessions, paths, strict=True):
                if p.http is not None and not p.name.startswith("floor"):  # broker, mcp-proxy
                    await profile(s, p, opts)
    return paths


async def profile(s: ClientSession, p: Path_, opts: argparse.Namespace) -> None:
    """py-spy on an HTTP front while the client keeps `--concurrency` calls in flight."""
    spy = shutil.which("py-spy") or str(Path(PY).parent / "py-spy")
    if not Path(spy).exists():
        print("  (profile skipped: py-spy not found; `.venv/bin/pip install py-spy`)")
        return
    out = Path(opts.profile_http)
    out.mkdir(parents=True, exist_ok=True)
    # "active": every sample of a thread not idle in a syscall (py-spy's default); "gil": only
    # samples holding the GIL, i.e. Python work.
    for kind, extra in (("active", []), ("gil", ["--gil"])):
        raw = out / f"{p.name}-{kind}.txt"
        cmd = [
            spy,
            "record",
            "-p",
            str(p.pid),
            "-r",
            "500",
            "-d",
            str(opts.profile_seconds),
            "-f",
            "raw",
            "-o",
            str(raw),
            "--nonblocking",
            *extra,
        ]
        spy_proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # noqa: ASYNC220
        await asyncio.sleep(0.5)  # py-spy attached
        calls = 0
        c0 = _cpu_seconds(p.pid)
        t0 = time.monotonic()
        while spy_proc.poll() is None and time.monotonic() - t0 < opts.profile_seconds + 30:
            await in_flight(s, p, opts.concurrency, opts.per_task)
            calls += opts.concurrency * opts.per_task
        cpu = _cpu_seconds(p.pid) - c0
        _, err = spy_proc.communicate()
        if spy_proc.returncode != 0:
            print(f"  (py-spy failed: {err.decode()[-500:]})")
            continue
        seconds = time.monotonic() - t0
        line = (
            f"{p.name} {kind}: {calls} calls in {seconds:.1f} s ({calls / seconds:.0f}/s), "
            f"{cpu / max(calls, 1) * 1e3:.3f} ms CPU/call, py-spy at 500 Hz"
        )
        print(f"  profile {line}: {raw}")
        (out / f"{p.name}-{kind}-top.txt").write_text(
            line + "\n" + summarize(read_folded(raw), 40) + "\n"
        )


def _ratio(a: float, b: float) -> str:
    # --quick runs can measure 0 CPU ticks (10 ms resolution) or a negative added p50
    return f"{a / b:.2f}" if b > 0 else "n/a"


@dataclass
class Figures:
    """One path's figures against direct: added p50 (s), CPU per call (s), calls/s."""

    added: float
    cpu: float
    throughput: float


STDIO_PEER, HTTP_PEER = "fastmcp", "mcp-proxy"


def peer_of(name: str) -> str:
    """The peer a path is compared with: FastMCP's proxy for stdio, mcp-proxy for HTTP."""
    return HTTP_PEER if name.startswith(("broker-http", "floor")) else STDIO_PEER


def report(label: str, paths: list[Path_], concurrency: int) -> dict[str, Figures]:
    direct = paths[0]
    d50, d99 = statistics.median(direct.latencies), pct(direct.latencies, 99)
    print(f"\n## {label}  ({len(direct.latencies)} calls per path, interleaved)")
    print(
        f"{'path':<18} {'p50 ms':>8} {'p99 ms':>8} {'+p50 ms':>8} {'+p99 ms':>8} "
        f"{'calls/s@' + str(concurrency):>12} {'vs direct':>9} {'cpu ms/call':>11} {'cpu@' + str(concurrency):>8} "
        f"{'errors':>6}"
    )
    out: dict[str, Figures] = {}
    for p in paths:
        p50, p99 = statistics.median(p.latencies), pct(p.latencies, 99)
        out[p.name] = Figures(p50 - d50, p.cpu / len(p.latencies), p.throughput)
        tp_cpu = p.tp_cpu / p.tp_calls if p.tp_calls else 0.0
        print(
            f"{p.name:<18} {p50 * 1e3:8.2f} {p99 * 1e3:8.2f} {(p50 - d50) * 1e3:8.2f} "
            f"{(p99 - d99) * 1e3:8.2f} {p.throughput:12.0f} {p.throughput / direct.throughput:9.2f} "
            f"{out[p.name].cpu * 1e3:11.3f} {tp_cpu * 1e3:8.3f} {p.errors:6d}"
        )
    return out


def summary(results: dict[str, dict[str, Figures]], concurrency: int) -> None:
    """Every broker path against its peer, per downstream, from this one run."""
    print(
        f"\n## summary: each broker path / its peer in the same run "
        f"(stdio: {STDIO_PEER}, HTTP: {HTTP_PEER}); goal for HTTP <= 0.5, <= 0.5, >= 1"
    )
    print(
        f"{'downstream':<24} {'path':<20} {'peer':<10} {'added p50':>9} {'cpu/call':>9} "
        f"{'calls/s@' + str(concurrency):>11}"
    )
    for label, figs in results.items():
        for name, f in figs.items():
            if name in ("direct", STDIO_PEER, HTTP_PEER):
                continue
            peer = figs.get(peer_of(name))
            if peer is None:
                continue
            print(
                f"{label:<24} {name:<20} {peer_of(name):<10} {_ratio(f.added, peer.added):>9} "
                f"{_ratio(f.cpu, peer.cpu):>9} {_ratio(f.throughput, peer.throughput):>11}"
            )


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--calls", type=int, default=25)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--per-task", type=int, default=40)
    ap.add_argument(
        "--tp-rounds", type=int, default=3, help="interleaved throughput rounds (median)"
    )
    ap.add_argument("--quick", action="store_true", help="CI smoke: a few calls only")
    ap.add_argument(
        "--compare-src", help="also measure the broker from this source dir (PYTHONPATH)"
    )
    ap.add_argument(
        "--no-http", action="store_true", help="stdio paths only (no broker serve, no mcp-proxy)"
    )
    ap.add_argument(
        "--http-only",
        action="store_true",
        help="direct and the HTTP paths only (no stdio broker, no FastMCP)",
    )
    ap.add_argument(
        "--floor",
        action="store_true",
        help="add floor-canned and floor-forward: the least an HTTP front can add (no checks)",
    )
    ap.add_argument(
        "--targets",
        default="raw,everything,time",
        help="comma list of downstreams: raw (python echo), everything (server-everything), "
        "time (mcp-server-time: an outputSchema)",
    )
    ap.add_argument(
        "--profile-http", metavar="DIR", help="py-spy the HTTP fronts under load, into DIR"
    )
    ap.add_argument("--profile-seconds", type=int, default=20)
    ap.add_argument(
        "--message-chars",
        type=int,
        default=0,
        help="pad the echo's message with this many characters of plain prose (a call that "
        "carries text: every front audits, parses and returns it)",
    )
    opts = ap.parse_args()
    if opts.quick:
        opts.rounds, opts.calls, opts.per_task, opts.tp_rounds = 3, 5, 5, 1
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}")
    if opts.compare_src:
        print(f"broker@ref = the broker with PYTHONPATH={opts.compare_src}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        wanted = {t.strip() for t in opts.targets.split(",")}
        targets = []
        if "raw" in wanted:
            targets.append(Target("python-raw-echo", PY, [str(ECHO_SERVER)]))
        if "everything" in wanted:
            if EVERYTHING.exists():
                targets.append(Target("server-everything-echo", str(EVERYTHING), ["stdio"]))
            else:
                print(f"  (server-everything skipped: {EVERYTHING} not found; run `npm install`)")
        if "time" in wanted:
            # A real server whose tool declares an outputSchema (structured content).
            time_args = ["-m", "mcp_server_time", "--local-timezone", "UTC"]
            targets.append(Target("mcp-server-time", PY, time_args, "get_current_time", True))
        opts.first_label = targets[0].label if targets else ""
        if opts.message_chars:
            words = " the lazy dog reads src/files and writes notes"
            pad = (words * (opts.message_chars // len(words) + 1))[: opts.message_chars]
            for t in targets:
                t.pad = pad
            print(f"echo messages padded with {opts.message_chars} characters of prose")
        results = {}
        for target in targets:
            paths = await bench_target(target, opts, work)
            results[target.label] = report(target.label, paths, opts.concurrency)
        summary(results, opts.concurrency)
    print(f"\nload at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
