"""The first `broker stdio` start in a home (issue 31 item 3): no server was ever listed, and
`initialize` + `tools/list` are answered without waiting for any of them — their start would
take the cores the answers need. The servers are started once `tools/list` is answered, their
tools cached for the next start; one that cannot start does not hold the broker, and a call to
it says why."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from neuralgentics.broker.server import stdio_prelude
from tests.broker.conftest import base_config, router, slow_server, time_server
from tests.broker.test_stdio_fast_path import WAIT, raw_broker


def children(pid: int) -> list[int]:
    """The live child processes of ``pid``."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != b"Z":
            out.append(int(d))
    return out


async def until(check, what: str) -> None:
    async with asyncio.timeout(WAIT):
        while not check():
            await asyncio.sleep(0.05)


async def test_an_empty_homes_start_answers_before_any_server_runs(
    write_config, home: Path
) -> None:
    # `lazy` would hold a start that waited for it 10 s (the old default waited 3 s for it)
    lazy = {**slow_server(), "args": [*slow_server()["args"], "--start-delay", "10"]}
    config = write_config(base_config(slow=lazy, time=time_server()))
    tools = home / "home" / "broker" / "tools"
    async with raw_broker(config, home) as client:
        await client.handshake()
        init = client.answers[("int", 0)][0]["result"]
        # both servers are in the catalog, without their tools; neither was started for it
        assert "- slow:" in init["instructions"] and "- time:" in init["instructions"]
        assert init["instructions"].count("tools not listed yet") == 2
        assert children(client.proc.pid) == []
        listed = await client.request(1, "tools/list")
        assert {t["name"] for t in listed["result"]["tools"]} >= {"mcp_router_call"}
        # now they start, and time's list reaches the cache for the next start's catalog
        await until(lambda: len(children(client.proc.pid)) == 2, "both servers started")
        await until(lambda: (tools / "time.json").exists(), "time's tools cached")
        r = await client.request(
            2, "tools/call", router("time", "get_current_time", {"timezone": "UTC"})
        )
        assert r["result"]["isError"] is False


async def test_a_server_that_cannot_start_leaves_the_first_start_answering(
    write_config, home: Path
) -> None:
    broken = {"command": str(home / "no-such-server"), "args": [], "summary": "never starts"}
    cfg = base_config(broken=broken, time=time_server())
    cfg["roles"]["coder"]["allow"].append("broken/*")
    config = write_config(cfg)
    async with raw_broker(config, home) as client:
        await client.handshake()
        listed = await client.request(1, "tools/list")
        assert "mcp_router_call" in {t["name"] for t in listed["result"]["tools"]}
        # a call to it says which server and why; the broker goes on answering
        r = await client.request(2, "tools/call", router("broken", "anything"))
        body = str(r.get("error") or r["result"])
        assert "broken" in body and "could not start" in body and "not found" in body, body
        r = await client.request(
            3, "tools/call", router("time", "get_current_time", {"timezone": "UTC"})
        )
        assert r["result"]["isError"] is False


async def test_the_next_start_answers_from_the_file_with_what_the_first_one_listed(
    write_config, home: Path
) -> None:
    # time alone: never listed, so brokered at first; once listed, cheaper listed directly
    config = write_config(base_config(time=time_server()))
    path = home / "home" / "broker" / stdio_prelude.ANSWERS_FILE

    def recorded_instructions() -> str:
        if not path.exists():
            return ""
        data = json.loads(path.read_text())
        init = [v for k, v in data["answers"].items() if k.startswith("initialize ")]
        return str(json.loads(init[0]).get("instructions", "")) if init else ""

    async with raw_broker(config, home) as client:
        await client.handshake()
        assert "tools not listed yet" in client.answers[("int", 0)][0]["result"]["instructions"]
        first = await client.request(1, "tools/list")
        assert "mcp_router_call" in {t["name"] for t in first["result"]["tools"]}
        while not client.notes:  # told the list changed once time listed
            assert await client.read_one()
        assert client.notes[0]["method"] == "notifications/tools/list_changed"
        again = await client.request(2, "tools/list")
        passthrough = {t["name"] for t in again["result"]["tools"]}
        assert "time_get_current_time" in passthrough
        # what the next start will say is recorded: the catalog with time's listing
        await until(lambda: "tools not listed yet" not in recorded_instructions(), "restated")
    recorded = path.read_bytes()

    async with raw_broker(config, home) as client:
        await client.handshake()
        init = client.answers[("int", 0)][0]["result"]
        assert init["instructions"] == recorded_instructions()
        assert "tools not listed yet" not in json.dumps(init)
        listed = await client.request(1, "tools/list")
        assert {t["name"] for t in listed["result"]["tools"]} == passthrough
        await client.request(2, "ping")
    # the SDK path found nothing stale in what the file gave: no correction, no rewrite
    assert not client.notes
    assert path.read_bytes() == recorded


async def test_a_tool_list_that_changed_is_not_replayed_when_the_client_did_not_ask_again(
    write_config, home: Path
) -> None:
    config = write_config(base_config(time=time_server()))
    path = home / "home" / "broker" / stdio_prelude.ANSWERS_FILE

    def recorded() -> list[str]:
        return list(json.loads(path.read_text())["answers"]) if path.exists() else []

    async with raw_broker(config, home) as client:
        await client.handshake()
        await client.request(1, "tools/list")
        while not client.notes:
            assert await client.read_one()
        # told it changed, the client does not list again: the meta-tools it was sent are
        # not what the next start would list
        await until(lambda: not any(k.startswith("tools/list ") for k in recorded()), "dropped")
        assert any(k.startswith("initialize ") for k in recorded())
    async with raw_broker(config, home) as client:
        await client.handshake()
        listed = await client.request(1, "tools/list")
        assert "time_get_current_time" in {t["name"] for t in listed["result"]["tools"]}
        await client.request(2, "ping")
    assert not client.notes  # nothing stale was sent, nothing to correct
