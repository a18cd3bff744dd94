"""Issue 13, finding 9: a role sees only what it may call — in the catalog, in GET /servers,
and in the errors for a missing tool or an unknown server, on REST and on /mcp."""

from __future__ import annotations

import json

import httpx
import pytest

from reliability import loopback
from reliability.broker_proc import mcp_session, owner, probe, serving, time_server, write_config

PROBE_TOOLS = {"echo", "pid", "env", "wait", "garbage", "flood", "fail"}
ROLES = {
    "coder": {"allow": ["time/get_current_time", "probe/echo"]},
    "ops": {"allow": ["*"], "deny": ["payroll/*", "probe/env"]},
}


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    home = tmp_path_factory.mktemp("visibility")
    config = write_config(
        home / "broker.yaml",
        {"time": time_server(), "probe": probe(), "payroll": probe(summary="salaries")},
        ROLES,
    )
    with serving(config, home) as (base, _):
        yield base


def _call(base: str, role: str, server: str, tool: str) -> httpx.Response:
    return loopback.post(
        base + "/call",
        headers=owner(base, **{"X-Neuralgentics-Role": role}),
        timeout=60,
        json={"server": server, "tool": tool, "arguments": {}},
    )


def _hidden(text: str, names: set[str]) -> set[str]:
    return {n for n in names if n in text}


def test_a_missing_tool_lists_only_the_tools_the_role_may_call(broker) -> None:
    r = _call(broker, "coder", "probe", "nope")
    # policy first: coder may call nothing but probe/echo, so probe/nope is a denial, naming nothing else
    assert r.status_code == 403 and _hidden(r.text, PROBE_TOOLS - {"echo"}) == set()
    r = _call(broker, "ops", "probe", "nope")
    assert r.status_code == 404
    listed = set(r.json()["error"]["message"].rsplit("(it may use: ", 1)[1].rstrip(")").split(", "))
    assert listed == PROBE_TOOLS - {"env"}  # ops is denied probe/env: not named


def test_an_unknown_server_lists_only_the_servers_the_role_may_see(broker) -> None:
    r = _call(broker, "ops", "nope", "x")
    assert r.status_code == 404
    message = r.json()["error"]["message"]
    assert "probe" in message and "time" in message and "payroll" not in message
    r = _call(broker, "coder", "nope", "x")
    assert r.status_code == 403 and "payroll" not in r.text and "probe" not in r.text


def test_servers_and_catalog_per_role(broker) -> None:
    everything = {
        s["name"]
        for s in loopback.get(broker + "/servers", headers=owner(broker), timeout=30).json()
    }
    assert everything == {"time", "probe", "payroll"}  # the owner, asserting no role: all of it
    for role, expected in (
        ("coder", {"time", "probe"}),
        ("ops", {"time", "probe"}),
        ("nobody", set()),
    ):
        seen = loopback.get(
            broker + "/servers", headers=owner(broker, **{"X-Neuralgentics-Role": role}), timeout=30
        ).json()
        assert {s["name"] for s in seen} == expected, role
        assert all("pid" not in s and "stderr_tail" not in s for s in seen)
    catalog = loopback.get(
        broker + "/tools", headers=owner(broker, **{"X-Neuralgentics-Role": "coder"}), timeout=60
    ).json()
    assert {s: {t["name"] for t in v["tools"]} for s, v in catalog["servers"].items()} == {
        "time": {"get_current_time"},
        "probe": {"echo"},
    }
    assert "payroll" not in catalog["text"] and "convert_time" not in catalog["text"]
    r = loopback.get(
        broker + "/tools/probe/env",
        headers=owner(broker, **{"X-Neuralgentics-Role": "ops"}),
        timeout=60,
    )
    assert r.status_code == 403 and "inputSchema" not in r.text


def test_mcp_errors_name_only_what_the_role_may_use(broker) -> None:
    # mcp_session adds the MCP content types
    h = mcp_session(broker, owner(broker, **{"X-Neuralgentics-Role": "ops"}))
    texts = []
    for n, (server, tool) in enumerate(
        [("probe", "nope"), ("nope", "x"), ("payroll", "pid")], start=2
    ):
        r = loopback.post(
            broker + "/mcp",
            headers=h,
            timeout=60,
            json={
                "jsonrpc": "2.0",
                "id": n,
                "method": "tools/call",
                "params": {
                    "name": "mcp_router_call",
                    "arguments": {"server": server, "tool": tool},
                },
            },
        )
        texts.append(r.text)
    joined = json.dumps(texts)
    assert "payroll" in texts[2]  # the caller named it itself: denied, by rule
    assert "payroll" not in texts[0] + texts[1] and "'env'" not in texts[0]
    assert "echo" in texts[0] and "probe" in texts[1] and joined.count("-32003") == 1
