"""The stdio front's fast path for `mcp_router_call` keeps the protocol the SDK server speaks.

A plain `tools/call` of `mcp_router_call` is answered by the front itself; the same request
with a `_meta` object goes through the SDK `Server`. Both must give the client the same
answers, honour cancellation, answer every pipelined request once, and refuse calls before
the handshake. Raw JSON-RPC on the broker's pipes, so the test sees exactly what is on the wire.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp.types as types

from neuralgentics.broker.server.stdio_transport import StdioFront
from tests.broker.conftest import (
    NEURALGENTICS,
    audit_lines,
    base_config,
    everything_stdio,
    needs_node,
    router,
    same_answer_cases,
    slow_server,
)

WAIT = 30.0  # bound on every read: a hung broker fails the test instead of the suite


class RawClient:
    """Newline-delimited JSON-RPC to `neuralgentics broker stdio`, responses collected by id."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.answers: dict[Any, list[dict[str, Any]]] = {}
        self.notes: list[dict[str, Any]] = []

    async def send(self, obj: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(obj).encode() + b"\n")
        await self.proc.stdin.drain()

    async def read_one(self) -> bool:
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), WAIT)
        if not line:
            return False
        msg = json.loads(line)
        if "id" in msg:
            self.answers.setdefault(_key(msg["id"]), []).append(msg)
        else:
            self.notes.append(msg)
        return True

    async def answer(self, rid: Any) -> dict[str, Any]:
        while _key(rid) not in self.answers:
            assert await self.read_one(), f"broker closed stdout before answering {rid!r}"
        return self.answers[_key(rid)][0]

    async def request(
        self, rid: Any, method: str, params: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        await self.send(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "method": method,
                **({"params": params} if params else {}),
            }
        )
        return await self.answer(rid)

    async def handshake(self) -> None:
        r = await self.request(
            0,
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        )
        assert r["result"]["serverInfo"]["name"] == "neuralgentics-broker"
        await self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})


def _key(rid: Any) -> tuple[str, Any]:
    return (type(rid).__name__, rid)  # 1 and "1" are different JSON-RPC ids


@contextlib.asynccontextmanager
async def raw_broker(config: Path, home: Path, role: str = "coder") -> AsyncIterator[RawClient]:
    env = {
        **os.environ,
        "NEURALGENTICS_HOME": str(home / "home"),
        "NEURALGENTICS_CONFIG_DIR": str(home / "config"),
    }
    proc = await asyncio.create_subprocess_exec(
        NEURALGENTICS,
        "broker",
        "stdio",
        "--config",
        str(config),
        "--role",
        role,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
    )
    try:
        yield RawClient(proc)
    finally:
        if proc.returncode is None:
            with contextlib.suppress(Exception):
                assert proc.stdin is not None
                proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), 20)
            except TimeoutError:
                proc.kill()
                await proc.wait()


@needs_node
async def test_fast_path_and_sdk_path_give_the_same_answers(write_config, home: Path) -> None:
    config = write_config(base_config(everything=everything_stdio(), slow=slow_server()))
    cases = same_answer_cases()
    async with raw_broker(config, home) as c:
        await c.handshake()
        rid = 100
        for params in cases:
            fast = await c.request(rid, "tools/call", params)
            # A `_meta` object (as a progress-less client may send) takes the SDK server's path.
            via_sdk = await c.request(rid + 1, "tools/call", {**params, "_meta": {}})
            rid += 2
            fast.pop("id"), via_sdk.pop("id")
            assert fast == via_sdk, params
        echo = await c.request(1, "tools/call", router("everything", "echo", {"message": "héllo"}))
        assert "héllo" in echo["result"]["content"][0]["text"]
        denied = await c.request(2, "tools/call", router("everything", "get-env"))
        assert "may not use everything/get-env" in denied["error"]["message"]
        bad = await c.request(3, "tools/call", router("everything", "echo", {"message": 42}))
        assert "message" in bad["error"]["message"] and bad["error"]["code"] == -32602
    # Every call is audited the same way whichever path answered it.
    outcomes = [(r["server"], r["tool"], r["outcome"]) for r in audit_lines(home)]
    assert outcomes.count(("everything", "echo", "ok")) == 3
    assert outcomes.count(("everything", "get-env", "denied")) == 3


async def test_cancelled_fast_path_call_is_stopped_and_not_answered(
    write_config, home: Path
) -> None:
    config = write_config(base_config(slow=slow_server()))
    async with raw_broker(config, home) as c:
        await c.handshake()
        await c.send(
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": router("slow", "wait", {"seconds": 1.0}),
            }
        )
        await asyncio.sleep(0.3)
        await c.send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": 7, "reason": "user pressed stop"},
            }
        )
        # Later requests are served; the cancelled one never gets an answer, even after the
        # downstream wait would have finished.
        assert "result" in await c.request(8, "tools/call", router("slow", "pid"))
        await asyncio.sleep(1.2)  # past the end of the 1 s wait downstream
        assert "result" in await c.request(9, "tools/list")
        assert 7 not in {k[1] for k in c.answers}
    for _ in range(50):
        recs = [r for r in audit_lines(home) if r["tool"] == "wait"]
        if recs:
            break
        await asyncio.sleep(0.1)
    assert [r["outcome"] for r in recs] == ["cancelled"]


async def test_pipelined_calls_are_each_answered_once_even_after_stdin_closes(
    write_config, home: Path
) -> None:
    config = write_config(base_config(slow=slow_server()))
    async with raw_broker(config, home) as c:
        await c.handshake()
        ids: list[Any] = [*range(1, 21), *(str(i) for i in range(1, 21))]  # 1 and "1" are distinct
        for rid in ids:
            await c.send(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "method": "tools/call",
                    "params": router("slow", "wait", {"seconds": 0.01 * (len(str(rid)) + 1)}),
                }
            )
        assert c.proc.stdin is not None
        c.proc.stdin.close()  # the client waits for its answers after closing stdin
        while await c.read_one():
            pass
        assert await asyncio.wait_for(c.proc.wait(), WAIT) == 0
    assert sorted(c.answers, key=str) == sorted(
        (_key(i) for i in [0, *ids]), key=str
    )  # 0: initialize
    for rid in ids:
        (answer,) = c.answers[_key(rid)]
        assert "waited" in answer["result"]["content"][0]["text"], answer


async def test_a_whole_session_written_at_once_is_answered_before_the_broker_exits(
    write_config, home: Path
) -> None:
    # `neuralgentics broker stdio < requests` from a pipe: everything arrives before the
    # handshake is answered, so these calls take the SDK path, whose server cancels what is
    # in flight at EOF ("Connection closed") unless the front waits for the answers first.
    config = write_config(base_config(slow=slow_server()))
    async with raw_broker(config, home) as c:
        await c.send(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "batch", "version": "1"},
                },
            }
        )
        await c.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        await c.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": router("slow", "wait", {"seconds": 0.5}),
            }
        )
        await c.send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {
                    "name": "describe_tool",
                    "arguments": {"server": "slow", "tool": "wait"},
                },
            }
        )
        assert c.proc.stdin is not None
        c.proc.stdin.close()
        while await c.read_one():
            pass
        assert await asyncio.wait_for(c.proc.wait(), WAIT) == 0
    assert "waited 0.5" in c.answers[_key(1)][0]["result"]["content"][0]["text"], c.answers
    assert '"seconds"' in c.answers[_key(2)][0]["result"]["content"][0]["text"], c.answers


async def test_calls_before_the_handshake_are_refused_like_the_sdk_does(
    write_config, home: Path
) -> None:
    config = write_config(base_config(slow=slow_server()))
    async with raw_broker(config, home) as c:
        early = await c.request(1, "tools/call", router("slow", "pid"))
        assert early["error"]["code"] == -32602  # the SDK's "not initialized" answer
        await c.handshake()
        assert "result" in await c.request(2, "tools/call", router("slow", "pid"))
    assert [r["tool"] for r in audit_lines(home)] == ["pid"]  # the refused call never ran


async def test_tool_list_changes_reach_a_fast_path_client(write_config, home: Path) -> None:
    config = write_config(base_config(slow=slow_server()))
    async with raw_broker(config, home) as c:
        await c.handshake()
        assert "result" in await c.request(1, "tools/call", router("slow", "grow"))
        for i in range(100):  # up to ~10 s for the broker to re-list and tell us
            if any(n.get("method") == "notifications/tools/list_changed" for n in c.notes):
                break
            await asyncio.sleep(0.1)
            await c.send({"jsonrpc": "2.0", "id": f"p{i}", "method": "ping"})
            await c.answer(f"p{i}")
        assert any(n.get("method") == "notifications/tools/list_changed" for n in c.notes)


async def test_sigterm_answers_calls_in_flight_on_both_paths_with_connection_closed(
    write_config, home: Path
) -> None:
    config = write_config(base_config(slow={**slow_server(), "call_timeout": 60}))
    async with raw_broker(config, home) as c:
        await c.handshake()
        wait = router("slow", "hang")  # never answered downstream: only the shutdown ends it
        await c.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": wait})
        await c.send(
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {**wait, "_meta": {}}}
        )
        assert "result" in await c.request(3, "ping")  # both calls were read by now
        await asyncio.sleep(0.3)
        c.proc.terminate()
        while await c.read_one():
            pass
        assert await asyncio.wait_for(c.proc.wait(), WAIT) == 0
    for rid in (1, 2):
        (answer,) = c.answers[_key(rid)]
        assert answer["error"] == {"code": -32000, "message": "Connection closed"}, answer
    assert [r["outcome"] for r in audit_lines(home) if r["tool"] == "hang"] == [
        "cancelled",
        "cancelled",
    ]


async def test_passthrough_calls_are_answered_alike_on_both_paths(write_config, home: Path) -> None:
    config = write_config(base_config(slow={**slow_server(), "expose": ["tools"]}))
    async with raw_broker(config, home) as c:
        await c.handshake()
        listed = await c.request(1, "tools/list")
        names = {t["name"] for t in listed["result"]["tools"]}
        assert {"slow_pid", "slow_typed"} <= names
        assert "mcp_router_call" not in names  # nothing brokered: no router listed
        cases: list[dict[str, Any]] = [
            {"name": "slow_pid", "arguments": {}},
            {"name": "slow_wait", "arguments": {"seconds": "soon"}},  # schema refusal
            {"name": "slow_typed_bad", "arguments": {}},
            {"name": "slow_typed_missing"},
            {"name": "slow_nothing", "arguments": {}},  # not a tool
            router("slow", "pid"),
            # with a passthrough server every name takes the fast path: the meta-tools too
            {"name": "describe_tool", "arguments": {"server": "slow", "tool": "wait"}},
            {"name": "get_tool_list", "arguments": {}},
        ]
        rid = 100
        for params in cases:
            fast = await c.request(rid, "tools/call", params)
            via_sdk = await c.request(rid + 1, "tools/call", {**params, "_meta": {}})
            rid += 2
            fast.pop("id"), via_sdk.pop("id")
            assert fast == via_sdk, params
        typed = await c.request(2, "tools/call", {"name": "slow_typed", "arguments": {}})
        assert typed["result"]["structuredContent"]["rid"].startswith("ng-")  # the direct pipe
    outcomes = [(r["tool"], r["outcome"]) for r in audit_lines(home)]
    assert outcomes.count(("pid", "ok")) == 4 and outcomes.count(("typed_bad", "error")) == 2


def test_the_fast_path_answers_the_names_the_front_accepts() -> None:
    calls: list[tuple[str, dict[str, Any]]] = []

    async def fast_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        calls.append((name, arguments))
        return {"content": [], "isError": False}

    async def run() -> list[bool]:
        front = StdioFront(None, fast_call, accepts=lambda n: n in ("mcp_router_call", "s_t"))
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {}}
        front.saw_inbound(
            types.JSONRPCRequest(jsonrpc="2.0", id=0, method="initialize", params=init)
        )
        front.saw_outbound(
            types.JSONRPCResponse(jsonrpc="2.0", id=0, result={"protocolVersion": "2025-06-18"})
        )

        ids = iter(range(1, 100))

        def line(params: dict[str, Any]) -> bytes:
            msg = {"jsonrpc": "2.0", "id": next(ids), "method": "tools/call"}
            return json.dumps({**msg, "params": params}).encode()

        taken = [
            front.try_fast(line({"name": "s_t", "arguments": {"a": 1}})),
            front.try_fast(line(router("s", "t"))),
            front.try_fast(line({"name": "get_tool_list", "arguments": {}})),
            front.try_fast(line({"name": "s_t", "arguments": {}, "_meta": {}})),
        ]
        await front.drain_calls()
        return taken

    assert asyncio.run(run()) == [True, True, False, False]
    assert [name for name, _ in calls] == ["s_t", "mcp_router_call"]
