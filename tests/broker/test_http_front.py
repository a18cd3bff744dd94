"""`neuralgentics broker serve`: streamable HTTP at /mcp for MCP clients, REST for native ones."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import mcp.types as types
import pytest
import yaml
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from support.token import owner_token

from neuralgentics.broker.config import load_config
from tests.broker.conftest import (
    NEURALGENTICS,
    ROOT,
    base_config,
    free_port,
    needs_node,
    pid_alive,
    slow_server,
    stop,
    time_server,
    wait_port,
)

# base URL -> the owner token its broker created in its config dir
_TOKENS: dict[str, str] = {}


def auth(base: str, **extra: str) -> dict[str, str]:
    """The owner's bearer header for the broker at `base` (every route but /health needs it)."""
    return {"Authorization": f"Bearer {_TOKENS[base]}", **extra}


@contextlib.contextmanager
def serve(config: Path, home: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    port = free_port()
    env = {
        **os.environ,
        "NEURALGENTICS_HOME": str(home / "home"),
        "NEURALGENTICS_CONFIG_DIR": str(home / "config"),
    }
    env.pop("NEURALGENTICS_TOKEN", None)
    proc = subprocess.Popen(
        [NEURALGENTICS, "broker", "serve", "--config", str(config), "--port", str(port)],
        env=env,
        start_new_session=True,
        stderr=(home / "serve.log").open("wb"),
    )
    try:
        wait_port(port, timeout=30, proc=proc)
        base = f"http://127.0.0.1:{port}"
        _TOKENS[base] = owner_token(home / "config")
        yield base, proc
    finally:
        stop(proc)


@pytest.fixture
def config(write_config) -> Path:
    return write_config(base_config(time=time_server(), slow=slow_server()))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """One `broker serve` (servers time and slow) for the tests that change nothing on it:
    (base URL, its home)."""
    home = tmp_path_factory.mktemp("http-front")
    config = home / "broker.yaml"
    config.write_text(yaml.safe_dump(base_config(time=time_server(), slow=slow_server())))
    with serve(config, home) as (base, _):
        yield base, home


def text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


@contextlib.asynccontextmanager
async def mcp_session(base: str, role: str) -> AsyncIterator[ClientSession]:
    """An initialized MCP client session over streamable HTTP, as the owner, asking for `role`."""
    async with (
        httpx2.AsyncClient(
            headers=auth(base, **{"X-Neuralgentics-Role": role}), timeout=60
        ) as http,
        streamable_http_client(base + "/mcp", http_client=http) as (r, w),
        ClientSession(r, w) as s,
    ):
        await s.initialize()
        yield s


async def test_mcp_clients_over_streamable_http_share_warm_servers(
    served: tuple[str, Path],
) -> None:
    base, home = served
    pids = set()
    for role in ("coder", "coder"):
        async with mcp_session(base, role) as s:
            assert [t.name for t in (await s.list_tools()).tools] == [
                "get_tool_list",
                "mcp_router_call",
                "describe_tool",
                "find_tool",
            ]
            assert "slow:" in text(await s.call_tool("get_tool_list", {}))
            pids.add(text(await s.call_tool("mcp_router_call", {"server": "slow", "tool": "pid"})))
    assert len(pids) == 1  # the second client reused the first one's warm server

    # A caller that gives up cancels the downstream call too (nothing left in flight).
    async with mcp_session(base, "coder") as s:
        with anyio.move_on_after(1.0):
            await s.call_tool(
                "mcp_router_call",
                {"server": "slow", "tool": "wait", "arguments": {"seconds": 30}},
            )
        async with httpx2.AsyncClient(base_url=base, headers=auth(base)) as rest:
            with anyio.fail_after(10):
                while True:
                    servers = (await rest.get("/servers")).json()
                    slow = next(x for x in servers if x["name"] == "slow")
                    if slow["inflight"] == 0:
                        break
                    await anyio.sleep(0.1)
    audit = (home / "home" / "broker" / "audit.jsonl").read_text()
    assert '"tool":"wait","outcome":"cancelled"' in audit
    async with mcp_session(base, "reviewer") as s:
        with pytest.raises(MCPError) as exc:
            await s.call_tool("mcp_router_call", {"server": "slow", "tool": "pid"})
        assert (
            exc.value.code == -32003 and "no pattern in roles.reviewer.allow" in exc.value.message
        )


def test_rest_routes(write_config, home: Path) -> None:
    config = write_config(base_config(time=time_server(), slow=slow_server(), unused=slow_server()))
    with (
        serve(config, home) as (base, _),
        httpx.Client(base_url=base, timeout=30, headers=auth(base)) as c,
    ):
        assert c.get("/health").json()["status"] == "ok"
        coder = {"X-Neuralgentics-Role": "coder"}
        # DNS-rebinding protection on REST as on /mcp: only loopback Host names are served.
        assert c.get("/tools", headers={**coder, "Host": "evil.example"}).status_code == 421
        tools = c.get("/tools", headers=coder).json()
        assert {t["name"] for t in tools["servers"]["time"]["tools"]} == {
            "get_current_time",
            "convert_time",
        }
        assert tools["servers"]["time"]["summary"].startswith("Current time")
        reviewer = c.get("/tools", headers={"X-Neuralgentics-Role": "reviewer"}).json()
        assert [t["name"] for t in reviewer["servers"]["time"]["tools"]] == ["get_current_time"]

        r = c.post(
            "/call",
            headers={**coder, "X-Neuralgentics-Session": "opencode-s1"},
            json={"server": "time", "tool": "get_current_time", "arguments": {"timezone": "UTC"}},
        )
        assert r.status_code == 200 and r.json()["structuredContent"]["timezone"] == "UTC"

        r = c.post(
            "/call",
            headers={"X-Neuralgentics-Role": "reviewer"},
            json={"server": "time", "tool": "convert_time", "arguments": {}},
        )
        assert r.status_code == 403 and "roles.reviewer.allow" in r.json()["error"]["rule"]
        r = c.post("/call", headers=coder, json={"server": "time"})
        assert r.status_code == 422 and "tool" in r.text
        r = c.post("/call", headers=coder, json={"server": "time", "tool": "nope"})
        assert r.status_code == 404 and "has no tool 'nope'" in r.json()["error"]["message"]
        r = c.post(
            "/call",
            headers=coder,
            json={"server": "time", "tool": "get_current_time", "arguments": {"timezone": 5}},
        )
        assert (
            r.status_code == 400
            and "timezone: 5 is not of type 'string'" in r.json()["error"]["message"]
        )

        servers = {s["name"]: s for s in c.get("/servers").json()}
        assert servers["time"]["state"] == "warm" and servers["time"]["pid"]
        assert (
            servers["slow"]["state"] == "warm" and servers["slow"]["tools"] == 11
        )  # listed for /tools
        assert (
            servers["unused"]["state"] == "cold" and servers["unused"]["pid"] is None
        )  # no role sees it

        # Register and unregister on the running broker; the file follows; bad entries change nothing.
        before = config.read_text()
        r = c.post("/servers", json={"name": "broken", "transport": "sse"})
        assert (
            r.status_code == 400 and "transport 'sse' needs 'url'" in r.json()["error"]["message"]
        )
        assert config.read_text() == before
        r = c.post("/servers", json={"name": "slow2", **slow_server()})
        assert r.status_code == 201
        assert "slow2" in load_config(config).servers
        assert "slow2" in {s["name"] for s in c.get("/servers").json()}
        assert c.delete("/servers/slow2").status_code == 200
        assert "slow2" not in load_config(config).servers
        assert c.delete("/servers/slow2").status_code == 404

        audit = (home / "home" / "broker" / "audit.jsonl").read_text()
        assert '"session_id":"opencode-s1"' in audit and '"front":"rest"' in audit


def test_malformed_json_rpc_gets_an_error_and_the_broker_survives(
    served: tuple[str, Path],
) -> None:
    base, _ = served
    with httpx.Client(base_url=base, timeout=30, headers=auth(base)) as c:
        h = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        r = c.post("/mcp", content=b"{not json", headers=h)
        assert r.status_code == 400 and "Parse error" in r.text
        r = c.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": 42}, headers=h)
        assert r.status_code >= 400
        assert c.get("/health").status_code == 200


def _pid_of_slow(base: str) -> int:
    r = httpx.post(
        base + "/call",
        headers=auth(base, **{"X-Neuralgentics-Role": "coder"}),
        json={"server": "slow", "tool": "pid"},
        timeout=30,
    )
    return int(r.json()["content"][0]["text"])


def _wait_dead(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_sighup_reload_and_no_orphans_on_sigterm(config: Path, home: Path) -> None:
    with serve(config, home) as (base, proc):
        pid = _pid_of_slow(base)
        data: dict[str, Any] = yaml.safe_load(config.read_text())
        data["servers"]["extra"] = time_server()
        config.write_text(yaml.safe_dump(data))
        os.kill(proc.pid, signal.SIGHUP)
        deadline = time.monotonic() + 10
        while "extra" not in {
            s["name"] for s in httpx.get(base + "/servers", headers=auth(base)).json()
        }:
            assert time.monotonic() < deadline, "SIGHUP did not reload the config"
            time.sleep(0.1)
        assert _pid_of_slow(base) == pid  # unchanged server kept its process
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(20)
        assert _wait_dead(pid)


def test_no_orphans_when_the_broker_is_killed(config: Path, home: Path) -> None:
    with serve(config, home) as (base, proc):
        pid = _pid_of_slow(base)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        assert _wait_dead(pid)


# What the broker can pass: the suite's other scenarios call its fixture tools, resources and
# prompts by name on the server under test; the broker exposes only its meta-tools.
CONFORMANCE_EXPECTED = {
    "server-initialize",
    "ping",
    "tools-list",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
}


@needs_node
def test_mcp_conformance_suite(served: tuple[str, Path]) -> None:
    from reliability.asgi_server import serving

    from tests.broker.auth_proxy import auth_proxy

    suite = ROOT / "node_modules" / ".bin" / "conformance"
    # The suite sends no credentials: a proxy adds the owner token and changes nothing else
    # (the DNS-rebinding scenario's Host reaches the broker as sent).
    base, _ = served
    with serving(auth_proxy(base, _TOKENS[base])) as proxied:
        out = subprocess.run(
            [str(suite), "server", "--url", f"{proxied}/mcp"],
            capture_output=True,
            text=True,
            timeout=300,
        ).stdout
    passed = {m[1] for m in re.finditer(r"^✓ ([\w-]+): \d+ passed, 0 failed", out, re.MULTILINE)}
    assert CONFORMANCE_EXPECTED <= passed, out[-3000:]
