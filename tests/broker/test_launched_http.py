"""`command` + `url`: the broker starts an HTTP or SSE server, waits for its URL, connects, and
supervises it like a stdio server (crash → restart, idle stop, reload) — with the real
server-everything in its `streamableHttp` and `sse` modes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator
from typing import Any

import pytest
import yaml

from neuralgentics.broker.config import ConfigError, parse_config
from neuralgentics.broker.errors import ServerUnavailable
from neuralgentics.broker.service import Broker
from neuralgentics.config import Settings
from tests.broker.conftest import EVERYTHING, PY, base_config, free_port, needs_node, pid_alive

MODES = {"streamable_http": ("streamableHttp", "/mcp"), "sse": ("sse", "/sse")}


def launched(transport: str, port: int | None = None, **extra: Any) -> dict[str, Any]:
    """server-everything started by the broker, listening on a port of its own."""
    mode, path = MODES[transport]
    port = port or free_port()
    return {
        "transport": transport,
        "command": str(EVERYTHING),
        "args": [mode],
        "env": {"PORT": str(port)},
        "url": f"http://127.0.0.1:{port}{path}",
        "summary": f"server-everything over {transport}, started by the broker",
        **extra,
    }


@contextlib.asynccontextmanager
async def running(write_config, servers: dict[str, Any]) -> AsyncIterator[Broker]:
    cfg = base_config(**servers)
    cfg["roles"]["coder"]["allow"].append("web/*")
    async with Broker.open(write_config(cfg), settings=Settings()) as broker:
        yield broker


def text(result: dict[str, Any]) -> str:
    return "".join(c.get("text", "") for c in result["content"])


async def echo(broker: Broker, message: str) -> str:
    result = await broker.call_json(
        role="coder", server="web", tool="echo", arguments={"message": message}
    )
    return text(result)


def status(broker: Broker) -> Any:
    return {s.name: s for s in broker.servers_status()}["web"]


async def wait_for(pred, timeout: float = 15.0) -> None:
    async with asyncio.timeout(timeout):
        while not pred():
            await asyncio.sleep(0.05)


@pytest.fixture(params=sorted(MODES))
def transport(request: pytest.FixtureRequest) -> str:
    return request.param


@needs_node
async def test_started_on_first_call_restarted_after_a_crash_and_stopped_with_the_broker(
    write_config, transport: str
) -> None:
    async with running(write_config, {"web": launched(transport)}) as broker:
        assert status(broker).state == "cold" and status(broker).pid is None
        assert await echo(broker, "first") == "Echo: first"
        first = status(broker)
        assert first.state == "warm" and first.transport == transport and first.pid
        # Tools are listed like any server's (the catalog reads them).
        tools = await broker.tools_by_server("coder")
        assert "echo" in {t.name for t in tools["web"]}

        os.killpg(first.pid, signal.SIGKILL)
        await wait_for(lambda: status(broker).state != "warm")
        assert await echo(broker, "again") == "Echo: again"  # restarted on demand
        second = status(broker)
        assert second.pid != first.pid and second.restarts == 1 and second.state == "warm"
        assert not pid_alive(first.pid)
    assert not pid_alive(second.pid)  # the broker's exit stops what it started


@needs_node
async def test_idle_stop_and_reload_of_a_changed_entry(write_config, transport: str) -> None:
    port = free_port()
    async with running(
        write_config, {"web": launched(transport, port, idle_timeout=0.5)}
    ) as broker:
        assert await echo(broker, "x") == "Echo: x"
        pid = status(broker).pid
        await wait_for(lambda: status(broker).state == "cold")
        await wait_for(lambda: not pid_alive(pid))
        assert status(broker).restarts == 0  # an idle stop is not a crash

        assert await echo(broker, "y") == "Echo: y"
        pid = status(broker).pid
        # Reload (what SIGHUP and POST /reload run) with the entry changed: the old process
        # is stopped, the next call starts the new one.
        cfg = base_config(web=launched(transport, port, summary="changed"))
        cfg["roles"]["coder"]["allow"].append("web/*")
        write_config(cfg)
        assert (await broker.reload())["changed"] == ["web"]
        await wait_for(lambda: not pid_alive(pid))
        assert await echo(broker, "z") == "Echo: z"
        assert status(broker).pid not in (None, pid)


async def test_a_server_that_exits_before_listening_is_reported_with_its_output(
    write_config,
) -> None:
    port = free_port()
    entry = {
        "transport": "streamable_http",
        "command": PY,
        "args": ["-c", "import sys; print('cannot bind: address in use'); sys.exit(4)"],
        "url": f"http://127.0.0.1:{port}/mcp",
    }
    async with running(write_config, {"web": entry}) as broker:
        with pytest.raises(ServerUnavailable) as exc:
            await echo(broker, "x")
        message = str(exc.value)
        assert "exited with code 4 before" in message
        assert "exit code 4" in message and "cannot bind: address in use" in message


async def test_a_server_that_never_listens_times_out_and_is_stopped(write_config) -> None:
    entry = {
        "transport": "sse",
        "command": PY,
        "args": ["-c", "import os, time; print(os.getpid(), flush=True); time.sleep(60)"],
        "url": f"http://127.0.0.1:{free_port()}/sse",
        "start_timeout": 1.5,
    }
    async with running(write_config, {"web": entry}) as broker:
        with pytest.raises(ServerUnavailable, match="could not start: timed out"):
            await echo(broker, "x")
        (line,) = broker.launcher.entry("web").last_stderr
        await wait_for(lambda: not pid_alive(int(line)))


def test_config_names_what_a_launched_entry_needs() -> None:
    ok = parse_config(yaml.safe_dump({"servers": {"web": launched("sse", 3001)}}))
    assert ok.servers["web"].launched and ok.servers["web"].command == str(EVERYTHING)
    with pytest.raises(ConfigError, match="set 'transport' to streamable_http or sse"):
        parse_config("servers:\n  web:\n    command: x\n    url: http://127.0.0.1:1/mcp\n")
    with pytest.raises(ConfigError, match="without 'command' takes no 'args'"):
        parse_config(
            "servers:\n  web:\n    transport: sse\n    url: http://127.0.0.1:1/sse\n"
            "    env: {PORT: '1'}\n"
        )


def test_add_command_registers_a_launched_server(write_config, home) -> None:
    from tests.broker.conftest import cli

    path = write_config(base_config())
    r = cli(
        "broker", "add", "web", "--config", str(path), "--url", "http://127.0.0.1:3001/sse",
        "--transport", "sse", "--env", "PORT=3001", "--", str(EVERYTHING), "sse",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    entry = parse_config(path.read_text()).servers["web"]
    assert (entry.transport, entry.command, entry.args, entry.env) == (
        "sse",
        str(EVERYTHING),
        ["sse"],
        {"PORT": "3001"},
    )
