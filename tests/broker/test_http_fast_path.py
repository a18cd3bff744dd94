"""The HTTP front's fast path (`broker/server/http_fast.py`) keeps the protocol and the guards.

A plain `tools/call` POST on an initialized session is answered by the front itself as one
`application/json` response; the same request with a `_meta` object goes through the SDK's
streamable HTTP transport and is answered as an SSE stream. Both must give the client the same
answer, and the fast path must refuse everything the SDK path refuses: no or a wrong bearer
token, a role token asserting another role (header or argument), a foreign Host or Origin, an
unknown session, a wrong protocol version header, an Accept without both types. Raw HTTP on a
real `broker serve`, so the test sees exactly what is on the wire.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from support.parts import missing

from neuralgentics.config import get_settings
from tests.broker.conftest import (
    EVERYTHING,
    NPM_MISSING,
    audit_lines,
    base_config,
    cli,
    everything_stdio,
    free_port,
    router,
    same_answer_cases,
    slow_server,
)
from tests.broker.test_http_front import _TOKENS, serve

ACCEPT = "application/json, text/event-stream"
VERSION = "2025-06-18"


def answer_of(r: httpx.Response) -> dict[str, Any] | None:
    """The JSON-RPC answer in a response, JSON or SSE (None if there is none)."""
    if r.headers.get("content-type", "").startswith("text/event-stream"):
        for line in r.text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                msg = json.loads(line[5:])
                if "id" in msg:
                    return msg
        return None
    try:
        return r.json()
    except ValueError:
        return None


class RawSession:
    """One MCP session over raw HTTP against `base`/mcp."""

    def __init__(self, client: httpx.AsyncClient, token: str) -> None:
        self.c = client
        self.headers = {
            "Authorization": f"Bearer {token}",
            "Accept": ACCEPT,
            "Content-Type": "application/json",
        }
        self.sid = ""

    async def post(self, msg: dict[str, Any], **extra: str) -> httpx.Response:
        h = {**self.headers, **({"Mcp-Session-Id": self.sid} if self.sid else {})}
        if self.sid:
            h["Mcp-Protocol-Version"] = VERSION
        h.update(extra)
        h = {k: v for k, v in h.items() if v}  # an empty value drops the header
        return await self.c.post("/mcp", content=json.dumps(msg).encode(), headers=h)

    async def handshake(
        self, capabilities: dict[str, Any] | None = None, notify: bool = True
    ) -> None:
        r = await self.post(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": VERSION,
                    "capabilities": capabilities or {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
        assert r.status_code == 200, r.text
        self.sid = r.headers["mcp-session-id"]
        if notify:
            r = await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
            assert r.status_code == 202, r.text

    async def call(self, rid: Any, params: dict[str, Any], **extra: str) -> httpx.Response:
        return await self.post(
            {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}, **extra
        )


def _refusal(r: httpx.Response) -> tuple[int, Any]:
    """The status and the error's code, JSON-RPC or the broker's."""
    msg = answer_of(r) or {}
    error = msg.get("error") if isinstance(msg, dict) else None
    return r.status_code, error.get("code") if isinstance(error, dict) else None


def is_fast(r: httpx.Response) -> bool:
    return r.headers.get("content-type", "").startswith("application/json")


def add_token(config: Path, role: str, label: str) -> str:
    done = cli("broker", "token", "add", "--role", role, "--label", label, "--config", str(config))
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@dataclass
class Served:
    base: str
    home: Path
    coder: str  # a role token for coder, labelled ci-bot
    before: int = 0  # audit records written before the current test

    def audit(self) -> list[dict[str, Any]]:
        """The audit records the current test's requests wrote."""
        return audit_lines(self.home)[self.before :]


@pytest.fixture(scope="module")
def module_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One `broker serve` for the module: everything (its tools passed through) and slow (a
    30 s call timeout: a hung call ends by cancellation, not by the timeout). The tests send
    requests and read what came back and what was audited; none changes the broker."""
    if not EVERYTHING.exists():
        missing(NPM_MISSING)
    home = tmp_path_factory.mktemp("http-fast-path")
    data = base_config(
        everything={**everything_stdio(), "expose": "tools"},
        slow={**slow_server(), "call_timeout": 30},
    )
    data["roles"]["coder"]["allow"] += [
        "everything/trigger-sampling-request",
        "everything/trigger-elicitation-request",
    ]
    config = home / "broker.yaml"
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.MonkeyPatch.context() as env:
        env.setenv("NEURALGENTICS_HOME", str(home / "home"))
        env.setenv("NEURALGENTICS_CONFIG_DIR", str(home / "config"))
        env.setenv("NEURALGENTICS_BROKER_PORT", str(free_port()))  # no broker to nudge
        get_settings.cache_clear()
        coder = add_token(config, "coder", "ci-bot")
    get_settings.cache_clear()
    with serve(config, home) as (base, _):
        yield Served(base, home, coder)


@pytest.fixture
def served(module_broker: Served) -> Served:
    module_broker.before = len(audit_lines(module_broker.home))
    return module_broker


async def test_fast_path_and_sdk_path_give_the_same_answers(served: Served) -> None:
    base = served.base
    cases = [
        *same_answer_cases(),
        {"name": "everything_echo", "arguments": {"message": "passed through"}},
        # not listed for coder: refused by the role policy, audited like mcp_router_call
        {"name": "everything_get-env", "arguments": {}},
        # The server asks the client during the call; this client cannot take it: refused
        # with the same reason on both paths (and the call's own answer after it).
        router("everything", "trigger-sampling-request", {"prompt": "x"}),
        router("everything", "trigger-elicitation-request", {}),
    ]
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        s = RawSession(client, _TOKENS[base])
        await s.handshake()
        rid = 100
        for params in cases:
            fast = await s.call(rid, params, **{"X-Neuralgentics-Role": "coder"})
            # A `_meta` object takes the SDK's path (a progress token would need SSE).
            via_sdk = await s.call(
                rid + 1, {**params, "_meta": {}}, **{"X-Neuralgentics-Role": "coder"}
            )
            rid += 2
            assert is_fast(fast) and not is_fast(via_sdk), (fast.headers, via_sdk.headers)
            assert fast.status_code == via_sdk.status_code == 200
            a, b = answer_of(fast), answer_of(via_sdk)
            assert a is not None and b is not None
            assert (a.pop("id"), b.pop("id")) == (rid - 2, rid - 1)
            assert a == b, params
        echo = answer_of(await s.call(1, cases[0], **{"X-Neuralgentics-Role": "coder"}))
        assert echo is not None and "héllo" in echo["result"]["content"][0]["text"]
        # A tool with an outputSchema: the fast front and the direct pipe (an `ng-` id).
        r = await s.call(5, router("slow", "typed"), **{"X-Neuralgentics-Role": "coder"})
        typed = answer_of(r)
        assert is_fast(r) and typed is not None
        assert typed["result"]["structuredContent"]["rid"].startswith("ng-")
        denied = answer_of(await s.call(2, cases[2], **{"X-Neuralgentics-Role": "coder"}))
        assert denied is not None
        assert "may not use everything/get-env" in denied["error"]["message"]
        # The SDK serves requests once `initialize` succeeded (before the client's
        # notifications/initialized, whose 202 comes before it is handled): so does the
        # fast path, from the first call on.
        s3 = RawSession(client, _TOKENS[base])
        await s3.handshake(notify=False)
        r = await s3.call(4, cases[0], **{"X-Neuralgentics-Role": "coder"})
        assert is_fast(r) and "héllo" in r.text, r.headers
        # A client that can answer sampling/elicitation keeps the SDK path (only the SDK
        # session can send it a request during the call).
        s2 = RawSession(client, _TOKENS[base])
        await s2.handshake({"sampling": {}})
        r = await s2.call(3, cases[0], **{"X-Neuralgentics-Role": "coder"})
        assert not is_fast(r) and "héllo" in r.text
    outcomes = [(r["server"], r["tool"], r["outcome"]) for r in served.audit()]
    assert outcomes.count(("everything", "echo", "ok")) == 7
    # the router's and the passthrough name's refusals, on both paths
    assert outcomes.count(("everything", "get-env", "denied")) == 5
    refused = [r for r in served.audit() if r["kind"] == "request"]
    assert [r["outcome"] for r in refused] == ["invalid"] * 4, refused


async def test_the_fast_path_refuses_what_the_sdk_path_refuses(served: Served) -> None:
    base, coder = served.base, served.coder
    port = base.rsplit(":", 1)[1]
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        s = RawSession(client, _TOKENS[base])
        await s.handshake()
        call = router("slow", "pid")
        ok = await s.call(1, call, **{"X-Neuralgentics-Role": "coder"})
        assert is_fast(ok) and "result" in ok.json(), ok.text  # the control: fast path taken
        # A role token's own session: the fast path, as the token's role.
        c = RawSession(client, coder)
        await c.handshake()
        pinned = await c.call(2, call)
        assert is_fast(pinned) and "result" in pinned.json(), pinned.text
        # The token on the owner's session: not found on both paths (issue 29, item 5).
        for rid, params in ((3, call), (4, {**call, "_meta": {}})):
            foreign = await s.call(rid, params, Authorization=f"Bearer {coder}")
            assert foreign.status_code == 404, foreign.text

        refusals: dict[str, dict[str, str]] = {
            "no credential": {"Authorization": ""},
            "a wrong token": {"Authorization": "Bearer not-the-token"},
            "a role token asserting another role": {
                "Authorization": f"Bearer {coder}",
                "X-Neuralgentics-Role": "reviewer",
            },
            "a role token asserting the owner": {
                "Authorization": f"Bearer {coder}",
                "X-Neuralgentics-Role": "owner",
            },
            "a foreign Host": {"Host": f"evil.example:{port}"},
            "a foreign Origin": {"Origin": "http://evil.example"},
            "an unknown session": {"Mcp-Session-Id": "f" * 32},
            "another protocol version": {"Mcp-Protocol-Version": "1999-01-01"},
            "Accept without event streams": {"Accept": "application/json"},
            "a body that is not JSON by its type": {"Content-Type": "text/plain"},
        }
        rid = 10
        for what, headers in refusals.items():
            fast = await s.call(rid, call, **headers)
            sdk = await s.call(rid + 1, {**call, "_meta": {}}, **headers)
            rid += 2
            assert fast.status_code >= 400, (what, fast.status_code, fast.text)
            assert fast.status_code == sdk.status_code, (what, fast.text, sdk.text)
            # the same refusal (the messages may differ: the SDK path's request has `_meta`)
            assert _refusal(fast) == _refusal(sdk), (what, fast.text, sdk.text)

        # A role token's call with another role in its arguments: denied on both paths,
        # as a JSON-RPC error naming the pinned role, and audited with the token's label.
        for rid, params in ((40, call), (41, {**call, "_meta": {}})):
            params = {**params, "arguments": {**call["arguments"], "role": "reviewer"}}
            r = await c.call(rid, params)
            assert r.status_code == 200 and is_fast(r) == (rid == 40)
            msg = answer_of(r)
            assert msg is not None and "does not match" in msg["error"]["message"], r.text
        # A header sent twice is left to the SDK path (which reads the first value).
        twice = [
            *s.headers.items(),
            ("Mcp-Session-Id", s.sid),
            ("Mcp-Protocol-Version", VERSION),
            ("X-Neuralgentics-Role", "coder"),
            ("X-Neuralgentics-Role", "coder"),
        ]
        body = {"jsonrpc": "2.0", "id": 30, "method": "tools/call", "params": call}
        r = await client.post("/mcp", content=json.dumps(body).encode(), headers=twice)
        assert r.status_code == 200 and not is_fast(r), r.headers
        # The owner asserting a role the rules deny is denied the same way on both paths.
        for rid, params in ((50, router("slow", "pid")), (51, {**call, "_meta": {}})):
            r = await s.call(rid, params, **{"X-Neuralgentics-Role": "reviewer"})
            msg = answer_of(r)
            assert msg is not None and "may not use slow/pid" in msg["error"]["message"], r.text
    calls = [x for x in served.audit() if x["kind"] == "call"]
    by_token = [x for x in calls if x["credential"] == "token:ci-bot"]
    assert [x["outcome"] for x in by_token] == ["ok", "denied", "denied"]
    assert {x["role"] for x in by_token} == {"coder"}
    # the refused requests never reached a handler: three calls ran, four were denied
    assert [x["outcome"] for x in calls].count("ok") == 3
    assert [(x["role"], x["outcome"]) for x in calls if x["credential"] == "owner"][-2:] == [
        ("reviewer", "denied"),
        ("reviewer", "denied"),
    ]


async def test_a_cancelled_fast_path_call_is_stopped_and_answered_cancelled(
    served: Served,
) -> None:
    base = served.base
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        s = RawSession(client, _TOKENS[base])
        await s.handshake()
        role = {"X-Neuralgentics-Role": "coder"}
        pending = asyncio.ensure_future(s.call(7, router("slow", "hang"), **role))
        await asyncio.sleep(0.5)
        note = await s.post(
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": 7, "reason": "user pressed stop"},
            }
        )
        assert note.status_code == 202
        r = await asyncio.wait_for(pending, 20)
        assert is_fast(r) and r.json()["error"]["code"] == -32800, r.text
        again = await s.call(8, router("slow", "pid"), **role)
        assert "result" in again.json()  # the session goes on
    for _ in range(50):
        recs = [r for r in served.audit() if r["tool"] == "hang"]
        if recs:
            break
        await asyncio.sleep(0.1)
    assert [r["outcome"] for r in recs] == ["cancelled"]


def _raw_request(
    s: RawSession, host: str, body: bytes, *extra: str, chunked: bool = False
) -> bytes:
    """A POST /mcp of ``body`` as bytes on the wire: stated length, or chunked."""
    lines = [
        "POST /mcp HTTP/1.1",
        f"Host: {host}",
        *(f"{k}: {v}" for k, v in s.headers.items()),
        f"Mcp-Session-Id: {s.sid}",
        f"Mcp-Protocol-Version: {VERSION}",
        "X-Neuralgentics-Role: coder",
        *extra,
    ]
    if chunked:
        lines.append("Transfer-Encoding: chunked")
        half = len(body) // 2
        framed = b"".join(
            f"{len(p):x}\r\n".encode() + p + b"\r\n" for p in (body[:half], body[half:])
        )
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + framed + b"0\r\n\r\n"
    lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


async def _read_response(reader: asyncio.StreamReader) -> tuple[str, dict[str, str], bytes]:
    """One sized response: status line, headers (lower-case names), body."""
    head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)).decode("latin-1")
    status, *rows = head.split("\r\n")[:-2]
    headers = {k.lower(): v.strip() for k, _, v in (r.partition(":") for r in rows)}
    body = await reader.readexactly(int(headers["content-length"]))
    return status, headers, body


async def test_a_call_answered_before_asgi_is_the_answer_the_asgi_fast_path_gives(
    served: Served,
) -> None:
    """`broker serve` answers a plain call with a stated length before any ASGI scope exists
    (`http_protocol.DirectMcpProtocol`); one with a chunked body goes the ASGI way to the same
    fast path. Both must put the same bytes on the wire (but the date), keep the connection
    for the next request, answer requests pipelined in one write in order, and honour
    `Connection: close`."""
    host = served.base.removeprefix("http://")
    ip, port = host.rsplit(":", 1)
    async with httpx.AsyncClient(base_url=served.base, timeout=60) as client:
        s = RawSession(client, _TOKENS[served.base])
        await s.handshake()
    reader, writer = await asyncio.open_connection(ip, int(port))
    try:

        def call(rid: int, params: dict[str, Any]) -> bytes:
            msg = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}
            return json.dumps(msg).encode()

        for params in same_answer_cases()[:5]:
            writer.write(_raw_request(s, host, call(1, params)))
            direct = await _read_response(reader)
            writer.write(_raw_request(s, host, call(1, params), chunked=True))
            via_asgi = await _read_response(reader)
            for status, headers, _ in (direct, via_asgi):
                assert status == "HTTP/1.1 200 OK", (status, headers)
                assert headers["content-type"] == "application/json", headers
                headers.pop("date")
            assert direct == via_asgi, params
        # Three requests in one write: each answered, in order, on the same connection.
        writer.write(
            b"".join(_raw_request(s, host, call(i, router("slow", "pid"))) for i in (7, 8, 9))
        )
        for i in (7, 8, 9):
            _, _, body = await _read_response(reader)
            assert json.loads(body)["id"] == i and "result" in json.loads(body), body
        # The client says it is done: answered, then the connection closes.
        writer.write(_raw_request(s, host, call(10, router("slow", "pid")), "Connection: close"))
        _, headers, body = await _read_response(reader)
        assert headers.get("connection") == "close" and json.loads(body)["id"] == 10
        assert await asyncio.wait_for(reader.read(), 10) == b""
    finally:
        writer.close()
    outcomes = [r["outcome"] for r in served.audit() if r["kind"] == "call"]
    assert outcomes.count("ok") == 2 + 2 + 3 + 1, outcomes  # every answered call audited
