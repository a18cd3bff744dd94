"""The calling agent's session id on every front (issue 18, item 5): a `session_id` stamped on
the call (the OpenCode plugin's), `broker stdio --session-id`, the `X-Neuralgentics-Session`
header on /mcp and REST; malformed ones refused and audited. The end-to-end run through the
real OpenCode and an egress gateway is tests/opencode/test_broker_session_id.py."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.broker.conftest import audit_lines, base_config, time_server
from tests.broker.test_http_front import auth, serve
from tests.broker.test_stdio_front import broker_stdio, text

NOW = {"server": "time", "tool": "get_current_time", "arguments": {"timezone": "UTC"}}


def _calls(home: Path) -> list[dict]:
    return [r for r in audit_lines(home) if r["kind"] == "call"]


@pytest.fixture
def config(write_config) -> Path:
    return write_config(base_config(time=time_server()))


async def test_stdio_takes_the_session_from_the_call_or_the_command_line(
    config: Path, home: Path
) -> None:
    # two brokers side by side, each with a home (and audit file) of its own
    named_home = home / "named"

    async def unnamed() -> None:
        async with broker_stdio(config, home, "coder") as s:
            # no session named: the broker process's own, as before
            assert "UTC" in text(await s.call_tool("mcp_router_call", NOW))
            # stamped on the call (what the plugin does), on the fast path and on the SDK path
            await s.call_tool("mcp_router_call", {**NOW, "session_id": "ses_agent1"})
            await s.call_tool(
                "mcp_router_call", {**NOW, "session_id": "ses_agent2"}, meta={"progressToken": 7}
            )
            # accepted (and ignored) by the other meta-tools, as the plugin stamps them all
            catalog = await s.call_tool("get_tool_list", {"session_id": "ses_agent1"})
            assert "time" in text(catalog)
            with pytest.raises(MCPError) as bad:
                await s.call_tool("mcp_router_call", {**NOW, "session_id": "ses 1\nX-Evil: 1"})
            assert bad.value.error.code == -32602 and "session_id" in bad.value.error.message

    async def named() -> None:
        args = ["--session-id", "ci-run-17"]
        async with broker_stdio(config, named_home, "coder", extra=args) as s:
            await s.call_tool("mcp_router_call", NOW)
            await s.call_tool("mcp_router_call", {**NOW, "session_id": "ses_sub"})

    async with anyio.create_task_group() as tg:
        tg.start_soon(unnamed)
        tg.start_soon(named)

    calls = _calls(home)
    own = calls[0]["session_id"]
    assert own.startswith("stdio-") and calls[0]["connection"] is None
    assert [(c["session_id"], c["connection"]) for c in calls[1:3]] == [
        ("ses_agent1", own),
        ("ses_agent2", own),
    ]
    assert calls[3]["outcome"] == "invalid" and "session_id" in calls[3]["error"]

    last = _calls(named_home)
    assert [c["session_id"] for c in last] == ["ci-run-17", "ses_sub"]
    assert all(c["connection"].startswith("stdio-") for c in last)


def test_http_fronts_take_the_session_header_and_refuse_a_malformed_one(
    config: Path, home: Path
) -> None:
    with serve(config, home) as (base, _):
        as_coder = auth(base, **{"X-Neuralgentics-Role": "coder"})
        r = httpx.post(
            base + "/call",
            headers={**as_coder, "X-Neuralgentics-Session": "ses_rest"},
            json=NOW,
            timeout=60,
        )
        assert r.status_code == 200
        r = httpx.post(base + "/call", headers=as_coder, json={**NOW, "session_id": "ses_body"})
        assert r.status_code == 200
        r = httpx.post(base + "/call", headers=as_coder, json={**NOW, "session_id": "a b"})
        assert r.status_code == 400 and r.json()["error"]["field"] == "session_id"
        r = httpx.post(
            base + "/mcp",
            headers={**as_coder, "X-Neuralgentics-Session": "x" * 200, "Accept": "*/*"},
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        )
        assert r.status_code == 400 and "X-Neuralgentics-Session" in r.text

        async def over_mcp() -> None:
            headers = {**as_coder, "X-Neuralgentics-Session": "ses_mcp"}
            async with (
                httpx.AsyncClient(headers=headers, timeout=60) as client,
                streamable_http_client(base + "/mcp", http_client=client) as (r, w),
                ClientSession(r, w) as s,
            ):
                await s.initialize()
                await s.call_tool("mcp_router_call", NOW)
                await s.call_tool("mcp_router_call", {**NOW, "session_id": "ses_stamped"})

        anyio.run(over_mcp)
    calls = _calls(home)
    assert [c["session_id"] for c in calls] == [
        "ses_rest",
        "ses_body",
        "a b",
        "ses_mcp",
        "ses_stamped",
    ]
    assert calls[2]["outcome"] == "invalid"
    # the /mcp session's own id is kept beside the agent's
    mcp_session = calls[3]["connection"]
    assert mcp_session and calls[4]["connection"] == mcp_session
    assert calls[0]["connection"] is None  # REST has no transport session
    # each once: a stamped session_id is taken out of the call, not kept in its args too
    assert json.dumps(calls).count("ses_") == 4
