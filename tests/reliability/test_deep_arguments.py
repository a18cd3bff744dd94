"""Issue 13, finding 4: deep or huge arguments get a clear error on every front — never a bare
500, never silence on stdio — and every such request, allowed or denied, leaves an audit
record."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from neuralgentics.broker.limits import MAX_ARGUMENT_BYTES, MAX_DEPTH
from neuralgentics.config import Settings
from reliability import loopback
from reliability.broker_proc import (
    NEURALGENTICS,
    mcp_session,
    owner,
    probe,
    serving,
    time_server,
    write_config,
)
from reliability.memini_proc import clean_env

# Past our limit (32), past the SDK parser's (200), past Python's recursion limit.
DEPTHS = [MAX_DEPTH + 1, 100, 199, 250, 1_000, 100_000]
ROLES = {
    "coder": {"allow": ["time/*", "probe/*"]},
    "reviewer": {"allow": ["time/get_current_time"]},
}


def nested(depth: int) -> str:
    return '{"d":' * depth + "1" + "}" * depth


def call_json(rid: int, depth: int, tool: str = "get_current_time") -> str:
    return (
        '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"mcp_router_call",'
        '"arguments":{"server":"time","tool":"%s","arguments":{"timezone":"UTC","x":%s}}}}'
        % (rid, tool, nested(depth))
    )


def _audit(home: Path, since: int = 0) -> list[dict]:
    """The broker's audit records, from the `since`-th on (a test reads only its own)."""
    path = home / "home" / "broker" / "audit.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()[since:]] if path.exists() else []


@pytest.fixture(scope="module")
def http_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """One `broker serve` for the REST and streamable-HTTP tests: every call they send is
    refused before any downstream sees it, so neither changes what the other finds."""
    home = tmp_path_factory.mktemp("deep")
    config = write_config(home / "broker.yaml", {"time": time_server()}, ROLES)
    with serving(config, home) as (base, _):
        yield base, home


def test_rest_answers_400_and_records_every_deep_call_allowed_or_denied(http_broker) -> None:
    base, home = http_broker
    since = len(_audit(home))
    sent = 0
    for role, tool in (("coder", "get_current_time"), ("reviewer", "convert_time")):
        for depth in DEPTHS:
            body = '{"server":"time","tool":"%s","arguments":{"x":%s}}' % (tool, nested(depth))
            r = loopback.post(
                base + "/call",
                content=body,
                timeout=60,
                headers=owner(
                    base,
                    **{
                        "X-Neuralgentics-Role": role,
                        "X-Neuralgentics-Session": f"deep-{role}-{depth}",
                        "content-type": "application/json",
                    },
                ),
            )
            assert r.status_code == 400, (role, depth, r.status_code, r.text[:300])
            assert "nested deeper than" in r.json()["error"]["message"]
            sent += 1
    records = {
        r["session_id"]: r
        for r in _audit(home, since)
        if (r["session_id"] or "").startswith("deep-")
    }
    assert len(records) == sent
    assert {r["outcome"] for r in records.values()} == {"invalid"}
    assert all(
        r["server"] == "time" for r in records.values()
    )  # read even from a 100,000-deep body
    print("REST deep calls answered 400 and recorded:", sent)


async def test_streamable_http_answers_with_the_request_id_and_records_it(http_broker) -> None:
    base, home = http_broker
    since = len(_audit(home))
    # mcp_session adds the MCP content types
    h = mcp_session(base, owner(base, **{"X-Neuralgentics-Role": "coder"}))
    for n, depth in enumerate(DEPTHS, start=10):
        r = loopback.post(base + "/mcp", headers=h, content=call_json(n, depth), timeout=60)
        text = r.text
        assert f'"id":{n}' in text.replace(" ", ""), (depth, r.status_code, text[:300])
        assert "nested deeper than" in text and ("-32602" in text or "isError" in text), (
            depth,
            text[:300],
        )
    records = [r for r in _audit(home, since) if r["front"] == "http" and r["outcome"] == "invalid"]
    assert len(records) == len(DEPTHS) and {r["tool"] for r in records} == {"get_current_time"}


def test_stdio_answers_every_line_and_records_every_call(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "broker.yaml", {"time": time_server(), "probe": probe()}, ROLES
    )
    lines = [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        ),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
    expected: dict[object, str] = {}
    for n, depth in enumerate(DEPTHS, start=10):
        lines.append(call_json(n, depth))
        expected[n] = "nested deeper than"
    lines.append(call_json(30, 300, tool="convert_time"))  # denied by role as well as deep
    expected[30] = "nested deeper than"
    huge = "x" * (MAX_ARGUMENT_BYTES + 10)
    lines.append(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 31,
                "method": "tools/call",
                "params": {
                    "name": "mcp_router_call",
                    "arguments": {"server": "probe", "tool": "echo", "arguments": {"text": huge}},
                },
            }
        )
    )
    expected[31] = "over the limit"
    lines.append('{"jsonrpc":"2.0","id":32,"method":42}')  # not JSON-RPC
    expected[32] = "Invalid Request"
    lines.append("{this is not json")
    expected[None] = "Parse error"
    lines.append(json.dumps({"jsonrpc": "2.0", "id": 99, "method": "tools/list"}))
    done = subprocess.run(
        [NEURALGENTICS, "broker", "stdio", "--config", str(config), "--role", "reviewer"],
        input="\n".join(lines) + "\n",
        env=clean_env(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=180,
    )
    replies = {m.get("id"): m for m in map(json.loads, done.stdout.splitlines())}
    for rid, words in expected.items():
        assert rid in replies, (rid, done.stdout[-2000:], done.stderr[-2000:])
        assert words in json.dumps(replies[rid]), (rid, json.dumps(replies[rid])[:300])
    assert "mcp_router_call" in json.dumps(replies[99])  # and the broker kept serving
    audit = [
        json.loads(x)
        for x in (tmp_path / "home" / "broker" / "audit.jsonl").read_text().splitlines()
    ]
    calls = [r for r in audit if r["front"] == "stdio"]
    assert len(calls) == len(DEPTHS) + 2, [(r["tool"], r["error"]) for r in calls]
    assert all(r["outcome"] == "invalid" and r["role"] == "reviewer" for r in calls)


@pytest.mark.parametrize("depth", [MAX_DEPTH, MAX_DEPTH + 1])
async def test_the_limit_itself(depth: int, tmp_path: Path) -> None:
    """Arguments MAX_DEPTH containers deep (the arguments object is the first) reach the server;
    one level more is refused."""
    from neuralgentics.broker.config import BrokerConfig
    from neuralgentics.broker.errors import InvalidRequest
    from neuralgentics.broker.service import Broker

    value: object = 1
    for _ in range(depth - 1):
        value = {"d": value}
    config = BrokerConfig.model_validate(
        {
            "servers": {"probe": probe()},
            "roles": ROLES,
            "audit": {"path": str(tmp_path / "a.jsonl")},
        }
    )
    async with Broker.open(config=config, settings=Settings()) as broker:
        if depth <= MAX_DEPTH:
            r = await broker.call(
                role="coder", server="probe", tool="echo", arguments={"text": "t", "x": value}
            )
            assert not r.is_error and r.content[0].text == "t"  # the probe ignores `x`
        else:
            with pytest.raises(InvalidRequest, match="nested deeper than"):
                await broker.call(
                    role="coder", server="probe", tool="echo", arguments={"text": "t", "x": value}
                )
