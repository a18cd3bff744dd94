"""Launcher and proxy against real servers: cold start, sharing, crashes, timeouts, reload."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest

from neuralgentics.broker.config import parse_config
from neuralgentics.broker.errors import CallTimeout, NotFound, ServerUnavailable
from neuralgentics.broker.service import Broker
from neuralgentics.config import Settings
from tests.broker.conftest import (
    FILESYSTEM,
    PY,
    base_config,
    needs_node,
    no_progress,
    pid_alive,
    python_server,
    slow_server,
    time_server,
)


@contextlib.asynccontextmanager
async def running(write_config, data: dict[str, Any]) -> AsyncIterator[Broker]:
    path = write_config(data)
    async with Broker.open(path, settings=Settings()) as broker:
        yield broker


def text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def call(
    broker: Broker, server: str, tool: str, via: str = "session", **arguments: Any
) -> types.CallToolResult:
    """``via="direct"``: a plain call, which goes to a stdio server as JSON on its pipe
    (DirectCalls); ``"session"``: one that asks for progress, which only the SDK session
    does. The faults below must look the same both ways."""
    if via == "direct":
        data = await broker.call_json(role="coder", server=server, tool=tool, arguments=arguments)
        return types.CallToolResult.model_validate(data)
    return await broker.call(
        role="coder", server=server, tool=tool, arguments=arguments, progress=no_progress
    )


@pytest.fixture(params=["session", "direct"])
def via(request: pytest.FixtureRequest) -> str:
    return request.param


async def wait_for(pred, timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not pred():
            await asyncio.sleep(0.05)


async def test_concurrent_first_calls_share_one_start(write_config, via: str) -> None:
    async with running(write_config, base_config(slow=slow_server())) as broker:
        assert broker.launcher.entry("slow").state == "cold"
        results = await asyncio.gather(*(call(broker, "slow", "pid", via) for _ in range(8)))
        pids = {text(r) for r in results}
        assert len(pids) == 1
        status = {s.name: s for s in broker.servers_status()}["slow"]
        assert status.state == "warm" and str(status.pid) in pids and status.restarts == 0


async def test_killed_mid_call_gives_a_clear_error_and_the_next_call_restarts(
    write_config, via: str
) -> None:
    async with running(write_config, base_config(slow=slow_server())) as broker:
        first_pid = int(text(await call(broker, "slow", "pid", via)))
        pending = asyncio.ensure_future(call(broker, "slow", "wait", via, seconds=20))
        await wait_for(lambda: broker.servers_status()[0].inflight == 1)
        os.kill(first_pid, signal.SIGKILL)
        with pytest.raises(ServerUnavailable, match="closed the connection during 'wait'"):
            await asyncio.wait_for(pending, 10)
        second_pid = int(text(await call(broker, "slow", "pid", via)))
        assert second_pid != first_pid and not pid_alive(first_pid)
        status = broker.servers_status()[0]
        assert status.restarts == 1 and status.state == "warm"


async def test_a_server_that_never_answers_times_out_and_stays_usable(
    write_config, home, via: str
) -> None:
    # the subject is the timeout, so a short one (slow_server's is 2 s, for calls that wait)
    srv = {**slow_server(), "call_timeout": 0.8}
    async with running(write_config, base_config(slow=srv)) as broker:
        with pytest.raises(CallTimeout, match="did not answer within 0.8 s"):
            await call(broker, "slow", "hang", via)
        assert text(await call(broker, "slow", "wait", via, seconds=0)) == "waited 0.0"
        records = list(broker.audit.read())
        assert [r.outcome for r in records] == ["timeout", "ok"]


async def test_missing_command_is_named(write_config) -> None:
    cfg = base_config(ghost={"command": "no-such-mcp-server-xyz"})
    cfg["roles"]["coder"]["allow"].append("ghost/*")
    async with running(write_config, cfg) as broker:
        with pytest.raises(ServerUnavailable, match="command 'no-such-mcp-server-xyz' not found"):
            await call(broker, "ghost", "anything")
        status = broker.servers_status()[0]
        assert status.state == "cold" and "not found" in (status.last_error or "")


async def test_a_server_that_keeps_crashing_is_marked_failed_with_its_stderr(write_config) -> None:
    crasher = {
        "command": PY,
        "args": ["-c", "import sys; sys.stderr.write('boom: bad flag\\n'); sys.exit(3)"],
        # its subject is giving up, not waiting: back-offs of 0.05, 0.1 and 0.2 s (default 0.25,
        # 0.5 and 1 s)
        "restart_backoff": 0.05,
    }
    cfg = base_config(crash=crasher)
    cfg["roles"]["coder"]["allow"].append("crash/*")
    async with running(write_config, cfg) as broker:
        for _ in range(5):
            with pytest.raises(ServerUnavailable, match="could not start"):
                await call(broker, "crash", "x")
        status = broker.servers_status()[0]
        assert status.state == "failed"
        with pytest.raises(ServerUnavailable, match=r"failed 5 times in a row.*boom: bad flag"):
            await call(broker, "crash", "x")


async def test_unknown_server_and_tool(write_config) -> None:
    async with running(write_config, base_config()) as broker:
        with pytest.raises(NotFound, match="has no tool 'nope'.*get_current_time"):
            await call(broker, "time", "nope")
        cfg = base_config()
        cfg["roles"]["coder"]["allow"].append("*")
        await broker.apply_config(parse_config(__import__("yaml").safe_dump(cfg)))
        with pytest.raises(NotFound, match="no server named 'mars'"):
            await call(broker, "mars", "x")


async def test_reload_restarts_only_changed_servers_and_loses_no_call(
    write_config, home, via: str
) -> None:
    cfg = base_config(slow=slow_server(), slow2=slow_server(), time=time_server())
    cfg["roles"]["coder"]["allow"].append("slow2/*")
    path = write_config(cfg)
    async with Broker.open(path, settings=Settings()) as broker:
        pid_slow = text(await call(broker, "slow", "pid", via))
        pid_slow2 = text(await call(broker, "slow2", "pid", via))
        await call(broker, "time", "get_current_time", via, timezone="UTC")
        # In flight across the reload: on an unchanged server and on a changed one (drained).
        on_unchanged = [
            asyncio.ensure_future(call(broker, "slow", "wait", via, seconds=1.0)) for _ in range(4)
        ]
        on_changed = asyncio.ensure_future(call(broker, "slow2", "wait", via, seconds=1.0))
        await wait_for(lambda: {s.name: s.inflight for s in broker.servers_status()}["slow"] == 4)
        cfg["servers"]["slow2"]["summary"] = "changed"
        del cfg["servers"]["time"]
        cfg["servers"]["new"] = slow_server()
        write_config(cfg)
        changes = await broker.reload()
        assert changes == {"added": ["new"], "removed": ["time"], "changed": ["slow2"]}
        for r in await asyncio.gather(*on_unchanged, on_changed):
            assert text(r) == "waited 1.0"
        assert (
            text(await call(broker, "slow", "pid", via)) == pid_slow
        )  # same session, same process
        assert text(await call(broker, "slow2", "pid", via)) != pid_slow2  # restarted
        await wait_for(lambda: not pid_alive(int(pid_slow2)))
        assert "time" not in {s.name for s in broker.servers_status()}


async def test_bad_reload_changes_nothing(write_config) -> None:
    cfg = base_config()
    path = write_config(cfg)
    async with Broker.open(path, settings=Settings()) as broker:
        path.write_text("servers:\n  time:\n    transport: stdio\n")
        with pytest.raises(Exception, match="needs 'command'"):
            await broker.reload()
        assert "datetime" in text(await call(broker, "time", "get_current_time", timezone="UTC"))


async def test_idle_server_is_stopped_and_restarted_on_demand(write_config) -> None:
    srv = {**slow_server(), "idle_timeout": 0.3}
    async with running(write_config, base_config(slow=srv)) as broker:
        pid = int(text(await call(broker, "slow", "pid")))
        await wait_for(lambda: broker.servers_status()[0].state == "cold")
        await wait_for(lambda: not pid_alive(pid))
        assert broker.servers_status()[0].restarts == 0  # stopping on idle is not a crash
        assert int(text(await call(broker, "slow", "pid"))) != pid


async def test_stop_leaves_no_process_behind(write_config) -> None:
    async with running(write_config, base_config(slow=slow_server())) as broker:
        pid = int(text(await call(broker, "slow", "pid")))
    assert not pid_alive(pid)


async def test_mcp_server_git(write_config, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "hello.txt").write_text("hi")
    git = {"command": PY, "args": python_server("mcp_server_git", "--repository", str(repo))}
    async with running(write_config, base_config(git=git)) as broker:
        out = text(await call(broker, "git", "git_status", repo_path=str(repo)))
        assert "hello.txt" in out


@needs_node
async def test_server_filesystem(write_config, tmp_path: Path, via: str) -> None:
    root = tmp_path / "files"
    root.mkdir()
    (root / "notes.md").write_text("# remember the milk")
    fs = {"command": str(FILESYSTEM), "args": [str(root)]}
    async with running(write_config, base_config(fs=fs)) as broker:
        out = text(await call(broker, "fs", "read_text_file", via, path=str(root / "notes.md")))
        assert "remember the milk" in out
        result = await call(broker, "fs", "read_text_file", via, path="/etc/passwd")
        assert result.is_error  # the server's own refusal passes through as an isError result


@needs_node
async def test_streamable_http_and_sse_downstream(
    write_config, everything_http, everything_sse
) -> None:
    cfg = base_config(
        http={"transport": "streamable_http", "url": everything_http},
        sse={"transport": "sse", "url": everything_sse},
    )
    async with running(write_config, cfg) as broker:
        a, b = await asyncio.gather(
            call(broker, "http", "echo", message="over http"),
            call(broker, "sse", "echo", message="over sse"),
        )
        assert text(a) == "Echo: over http" and text(b) == "Echo: over sse"
        img = await call(broker, "http", "get-tiny-image")
        assert any(
            isinstance(c, types.ImageContent) and c.mime_type == "image/png" for c in img.content
        )
        tools = await broker.tools_by_server("coder")
        assert {"echo", "get-tiny-image"} <= {t.name for t in tools["http"]}


async def test_list_changed_refreshes_the_catalog(write_config, via: str) -> None:
    async with running(write_config, base_config(slow=slow_server())) as broker:
        before = {t.name for t in (await broker.tools_by_server("coder"))["slow"]}
        await call(broker, "slow", "grow", via)
        await wait_for(lambda: len(broker.launcher.entry("slow").tools or []) == len(before) + 1)
        after = {t.name for t in (await broker.tools_by_server("coder"))["slow"]}
        (grown,) = after - before
        assert grown.startswith("grown")
