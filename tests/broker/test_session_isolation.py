"""One credential's calls and sessions stay its own on `broker serve` (issue 29, items 1, 2, 5).

A real broker with server-everything, the owner's token and a role token (`reader`):

- a sampling request caused by the owner's REST `POST /call` is never sent to the reader's MCP
  session, even while the reader has a call in flight on the same server;
- a session id the owner opened gets 404 for the reader (calls and DELETE) and stays usable;
- the reader cannot exhaust the sessions: at its limit its oldest idle session ends, and the
  owner's `initialize` still succeeds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import mcp.types as types
import pytest
import yaml
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.broker.conftest import audit_lines, everything_stdio, needs_node
from tests.broker.test_http_fast_path import add_token
from tests.broker.test_http_front import _TOKENS, serve

pytestmark = needs_node

ACCEPT = "application/json, text/event-stream"
PER_TOKEN = 4


def _config() -> dict[str, Any]:
    return {
        "servers": {"everything": everything_stdio()},
        "roles": {
            "coder": {"allow": ["everything"]},
            "reader": {"allow": ["everything/echo", "everything/trigger-long-running-operation"]},
        },
        "default_role": "coder",
        "sessions": {"per_token": PER_TOKEN},
    }


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Path]]:
    """(base URL, the reader's token, home) of one `broker serve`; READERS[base]: a second
    reader token, for the session-limit test alone."""
    home = tmp_path_factory.mktemp("isolation")
    config = home / "broker.yaml"
    config.write_text(yaml.safe_dump(_config(), sort_keys=False))
    reader = add_token(config, "reader", "reader-bot")
    second = add_token(config, "reader", "reader-two")
    with serve(config, home) as (base, _):
        READERS[base] = second
        yield base, reader, home


READERS: dict[str, str] = {}


def _bearer(token: str, **extra: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **extra}


def _initialize(base: str, token: str) -> httpx.Response:
    return httpx.post(
        base + "/mcp",
        headers=_bearer(token, Accept=ACCEPT),
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


def _open(base: str, token: str) -> dict[str, str]:
    """Headers of an initialized session of `token`'s."""
    init = _initialize(base, token)
    assert init.status_code == 200, init.text
    h = _bearer(
        token,
        Accept=ACCEPT,
        **{"Mcp-Session-Id": init.headers["mcp-session-id"], "Mcp-Protocol-Version": "2025-06-18"},
    )
    r = httpx.post(
        base + "/mcp",
        headers=h,
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        timeout=30,
    )
    assert r.status_code == 202, r.text
    return h


def _echo(base: str, headers: dict[str, str], text: str = "hi") -> httpx.Response:
    return httpx.post(
        base + "/mcp",
        headers=headers,
        timeout=30,
        json={
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {
                "name": "mcp_router_call",
                "arguments": {
                    "server": "everything",
                    "tool": "echo",
                    "arguments": {"message": text},
                },
            },
        },
    )


def _answer(r: httpx.Response) -> dict[str, Any]:
    if r.headers.get("content-type", "").startswith("text/event-stream"):
        for line in r.text.splitlines():
            if line.startswith("data:") and '"id"' in line:
                return json.loads(line[5:])
    return r.json()


@contextlib.asynccontextmanager
async def _mcp_session(base: str, token: str, **kw: Any) -> AsyncIterator[ClientSession]:
    async with (
        httpx2.AsyncClient(headers=_bearer(token), timeout=60) as http,
        streamable_http_client(base + "/mcp", http_client=http) as (r, w),
        ClientSession(r, w, **kw) as s,
    ):
        await s.initialize()
        yield s


async def test_sampling_caused_by_a_rest_call_never_reaches_another_credentials_session(
    served: tuple[str, str, Path],
) -> None:
    base, reader, home = served
    asked: list[types.CreateMessageRequestParams] = []

    async def sampling(ctx: Any, params: types.CreateMessageRequestParams) -> Any:
        asked.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="the reader's answer"),
            model="reader-model",
        )

    started = asyncio.Event()

    async def progress(value: float, total: float | None, message: str | None) -> None:
        started.set()

    async with _mcp_session(base, reader, sampling_callback=sampling) as s:
        # The reader's long call is in flight on `everything`…
        long = asyncio.create_task(
            s.call_tool(
                "mcp_router_call",
                {
                    "server": "everything",
                    "tool": "trigger-long-running-operation",
                    "arguments": {"duration": 6, "steps": 3},
                },
                progress_callback=progress,
            )
        )
        await asyncio.wait_for(started.wait(), 30)
        # … when the owner's REST call makes the same server ask for sampling.
        async with httpx.AsyncClient(timeout=60) as http:
            r = await http.post(
                base + "/call",
                headers=_bearer(_TOKENS[base], **{"X-Neuralgentics-Role": "coder"}),
                json={
                    "server": "everything",
                    "tool": "trigger-sampling-request",
                    "arguments": {"prompt": "the owner's private prompt"},
                },
            )
        assert r.status_code == 200, r.text
        out = "".join(c.get("text", "") for c in r.json()["content"])
        assert asked == [], "the owner's sampling request was sent to the reader's session"
        assert "the reader's answer" not in out
        assert r.json()["isError"] is True and "sampling/createMessage" in out
        assert not (await long).is_error
    refused = [r for r in audit_lines(home) if r["kind"] == "request"]
    assert refused and refused[-1]["outcome"] == "invalid"


def test_a_session_answers_only_the_credential_that_opened_it(
    served: tuple[str, str, Path],
) -> None:
    base, reader, _ = served
    owners = _open(base, _TOKENS[base])
    sid = owners["Mcp-Session-Id"]
    as_reader = {**owners, "Authorization": f"Bearer {reader}"}
    # The reader holding the owner's session id: a call, a GET stream, a DELETE — all 404,
    # as for a session that does not exist.
    call = _echo(base, as_reader)
    assert call.status_code == 404, call.text
    assert call.json()["error"]["message"] == "Session not found"
    assert httpx.get(base + "/mcp", headers=as_reader, timeout=30).status_code == 404
    assert httpx.delete(base + "/mcp", headers=as_reader, timeout=30).status_code == 404
    # The owner's session is alive and still the owner's.
    ok = _echo(base, owners, "still mine")
    assert ok.status_code == 200, ok.text
    assert "Echo: still mine" in json.dumps(_answer(ok))
    assert httpx.delete(base + "/mcp", headers=owners, timeout=30).status_code == 200
    assert _echo(base, owners).status_code == 404
    assert sid  # named in the audit as `connection`: knowing it is not holding it


def test_a_role_token_cannot_exhaust_the_sessions_and_the_owner_keeps_room(
    served: tuple[str, str, Path],
) -> None:
    base = served[0]
    reader = READERS[base]
    opened = [_open(base, reader) for _ in range(PER_TOKEN)]
    assert _echo(base, opened[0]).status_code == 200  # the first one is now the most recent
    # At its limit, the reader's next sessions end its least recently used idle ones.
    more = [_open(base, reader) for _ in range(3)]
    gone = [h for h in opened + more if _echo(base, h).status_code == 404]
    assert [h["Mcp-Session-Id"] for h in gone] == [h["Mcp-Session-Id"] for h in opened[1:4]], (
        "not the least recently used sessions were ended"
    )
    assert all(_echo(base, h).status_code == 200 for h in (opened[0], *more))
    # The owner's initialize succeeds whatever the reader holds.
    owners = _open(base, _TOKENS[base])
    assert _echo(base, owners).status_code == 200
