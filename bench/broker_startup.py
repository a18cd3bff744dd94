"""`broker stdio` start-up: spawn to the answer of initialize + tools/list, against FastMCP.

    .venv/bin/python bench/broker_startup.py [--repeats 5] [--profile DIR] [--compare-src DIR]
                                             [--paths NAME,NAME…]

OpenCode starts the stdio broker in every session, and waits for `initialize` and
`tools/list` before the agent can use it. Measured, interleaved (each repeat runs every
path once, in an order reversed every other repeat), from spawning the process to the
answer of `tools/list` after `initialize` + `notifications/initialized`:

  echo alone        the raw Python echo server itself (the floor of a Python process)
  broker            `neuralgentics broker stdio` with three servers configured (raw echo,
                    mcp-server-time, server-everything when npm installed it), their tool
                    lists cached on disk by an earlier run (the usual case: servers start on
                    first use, the catalog comes from the cache) and so are the last
                    start's answers: initialize and tools/list are answered before the SDK
                    has loaded (broker/server/stdio_prelude.py)
  broker (SDK path) the same without the last start's answers (stdio-answers.json removed
                    before each start): the MCP SDK is imported before anything is answered
  broker (no cache) the same with an empty home (the first start in a home): no server
                    was ever listed, `initialize` names them without their tools and the
                    servers start once `tools/list` is answered (before issue 31 item 3's
                    third round: the catalog waited for them, at most `catalog.list_wait`)
  broker (2nd start) the start after the first one in an empty home, which was kept open
                    until its servers had listed in the background (what a user's second
                    session meets: since issue 31 item 3's third round the first start
                    records the answers the next start gives, with the servers' tools)
  serve             `neuralgentics broker serve` (the HTTP front) on the "broker" path's
                    config, its home's catalog cached: spawn, connect as soon as the port
                    accepts, initialize + notifications/initialized + tools/list at /mcp
  serve (no cache)  the same with an empty home (its first start)
  fastmcp           FastMCP 4 `create_proxy` over the same three servers (own venv,
                    FASTMCP_PYTHON; skipped if absent)

`--paths` runs only the named paths (e.g. `--paths "broker,broker (SDK path),broker (no cache)"`:
the stdio starts alone). `--compare-src DIR` adds "broker@ref": the same start with another checkout's package
(`git archive <ref> src/neuralgentics | tar -x -C /tmp/before`, then `/tmp/before/src`).
"cpu s" is the CPU time of the process and what it started, until it exited (steadier than
wall time on a busy machine); "cpu@answer" the same when the tools/list answer was read (the
process tree's utime+stime from /proc): what the client waits for, when a start answers
before it has finished loading (broker/server/stdio_prelude.py). Prints the median and min per path and the ratios. `--profile DIR`: one more broker
start under pyinstrument (its HTML and text into DIR) and `-X importtime` (top imports).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import resource
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
NEURALGENTICS = str(Path(PY).parent / "neuralgentics")
ECHO_SERVER = ROOT / "bench" / "broker_echo_server.py"
EVERYTHING = ROOT / "node_modules" / ".bin" / "mcp-server-everything"
FASTMCP_PY = Path(os.environ.get("FASTMCP_PYTHON", "/work/venvs/fastmcp/bin/python"))
PYINSTRUMENT = Path(os.environ.get("PYINSTRUMENT", "/work/venvs/tools/bin/pyinstrument"))

FASTMCP_PROXY = """
import json, sys
from fastmcp.server import create_proxy
create_proxy({"mcpServers": json.loads(sys.argv[1])}, name="fastmcp-proxy").run(show_banner=False)
"""

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "startup-bench", "version": "1"},
    },
}


@dataclass
class Path_:
    name: str
    argv: list[str]
    env: dict[str, str]
    fresh_home: Path | None = None  # emptied before every start
    drop: Path | None = None  # a file removed before every start
    seconds: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # CPU seconds of the process tree
    cpu_answer: list[float] = field(default_factory=list)  # ... when tools/list was answered
    http_token: str | None = None  # a `broker serve`: asked over streamable HTTP at /mcp
    prime: bool = False  # a first start (kept open until its servers listed) before each


def servers() -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {
        "echo": {"command": PY, "args": [str(ECHO_SERVER)]},
        "time": {"command": PY, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]},
    }
    if EVERYTHING.exists():
        out["everything"] = {"command": str(EVERYTHING), "args": ["stdio"]}
    return out


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


_TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu(root: int) -> float:
    """utime+stime of a live process and its live descendants (from /proc), in seconds."""
    parent: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        parent[int(d)] = int(fields[1])
        ticks[int(d)] = int(fields[11]) + int(fields[12])
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, pp in parent.items() if pp in tree} - tree
        grew = bool(more)
        tree |= more
    return sum(ticks.get(pid, 0) for pid in tree) / _TICK


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _post(port: int, headers: dict[str, str], msg: dict[str, object]) -> tuple[str, object]:
    """One POST to /mcp: the session id it names and the JSON-RPC answer (JSON or SSE)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("POST", "/mcp", json.dumps(msg).encode(), headers)
    r = conn.getresponse()
    body = r.read().decode()
    conn.close()
    if r.status >= 400:
        raise RuntimeError(f"POST /mcp: {r.status} {body[:300]}")
    answer: object = None
    if r.getheader("content-type", "").startswith("text/event-stream"):
        for line in body.splitlines():
            if line.startswith("data:") and '"id"' in line:
                answer = json.loads(line[5:])
    elif body:
        answer = json.loads(body)
    return r.getheader("mcp-session-id") or "", answer


def start_http_once(p: Path_) -> tuple[float, float, float, int]:
    """As start_once, for `broker serve`: spawn, connect as soon as the port accepts, then
    initialize + notifications/initialized + tools/list over streamable HTTP."""
    port = _free_port()
    argv = [*p.argv, "--port", str(port)]
    c0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, env=p.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:  # the port accepts once uvicorn has started (after the lifespan)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.perf_counter() - t0 > 120:
                    raise RuntimeError(f"{argv} did not start") from None
                time.sleep(0.005)
        headers = {
            "Authorization": f"Bearer {p.http_token}",
            "X-Neuralgentics-Role": "bench",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        sid, _ = _post(port, headers, INIT)
        headers |= {"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-06-18"}
        _post(port, headers, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _, listed = _post(port, headers, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        dt = time.perf_counter() - t0
        at_answer = tree_cpu(proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert isinstance(listed, dict), listed
    return dt, _children_cpu() - c0, at_answer, len(listed["result"]["tools"])


def _initialize_and_list(proc: subprocess.Popen[bytes]) -> dict[str, object]:
    """Send initialize, wait for its answer, then initialized + tools/list: the tools/list answer."""
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(INIT).encode() + b"\n")
    proc.stdin.flush()
    _answer(proc, 0)
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    proc.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n')
    proc.stdin.flush()
    return _answer(proc, 1)


def start_once(p: Path_) -> tuple[float, float, float, int]:
    """Seconds from spawn to the tools/list answer, CPU seconds of the process (and what it
    started) then and until it exited, the number of tools listed."""
    if p.fresh_home is not None:
        shutil.rmtree(p.fresh_home, ignore_errors=True)
    if p.drop is not None:
        p.drop.unlink(missing_ok=True)
    if p.prime:
        prime(p)
    if p.http_token is not None:
        return start_http_once(p)
    c0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        p.argv,
        env=p.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        listed = _initialize_and_list(proc)
        dt = time.perf_counter() - t0
        at_answer = tree_cpu(proc.pid)
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return dt, _children_cpu() - c0, at_answer, len(listed["result"]["tools"])


def prime(p: Path_) -> None:
    """A first start in ``p``'s (empty) home: initialize + tools/list, then kept open until
    every server's tools are cached and the answers file holds no "tools not listed yet"."""
    assert p.fresh_home is not None
    home = p.fresh_home / "home" / "broker"
    proc = subprocess.Popen(
        p.argv, env=p.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None
    try:
        _initialize_and_list(proc)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            tools = list((home / "tools").glob("*.json")) if (home / "tools").is_dir() else []
            try:
                answers = (home / "stdio-answers.json").read_text()
            except OSError:
                answers = ""
            if len(tools) == len(servers()) and "tools not listed yet" not in answers:
                break
            time.sleep(0.05)
        else:
            print("  (prime: the first start's servers did not all list within 120 s)")
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


def _answer(proc: subprocess.Popen[bytes], rid: int) -> dict[str, object]:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{proc.args} closed stdout before answering {rid}")
        msg = json.loads(line)
        if msg.get("id") == rid:
            if "error" in msg:
                raise RuntimeError(f"{proc.args}: {msg['error']}")
            return msg


def build(work: Path, compare_src: str | None) -> list[Path_]:
    cfg = {
        "servers": servers(),
        "roles": {"bench": {"allow": [f"{n}/*" for n in servers()]}},
    }
    config = work / "broker.yaml"
    config.write_text(yaml.safe_dump(cfg))

    def env_for(home: Path) -> dict[str, str]:
        return {
            **os.environ,
            "NEURALGENTICS_HOME": str(home / "home"),
            "NEURALGENTICS_CONFIG_DIR": str(home / "config"),
        }

    argv = [NEURALGENTICS, "broker", "stdio", "--config", str(config), "--role", "bench"]
    paths = [
        Path_("echo alone", [PY, str(ECHO_SERVER)], dict(os.environ)),
        Path_("broker", argv, env_for(work / "cached")),
        # the catalog cached, the last start's answers not: the SDK answers, as before
        Path_(
            "broker (SDK path)",
            argv,
            env_for(work / "sdk"),
            drop=work / "sdk" / "home" / "broker" / "stdio-answers.json",
        ),
        Path_("broker (no cache)", argv, env_for(work / "fresh"), fresh_home=work / "fresh"),
        Path_(
            "broker (2nd start)",
            argv,
            env_for(work / "second"),
            fresh_home=work / "second",
            prime=True,
        ),
    ]
    # The HTTP front: `broker serve`, its home's catalog cached (by a stdio start, below),
    # and the same with an empty home (the first start).
    serve = [NEURALGENTICS, "broker", "serve", "--config", str(config)]
    token = secrets.token_urlsafe(24)
    for name, home, fresh in (("serve", "served", None), ("serve (no cache)", "served-fresh", 1)):
        env = {**env_for(work / home), "NEURALGENTICS_TOKEN": token}
        paths.append(
            Path_(name, serve, env, fresh_home=work / home if fresh else None, http_token=token)
        )
    if compare_src:
        ref = {**env_for(work / "cached-ref"), "PYTHONPATH": str(Path(compare_src).resolve())}
        paths.append(Path_("broker@ref", argv, ref))
    if FASTMCP_PY.exists():
        script = work / "fastmcp_proxy.py"
        script.write_text(FASTMCP_PROXY)
        paths.append(
            Path_(
                "fastmcp", [str(FASTMCP_PY), str(script), json.dumps(servers())], dict(os.environ)
            )
        )
    else:
        print(f"  (fastmcp skipped: {FASTMCP_PY} not found)")
    return paths


def argv_of(paths: list[Path_]) -> list[str]:
    """`broker stdio --config …` without the role (the command of the "broker" path)."""
    argv = next(p.argv for p in paths if p.name == "broker")
    return argv[: argv.index("--role")]


def fill_cache(p: Path_, starts: int = 2) -> None:
    """Starts that list every server (the catalog meta-tool), so their lists are on disk; the
    second answers initialize + tools/list from them and records its answers (a first start
    answers before its servers list: its answers are recorded under inputs without them)."""
    for _ in range(starts):
        proc = subprocess.Popen(
            p.argv,
            env=p.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(INIT).encode() + b"\n")
        proc.stdin.flush()
        _answer(proc, 0)
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        proc.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n')
        call = {"name": "get_tool_list", "arguments": {}}
        proc.stdin.write(
            json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}).encode()
            + b"\n"
        )
        proc.stdin.flush()
        _answer(proc, 2)
        proc.stdin.close()
        proc.wait(timeout=30)


def profile(p: Path_, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    imports = out / "importtime.txt"
    argv = [PY, "-X", "importtime", NEURALGENTICS, *p.argv[1:]]
    with imports.open("wb") as err:
        subprocess.run(
            argv,
            env=p.env,
            input=json.dumps(INIT).encode() + b"\n",
            stdout=subprocess.DEVNULL,
            stderr=err,
            timeout=60,
            check=False,
        )
    rows = []
    for line in imports.read_text().splitlines():
        if line.startswith("import time:") and "|" in line:
            parts = [x.strip() for x in line.removeprefix("import time:").split("|")]
            if parts[0].isdigit():
                rows.append((int(parts[1]), parts[2]))
    print("  top imports (cumulative µs):")
    for us, name in sorted(rows, reverse=True)[:25]:
        print(f"    {us:>9} {name}")
    if PYINSTRUMENT.exists():
        html = out / "startup.html"
        text = out / "startup.txt"
        argv = [str(PYINSTRUMENT), "-o", str(text), "-r", "text", NEURALGENTICS, *p.argv[1:]]
        subprocess.run(
            argv,
            env=p.env,
            input=json.dumps(INIT).encode() + b"\n",
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )
        subprocess.run(
            [str(PYINSTRUMENT), "--load-prev", "-r", "html", "-o", str(html)],
            capture_output=True,
            check=False,
        )
        print(f"  pyinstrument: {text}")
    else:
        print(f"  (pyinstrument skipped: {PYINSTRUMENT} not found)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--profile", metavar="DIR")
    ap.add_argument(
        "--compare-src",
        help="also start the broker from this source dir (PYTHONPATH) as broker@ref",
    )
    ap.add_argument("--paths", help="comma-separated path names to run (default: all)")
    opts = ap.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        paths = build(work, opts.compare_src)
        stdio_argv = argv_of(paths)
        if opts.paths:
            wanted = {n.strip() for n in opts.paths.split(",")}
            unknown = wanted - {p.name for p in paths}
            if unknown:
                ap.error(f"--paths: no path named {', '.join(sorted(unknown))}")
            paths = [p for p in paths if p.name in wanted]
        for p in paths:
            if p.name in ("broker", "broker (SDK path)", "broker@ref"):
                fill_cache(p)
            if p.name == "serve":  # the same home's catalog, listed by a stdio start
                fill_cache(Path_("fill", [*stdio_argv, "--role", "bench"], p.env))
        tools: dict[str, int] = {}
        for rep in range(opts.repeats):
            order = paths if rep % 2 == 0 else paths[::-1]
            for p in order:
                dt, cpu, at_answer, n = start_once(p)
                p.seconds.append(dt)
                p.cpu.append(cpu)
                p.cpu_answer.append(at_answer)
                tools[p.name] = n
        print(f"\n## initialize + tools/list from spawn ({opts.repeats} interleaved repeats)")
        print(
            f"{'path':<20} {'median s':>9} {'min s':>7} {'cpu@answer':>10} {'cpu s':>7} "
            f"{'tools':>6}"
        )
        for p in paths:
            print(
                f"{p.name:<20} {statistics.median(p.seconds):9.3f} {min(p.seconds):7.3f} "
                f"{statistics.median(p.cpu_answer):10.3f} {statistics.median(p.cpu):7.3f} "
                f"{tools[p.name]:>6}"
            )
        by = {p.name: statistics.median(p.seconds) for p in paths}
        cpu = {p.name: statistics.median(p.cpu) for p in paths}
        at = {p.name: statistics.median(p.cpu_answer) for p in paths}
        for peer in ("fastmcp", "broker@ref", "broker (SDK path)"):
            if peer in by:
                for name in (
                    "broker",
                    "broker (SDK path)",
                    "broker (no cache)",
                    "broker (2nd start)",
                    "serve",
                ):
                    if name == peer or name not in by:
                        continue
                    print(
                        f"{name} / {peer}: wall {by[name] / by[peer]:.2f}, "
                        f"cpu@answer {at[name] / at[peer]:.2f}, cpu {cpu[name] / cpu[peer]:.2f}"
                    )
        if opts.profile:
            cached = next((p for p in paths if p.name == "broker"), None)
            if cached is None:
                print('  (--profile profiles the "broker" path: not among --paths)')
            else:
                profile(cached, Path(opts.profile))
    print(f"load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
