"""A real `neuralgentics broker serve` process and helpers to count what it holds."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import yaml
from support.token import owner_token

from reliability import loopback
from reliability.memini_proc import free_port

PY = sys.executable
NEURALGENTICS = str(Path(PY).parent / "neuralgentics")
PROBE = str(Path(__file__).parent / "servers" / "probe.py")
EVERYTHING = Path(__file__).resolve().parents[2] / "node_modules" / ".bin" / "mcp-server-everything"


def probe(*extra: str, **fields: Any) -> dict[str, Any]:
    return {"command": PY, "args": [PROBE, *extra], "summary": "probe server", **fields}


def time_server() -> dict[str, Any]:
    return {
        "command": PY,
        "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
        "summary": "time",
    }


def write_config(
    path: Path, servers: dict[str, Any], roles: dict[str, Any] | None = None, **extra: Any
) -> Path:
    path.write_text(
        yaml.safe_dump(
            {"servers": servers, "roles": roles or {"coder": {"allow": ["*"]}}, **extra},
            sort_keys=False,
        )
    )
    return path


def descendants(pid: int) -> set[int]:
    """Every live process below `pid` (from /proc, children of children included)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(entry))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in found:
                found.add(c)
                todo.append(c)
    return found


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


# base URL -> the owner token of the broker serving there
TOKENS: dict[str, str] = {}


def owner(base: str, **headers: str) -> dict[str, str]:
    """Headers with the owner's bearer token for the broker at `base`, plus `headers`."""
    return {"Authorization": f"Bearer {TOKENS[base]}", **headers}


def mcp_session(base: str, headers: dict[str, str]) -> dict[str, str]:
    """`headers` (with the MCP content types) plus the Mcp-Session-Id of a session opened on
    /mcp the way a streamable-HTTP client does: initialize, then notifications/initialized."""
    h = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    h |= headers
    init = loopback.post(
        base + "/mcp",
        headers=h,
        timeout=30,
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
    )
    assert init.status_code == 200, init.text
    h["Mcp-Session-Id"] = init.headers["mcp-session-id"]
    loopback.post(
        base + "/mcp",
        headers=h,
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        timeout=30,
    )
    return h


@contextlib.contextmanager
def serving(
    config: Path, home: Path, env_extra: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEURALGENTICS_")}
    env |= {
        "NEURALGENTICS_HOME": str(home / "home"),
        "NEURALGENTICS_CONFIG_DIR": str(home / "config"),
    }
    env |= env_extra or {}
    proc = subprocess.Popen(
        [NEURALGENTICS, "broker", "serve", "--config", str(config), "--port", str(port)],
        env=env,
        start_new_session=True,
        stdout=(home / "broker.out").open("wb"),
        stderr=(home / "broker.log").open("wb"),
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (home / "broker.log").read_text()[-2000:]
            try:
                if loopback.get(base + "/health", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "broker did not come up"
            time.sleep(0.05)
        # NEURALGENTICS_TOKEN when the test set one; else the file the broker created.
        TOKENS[base] = env.get("NEURALGENTICS_TOKEN") or owner_token(home / "config")
        yield base, proc
    finally:
        kids = descendants(proc.pid)
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
        for pid in kids:  # never leave a downstream behind, whatever the test did
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
