"""`broker stdio` answers `initialize` and `tools/list` from the last start's answers.

The SDK path records its answers (``<home>/broker/stdio-answers.json``); the next start with
the same inputs sends those bytes before the SDK is imported, and the SDK path then answers
the same requests unseen and checks them. On the wire: the same bytes as the SDK path's, a
changed config or role is answered by the SDK path, a stale answer is corrected.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from neuralgentics.broker.server import stdio_prelude
from tests.broker.conftest import base_config, refresh, router, slow_server
from tests.broker.test_stdio_fast_path import WAIT, raw_broker

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": "list", "method": "tools/list"}
LIST_CHANGED = b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n'


def answers_file(home: Path) -> Path:
    return home / "home" / "broker" / stdio_prelude.ANSWERS_FILE


async def session(
    config: Path, home: Path, role: str = "coder", pipelined: bool = False
) -> list[bytes]:
    """One start: initialize, initialized, tools/list, a call, a ping, tools/list again; every
    line the broker wrote, as written. ``pipelined``: the first three written at once (they
    are read before the SDK has loaded, however fast the machine)."""
    async with raw_broker(config, home, role) as client:
        proc = client.proc
        assert proc.stdin is not None and proc.stdout is not None

        async def send(*msgs: dict[str, Any]) -> None:
            assert proc.stdin is not None
            proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in msgs))
            await proc.stdin.drain()

        async def until(rid: Any) -> None:
            assert proc.stdout is not None
            while True:
                line = await asyncio.wait_for(proc.stdout.readline(), WAIT)
                assert line, f"broker closed stdout before answering {rid!r}"
                lines.append(line)
                if json.loads(line).get("id") == rid:
                    return

        lines: list[bytes] = []
        if pipelined:
            await send(INIT, INITIALIZED, LIST)
            await until(0)
        else:
            await send(INIT)
            await until(0)
            await send(INITIALIZED, LIST)
        await until("list")
        call = router("slow", "pid")
        await send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        await until(2)
        await send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
        await until(3)
        await send({**LIST, "id": 4})
        await until(4)
        return lines


def answer(lines: list[bytes], rid: Any) -> bytes:
    return next(x for x in lines if json.loads(x).get("id") == rid)


async def test_a_second_start_sends_the_sdk_paths_bytes_from_the_file(
    write_config, home: Path
) -> None:
    config = write_config(base_config(slow=slow_server()))
    refresh(config, home)  # its tools listed (by `broker add`, or a first start)
    first = await session(config, home)  # the SDK path answers and records
    recorded = json.loads(answers_file(home).read_text())
    assert len(recorded["answers"]) == 2
    second = await session(config, home)
    assert answer(second, 0) == answer(first, 0)
    assert answer(second, "list") == answer(first, "list")
    # what follows is the SDK path's and the fast path's, as before; the tool list did not change
    assert answer(second, 4) == answer(first, 4)
    assert json.loads(answer(second, 3)) == {"jsonrpc": "2.0", "id": 3, "result": {}}
    assert json.loads(answer(second, 2))["result"]["isError"] is False
    assert LIST_CHANGED not in second
    assert len(second) == len(first) == 5


async def test_the_answers_are_the_files_and_a_stale_list_is_corrected(
    write_config, home: Path
) -> None:
    config = write_config(base_config(slow=slow_server()))
    refresh(config, home)
    first = await session(config, home)
    path = answers_file(home)
    data = json.loads(path.read_text())
    (list_key,) = [k for k in data["answers"] if k.startswith("tools/list ")]
    stale = {"tools": [{"name": "gone", "inputSchema": {"type": "object"}}]}
    data["answers"][list_key] = json.dumps(stale, separators=(",", ":"))
    path.write_text(json.dumps(data))

    second = await session(config, home, pipelined=True)
    # sent from the file (the SDK never lists a tool "gone")...
    assert json.loads(answer(second, "list"))["result"] == stale
    # ...then corrected: the client is told to list again, and the SDK path's list is the real one
    assert LIST_CHANGED in second
    assert answer(second, 4) == answer(first, 4)
    assert json.loads(path.read_text())["answers"][list_key] != json.dumps(
        stale, separators=(",", ":")
    )
    third = await session(config, home)
    assert answer(third, "list") == answer(first, "list")
    assert LIST_CHANGED not in third


async def test_a_changed_config_or_role_is_answered_by_the_sdk_path(
    write_config, home: Path
) -> None:
    config = write_config(base_config(slow=slow_server()))
    refresh(config, home)

    def instructions(lines: list[bytes]) -> str:
        return str(json.loads(answer(lines, 0))["result"]["instructions"])

    coder = await session(config, home)
    assert "slow" in instructions(coder)
    assert instructions(await session(config, home)) == instructions(coder)  # from the file
    reviewer = await session(config, home, role="reviewer")
    assert "slow" not in instructions(reviewer)
    cfg = base_config(slow=slow_server())
    cfg["roles"]["coder"]["allow"] = ["time/*"]  # slow/* no longer allowed
    write_config(cfg)
    changed = await session(config, home)
    assert "slow" not in instructions(changed)
    listed = [json.loads(answer(changed, rid))["result"] for rid in ("list", 4)]
    assert listed[0] == listed[1]
    assert LIST_CHANGED not in changed


def test_the_digest_follows_config_role_and_tool_lists_not_their_save_time(
    tmp_path: Path,
) -> None:
    env = {
        "NEURALGENTICS_HOME": str(tmp_path / "home"),
        "NEURALGENTICS_CONFIG_DIR": str(tmp_path / "config"),
    }
    config = tmp_path / "broker.yaml"
    config.write_text("servers: {}\n")
    tools = tmp_path / "home" / "broker" / "tools"
    tools.mkdir(parents=True)
    entry = {"version": 1, "server": "a", "config_hash": "x", "saved_at": 1.0, "tools": []}
    (tools / "a.json").write_text(json.dumps(entry))

    def digest(*args: str) -> str:
        found = stdio_prelude.start_digest(list(args), env, str(tmp_path))
        assert found is not None
        return found[1]

    base = digest("--config", str(config), "--role", "coder")
    assert digest("--config", str(config), "--role", "coder") == base
    assert digest("--config", str(config), "--role", "reviewer") != base
    (tools / "a.json").write_text(json.dumps({**entry, "saved_at": 2.0}))
    assert digest("--config", str(config), "--role", "coder") == base
    (tools / "a.json").write_text(json.dumps({**entry, "tools": [{"name": "t"}]}))
    changed_tools = digest("--config", str(config), "--role", "coder")
    assert changed_tools != base
    config.write_text("servers: {}\nroles: {}\n")
    assert digest("--config", str(config), "--role", "coder") != changed_tools
    # a command line it does not know is left to the CLI
    assert stdio_prelude.start_digest(["--help"], env, str(tmp_path)) is None
