"""`neuralgentics broker stdio` through a real MCP client (the SDK's ClientSession)."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import mcp.types as types
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from tests.broker.conftest import (
    NEURALGENTICS,
    audit_lines,
    base_config,
    everything_stdio,
    needs_node,
    refresh,
    time_server,
)

pytestmark = needs_node


@contextlib.asynccontextmanager
async def broker_stdio(
    config: Path, home: Path, role: str | None, extra: list[str] | None = None
) -> AsyncIterator[ClientSession]:
    args = ["broker", "stdio", "--config", str(config)] + (["--role", role] if role else [])
    args += extra or []
    env = {
        **os.environ,
        "NEURALGENTICS_HOME": str(home / "home"),
        "NEURALGENTICS_CONFIG_DIR": str(home / "config"),
    }
    params = StdioServerParameters(command=NEURALGENTICS, args=args, env=env)
    async with stdio_client(params) as (r, w), ClientSession(r, w) as session:
        await session.initialize()
        yield session


def text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


@pytest.fixture
def config(write_config) -> Path:
    return write_config(base_config(time=time_server(), everything=everything_stdio()))


async def test_meta_tools_catalog_and_calls(config: Path, home: Path) -> None:
    async with broker_stdio(config, home, "coder") as s:
        tools = (await s.list_tools()).tools
        assert [t.name for t in tools] == [
            "get_tool_list",
            "mcp_router_call",
            "describe_tool",
            "find_tool",
        ]
        assert (
            len(json.dumps([t.model_dump(mode="json") for t in tools])) < 2500
        )  # small, not 8k tokens

        catalog = text(await s.call_tool("get_tool_list", {}))
        assert "time:" in catalog and "get_current_time" in catalog and "echo" in catalog
        assert "get-env" not in catalog  # not allowed for coder: not shown

        described = json.loads(
            text(await s.call_tool("describe_tool", {"server": "everything", "tool": "echo"}))
        )
        assert described["inputSchema"]["properties"]["message"]["type"] == "string"

        r = await s.call_tool(
            "mcp_router_call",
            {
                "server": "everything",
                "tool": "echo",
                "arguments": {"message": "hello", "api_key": "sk-live-123456789012345678"},
            },
        )
        assert text(r) == "Echo: hello" and not r.is_error
        img = await s.call_tool(
            "mcp_router_call", {"server": "everything", "tool": "get-tiny-image"}
        )
        assert any(isinstance(c, types.ImageContent) for c in img.content)

        progress: list[float] = []

        async def on_progress(p: float, total: float | None, message: str | None) -> None:
            progress.append(p)

        r = await s.call_tool(
            "mcp_router_call",
            {
                "server": "everything",
                "tool": "trigger-long-running-operation",
                "arguments": {"duration": 0.3, "steps": 3},
            },
            progress_callback=on_progress,
        )
        assert not r.is_error and len(progress) == 3

        # The intent layer (issue 5) through the same front: find a tool, or call by intent.
        found = json.loads(
            text(await s.call_tool("find_tool", {"intent": "what time is it in Tokyo"}))
        )
        assert ("time", "get_current_time") in {
            (c["server"], c["tool"]) for c in found["candidates"]
        }
        r = await s.call_tool(
            "mcp_router_call",
            {"intent": "run get_current_time", "arguments": {"timezone": "Asia/Tokyo"}},
        )
        assert "Asia/Tokyo" in text(r) and not r.is_error
        with pytest.raises(MCPError, match="either 'intent' or 'server' and 'tool'"):
            await s.call_tool(
                "mcp_router_call", {"intent": "x", "server": "time", "tool": "get_current_time"}
            )

    lines = audit_lines(home)
    echo = [x for x in lines if x["tool"] == "echo"][0]
    assert (
        echo["role"] == "coder" and echo["outcome"] == "ok" and echo["args"]["message"] == "hello"
    )
    assert echo["args"]["api_key"] == "[REDACTED]" and echo["session_id"].startswith("stdio-")
    raw = (home / "home" / "broker" / "audit.jsonl").read_text()
    assert "sk-live" not in raw


async def test_denied_and_bad_input_are_json_rpc_errors_naming_the_problem(
    config: Path, home: Path
) -> None:
    async with broker_stdio(config, home, "reviewer") as s:
        catalog = text(await s.call_tool("get_tool_list", {}))
        assert (
            "get_current_time" in catalog
            and "convert_time" not in catalog
            and "everything" not in catalog
        )

        cases = [
            (
                {"server": "everything", "tool": "echo", "arguments": {"message": "x"}},
                -32003,
                "denied by roles.reviewer.deny: 'everything/*'",
            ),
            (
                {"server": "time", "tool": "convert_time"},
                -32003,
                "no pattern in roles.reviewer.allow",
            ),
            ({"tool": "get_current_time"}, -32602, "'server' is required"),
            (
                {"server": "time", "tool": "get_current_time", "arguments": "UTC"},
                -32602,
                "'arguments' must be an object",
            ),
            (
                {"server": "time", "tool": "get_current_time", "arguments": {}},
                -32602,
                "'timezone' is a required property",
            ),
            (
                {"server": "time", "tool": "get_current_time", "timezone": "UTC"},
                -32602,
                "unknown argument(s) timezone",
            ),
            (
                {
                    "server": "time",
                    "tool": "get_current_time",
                    "role": "coder",
                    "arguments": {"timezone": "UTC"},
                },
                -32003,
                "does not match this connection's role 'reviewer'",
            ),
        ]
        for args, code, message in cases:
            with pytest.raises(MCPError) as exc:
                await s.call_tool("mcp_router_call", args)
            assert exc.value.code == code and message in exc.value.message, (args, exc.value)
        with pytest.raises(MCPError, match="unknown tool 'rm_rf'"):
            await s.call_tool("rm_rf", {})
        # After all that, the connection still works.
        r = await s.call_tool(
            "mcp_router_call",
            {"server": "time", "tool": "get_current_time", "arguments": {"timezone": "UTC"}},
        )
        assert "datetime" in text(r)
    outcomes = [(x["tool"], x["outcome"]) for x in audit_lines(home)]
    assert ("echo", "denied") in outcomes and ("convert_time", "denied") in outcomes
    denied = [x for x in audit_lines(home) if x["outcome"] == "denied"][0]
    assert denied["rule"] == "roles.reviewer.deny: 'everything/*'"


async def test_role_stamped_on_the_call_when_the_connection_has_none(
    config: Path, home: Path
) -> None:
    async with broker_stdio(config, home, None) as s:
        with pytest.raises(MCPError, match="no role given"):
            await s.call_tool(
                "mcp_router_call",
                {"server": "time", "tool": "get_current_time", "arguments": {"timezone": "UTC"}},
            )
        r = await s.call_tool(
            "mcp_router_call",
            {
                "server": "time",
                "tool": "get_current_time",
                "role": "reviewer",
                "arguments": {"timezone": "UTC"},
            },
        )
        assert "datetime" in text(r)


def test_malformed_json_rpc_on_stdio_gets_an_error_and_the_broker_survives(
    write_config, home: Path
) -> None:
    import subprocess

    config = write_config(base_config(time=time_server()))
    refresh(config, home)  # time's tools known: listed directly from the first tools/list
    env = {**os.environ, "NEURALGENTICS_HOME": str(home / "home")}
    proc = subprocess.Popen(
        [NEURALGENTICS, "broker", "stdio", "--config", str(config), "--role", "coder"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def send(obj: object) -> None:
        raw = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
        proc.stdin.write(raw + b"\n")
        proc.stdin.flush()

    def receive() -> dict:
        return json.loads(proc.stdout.readline())

    try:
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
        assert receive()["result"]["serverInfo"]["name"] == "neuralgentics-broker"
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(b"{this is not json")
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": 42}})
        send({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"})
        send({"jsonrpc": "2.0", "id": 4, "method": "tools/list"})
        replies = {}
        while 4 not in replies:
            msg = receive()
            replies[msg.get("id")] = msg
        assert replies[2]["error"]["code"] == -32602
        assert replies[3]["error"]["code"] == -32601
        # one small server alone: its tools listed directly (expose: auto)
        assert "time_get_current_time" in {t["name"] for t in replies[4]["result"]["tools"]}
    finally:
        proc.stdin.close()
        proc.wait(20)
    assert proc.returncode == 0
