"""Fixtures for broker tests: temp home/config, real downstream MCP servers."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.parts import missing
from support.ports import free_port
from support.servers import python_server, time_server  # noqa: F401 (the broker tests import them from here)

from neuralgentics.config import get_settings

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
BIN = Path(PY).parent
NEURALGENTICS = str(BIN / "neuralgentics")
EVERYTHING = ROOT / "node_modules" / ".bin" / "mcp-server-everything"
FILESYSTEM = ROOT / "node_modules" / ".bin" / "mcp-server-filesystem"
SERVERS = Path(__file__).parent / "servers"

NPM_MISSING = "npm test servers missing: run `npm install` in the repo root"
# a test against the npm MCP servers: skipped without them, failed under CI (tests/support/parts.py)
needs_node = pytest.mark.usefixtures("npm_servers")


@pytest.fixture
def npm_servers() -> None:
    if not EVERYTHING.exists():
        missing(NPM_MISSING)


def wait_port(port: int, timeout: float = 20.0, proc: subprocess.Popen[Any] | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before listening on {port}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listening on 127.0.0.1:{port} after {timeout} s")


def stop(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def everything_stdio() -> dict[str, Any]:
    return {"command": str(EVERYTHING), "args": ["stdio"], "summary": "MCP feature test server"}


def slow_server() -> dict[str, Any]:
    return {
        "command": PY,
        "args": [str(SERVERS / "slow.py")],
        "summary": "answers slowly or never",
        "call_timeout": 2,
    }


async def no_progress(progress: float, total: float | None, message: str | None) -> None:
    """A progress callback: a call that has one goes through the SDK session, not DirectCalls."""


def router(server: str, tool: str, arguments: Any = None, **extra: Any) -> dict[str, Any]:
    """A ``tools/call`` of the router meta-tool (``extra``: more router arguments)."""
    args: dict[str, Any] = {"server": server, "tool": tool, **extra}
    if arguments is not None:
        args["arguments"] = arguments
    return {"name": "mcp_router_call", "arguments": args}


def same_answer_cases() -> list[dict[str, Any]]:
    """``tools/call`` params a front's fast path must answer exactly as the SDK path does
    (with base_config's coder role, servers everything and slow)."""
    return [
        router("everything", "echo", {"message": "héllo"}),  # ok, non-ASCII text
        router("everything", "get-tiny-image"),  # text + image content
        router("everything", "get-env"),  # not allowed for coder
        router("everything", "echo", {"message": 42}),  # arguments do not match the schema
        router("nowhere", "echo", {}),  # unknown server
        router("everything", "echo", {"message": "x"}, extra_arg=1),  # unknown router argument
        {
            "name": "mcp_router_call",
            "arguments": {"server": "everything", "tool": "echo", "arguments": [1]},
        },
        router("slow", "pid"),
        # an outputSchema: structured content that does not match it, or none
        router("slow", "typed_bad"),
        router("slow", "typed_missing"),
    ]


def audit_lines(home: Path) -> list[dict[str, Any]]:
    """The broker's audit records under the test home (none yet: empty)."""
    p = home / "home" / "broker" / "audit.jsonl"
    return [json.loads(x) for x in p.read_text().splitlines()] if p.exists() else []


def base_config(**servers: dict[str, Any]) -> dict[str, Any]:
    return {
        "servers": servers or {"time": time_server()},
        "roles": {
            "coder": {
                "allow": [
                    "time/*",
                    "everything/echo",
                    "everything/get-tiny-image",
                    "everything/trigger-long-running-operation",
                    "slow/*",
                    "fs/*",
                    "git/*",
                    "http/*",
                    "sse/*",
                ]
            },
            "reviewer": {"allow": ["time/get_current_time"], "deny": ["everything/*"]},
        },
    }


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("NEURALGENTICS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("NEURALGENTICS_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("NEURALGENTICS_TOKEN", raising=False)
    monkeypatch.delenv("EGRESS_GATEWAY_URL", raising=False)
    # `broker add/remove` nudge a broker on this port to reload: never a real one.
    monkeypatch.setenv("NEURALGENTICS_BROKER_PORT", str(free_port()))
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


@pytest.fixture
def write_config(home: Path):
    def write(data: dict[str, Any], name: str = "broker.yaml") -> Path:
        p = home / name
        p.write_text(yaml.safe_dump(data, sort_keys=False))
        return p

    return write


@contextlib.contextmanager
def everything_served(mode: str) -> Iterator[str]:
    """server-everything over HTTP (``streamableHttp`` or ``sse``) on a free port, stopped
    after; yields its base URL."""
    port = free_port()
    proc = subprocess.Popen(
        [str(EVERYTHING), mode],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_port(port, proc=proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


@pytest.fixture(scope="session")
def everything_http() -> Iterator[str]:
    """server-everything over streamable HTTP; yields its /mcp URL."""
    if not EVERYTHING.exists():
        missing(NPM_MISSING)
    with everything_served("streamableHttp") as base:
        yield base + "/mcp"


@pytest.fixture(scope="session")
def everything_sse() -> Iterator[str]:
    """server-everything over SSE; yields its /sse URL."""
    if not EVERYTHING.exists():
        missing(NPM_MISSING)
    with everything_served("sse") as base:
        yield base + "/sse"


def refresh(config: Path, home: Path) -> None:
    """`neuralgentics broker refresh` (what `broker add` runs): every server of ``config``
    started and listed, their lists in ``home``'s cache, as a home's first start leaves them."""
    env = {
        **os.environ,
        "NEURALGENTICS_HOME": str(home / "home"),
        "NEURALGENTICS_CONFIG_DIR": str(home / "config"),
    }
    run = subprocess.run(
        [NEURALGENTICS, "broker", "refresh", "--config", str(config)],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stderr


class CliResult:
    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def cli(*args: str) -> CliResult:
    """Run `neuralgentics ARGS…` in-process (the same Typer app the console script runs: with
    only the area that owns the command, as `main()` builds it — the whole app took typer a
    quarter of a second to convert on every call)."""
    from support.cli import invoke

    from neuralgentics.cli import build_app

    r = invoke(build_app(args[0] if args else None), list(args))
    return CliResult(r.exit_code, r.stdout, r.stderr)
