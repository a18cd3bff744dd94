"""Read-only roles judge tools by their servers' annotations, names only as a fallback, and the
default roles a first `broker add` writes pass `broker check` once the servers are listed
(issue 29, item 7).

Real servers: server-memory annotates every tool (`add_observations`: readOnlyHint false,
`read_graph`: readOnlyHint true); the tests' `slow` server annotates none, so its tools are
judged by name. The old default roles denied writes by name globs: `memory/add_observations` stayed
allowed to `plan`, and after `broker refresh` every glob no tool matched failed `broker check`.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from tests.broker.conftest import (
    NEURALGENTICS,
    PY,
    ROOT,
    SERVERS,
    audit_lines,
    cli,
    needs_node,
)

pytestmark = needs_node

MEMORY = ROOT / "node_modules" / ".bin" / "mcp-server-memory"


def _add_servers(home: Path) -> Path:
    config = home / "broker.yaml"
    r = cli("broker", "add", "memory", "--config", str(config), "--", str(MEMORY))
    assert r.returncode == 0, r.stderr
    assert "added default roles" in r.stdout
    r = cli("broker", "add", "slow", "--config", str(config), "--", PY, str(SERVERS / "slow.py"))
    assert r.returncode == 0, r.stderr
    return config


def test_the_default_roles_pass_broker_check_after_refresh_and_say_how_tools_were_judged(
    home: Path,
) -> None:
    config = _add_servers(home)
    os.environ["MEMORY_FILE_PATH"] = str(home / "memory.jsonl")
    try:
        r = cli("broker", "refresh", "--config", str(config))
    finally:
        os.environ.pop("MEMORY_FILE_PATH")
    assert r.returncode == 0, r.stderr
    check = cli("broker", "check", "--config", str(config))
    assert check.returncode == 0, check.stderr
    assert "error" not in check.stderr.lower()
    notes = [n for n in check.stderr.splitlines() if n.startswith("note: roles.plan (read-only)")]
    assert any("memory:" in n and "by annotations" in n and "add_observations" in n for n in notes)
    assert any("slow:" in n and "by name" in n for n in notes), notes

    shown = cli("broker", "role", "show", "plan", "--json", "--config", str(config))
    assert shown.returncode == 0, shown.stderr
    view = json.loads(shown.stdout)
    assert view["read_only"] is True and view["deny"] == []
    assert "add_observations" not in view["may_use"]["memory"]
    assert "read_graph" in view["may_use"]["memory"]
    assert view["judged"]["memory"]["add_observations"].startswith(
        "writes by annotations (readOnlyHint: false)"
    )
    assert view["judged"]["memory"]["read_graph"].startswith("read-only by annotations")
    assert view["judged"]["slow"]["pid"].startswith("read-only by name")
    build = json.loads(
        cli("broker", "role", "show", "build", "--json", "--config", str(config)).stdout
    )
    assert "add_observations" in build["may_use"]["memory"] and build["read_only"] is False


@contextlib.asynccontextmanager
async def _broker(config: Path, home: Path, role: str) -> AsyncIterator[ClientSession]:
    env = {
        **os.environ,
        "NEURALGENTICS_HOME": str(home / "home"),
        "NEURALGENTICS_CONFIG_DIR": str(home / "config"),
        "MEMORY_FILE_PATH": str(home / "memory.jsonl"),
    }
    params = StdioServerParameters(
        command=NEURALGENTICS,
        args=["broker", "stdio", "--config", str(config), "--role", role],
        env=env,
    )
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        yield s


def _call(server: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"server": server, "tool": tool, "arguments": arguments}


async def test_a_read_only_role_cannot_write_through_an_annotated_tool(home: Path) -> None:
    config = _add_servers(home)
    observation = {"observations": [{"entityName": "Ada", "contents": ["likes tea"]}]}
    async with _broker(config, home, "plan") as s:
        # The first call, before the server was ever listed, is decided by its annotations.
        with pytest.raises(
            MCPError, match=r"read_only: memory/add_observations writes by annotations"
        ):
            await s.call_tool("mcp_router_call", _call("memory", "add_observations", observation))
        out = await s.call_tool("mcp_router_call", _call("memory", "read_graph", {}))
        assert not out.is_error
        assert not (await s.call_tool("mcp_router_call", _call("slow", "pid", {}))).is_error
    denied = [r for r in audit_lines(home) if r["outcome"] == "denied"]
    assert [(r["role"], r["tool"]) for r in denied] == [("plan", "add_observations")]
    assert "readOnlyHint: false" in denied[0]["rule"]
