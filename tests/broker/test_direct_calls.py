"""Direct calls (``Broker.call_json`` on a stdio server): plain JSON on the session's pipe.

The SDK session keeps the connection; these calls borrow its pipe with ids of their own.
What a user would notice if that went wrong: a call answered with another call's result,
a cancel or timeout that the server never hears of, a server error lost, a session
confused by answers it did not ask for.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPError

from neuralgentics.broker.errors import CallTimeout
from neuralgentics.broker.service import Broker
from neuralgentics.config import Settings
from tests.broker.conftest import EVERYTHING, base_config, needs_node, no_progress, slow_server


async def direct(broker: Broker, server: str, tool: str, **arguments: Any) -> dict[str, Any]:
    return await broker.call_json(role="coder", server=server, tool=tool, arguments=arguments)


def text(result: dict[str, Any]) -> str:
    return "".join(c.get("text", "") for c in result["content"])


async def test_direct_calls_use_their_own_ids_beside_the_session(write_config, home: Path) -> None:
    async with Broker.open(
        write_config(base_config(slow=slow_server())), settings=Settings()
    ) as broker:
        rid = json.loads(text(await direct(broker, "slow", "rid")))
        assert isinstance(rid, str) and rid.startswith("ng-")
        plain = await broker.call(role="coder", server="slow", tool="rid", arguments={})
        assert json.loads(plain.content[0].text).startswith("ng-")  # type: ignore[union-attr]
        # Progress is the session's business: such a call goes through it (integer ids).
        with_progress = await broker.call(
            role="coder", server="slow", tool="rid", arguments={}, progress=no_progress
        )
        assert isinstance(json.loads(with_progress.content[0].text), int)  # type: ignore[union-attr]
        # Many at once, mixed with session traffic (tools/list): each gets its own answer.
        waits = [direct(broker, "slow", "wait", seconds=i / 100) for i in range(30)]
        session_calls = [
            broker.call(role="coder", server="slow", tool="pid", arguments={}, progress=no_progress)
            for _ in range(5)
        ]
        results = await asyncio.gather(
            *waits,
            *session_calls,
            broker.launcher.entry("slow").peek_runtime().session.list_tools(),
        )  # type: ignore[union-attr]
        assert [text(r) for r in results[:30]] == [f"waited {i / 100}" for i in range(30)]
        assert len({r.content[0].text for r in results[30:35]}) == 1  # type: ignore[union-attr]
        assert "rid" in {t.name for t in results[35].tools}


async def test_timeout_cancels_downstream_and_a_late_answer_is_ignored(
    write_config, home: Path
) -> None:
    cfg = base_config(slow={**slow_server(), "call_timeout": 0.5})
    async with Broker.open(write_config(cfg), settings=Settings()) as broker:
        with pytest.raises(CallTimeout, match=r"did not answer within 0.5 s"):
            await direct(broker, "slow", "hang")
        # The server was told (notifications/cancelled with the request's id).
        cancelled = json.loads(text(await direct(broker, "slow", "cancelled")))
        assert len(cancelled) == 1 and cancelled[0].startswith("ng-")
        # A call that outlives its timeout answers late: dropped, and the session is fine.
        with pytest.raises(CallTimeout):
            await direct(broker, "slow", "wait", seconds=0.8)
        await asyncio.sleep(0.5)
        assert text(await direct(broker, "slow", "wait", seconds=0)) == "waited 0.0"
        listed = await broker.launcher.entry("slow").peek_runtime().session.list_tools()  # type: ignore[union-attr]
        assert "hang" in {t.name for t in listed.tools}
        assert [r.outcome for r in broker.audit.read()] == ["timeout", "ok", "timeout", "ok"]


async def test_a_cancelled_caller_cancels_downstream(write_config, home: Path) -> None:
    async with Broker.open(
        write_config(base_config(slow=slow_server())), settings=Settings()
    ) as broker:
        await direct(broker, "slow", "pid")
        task = asyncio.ensure_future(direct(broker, "slow", "hang"))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        cancelled = json.loads(text(await direct(broker, "slow", "cancelled")))
        assert len(cancelled) == 1 and cancelled[0].startswith("ng-")
        assert [r.outcome for r in broker.audit.read()][1] == "cancelled"


@pytest.mark.parametrize("via", ["session", "direct"])
async def test_a_server_error_passes_through_with_its_code(
    write_config, home: Path, via: str
) -> None:
    # -32000 is also the SDK's own "Connection closed" code: a server using it is not a crash.
    async with Broker.open(
        write_config(base_config(slow=slow_server())), settings=Settings()
    ) as broker:
        pid = text(await direct(broker, "slow", "pid"))
        with pytest.raises(MCPError) as err:
            if via == "direct":
                await direct(broker, "slow", "fail")
            else:
                await broker.call(
                    role="coder", server="slow", tool="fail", arguments={}, progress=no_progress
                )
        assert (err.value.code, err.value.message) == (-32000, "it failed on purpose")
        record = list(broker.audit.read())[-1]
        assert record.outcome == "error" and "it failed on purpose" in (record.error or "")
        assert text(await direct(broker, "slow", "pid")) == pid  # not restarted
        assert broker.servers_status()[0].restarts == 0


@needs_node
async def test_every_content_type_comes_through_as_the_session_would_give_it(
    write_config, home: Path
) -> None:
    cfg = base_config(everything={"command": str(EVERYTHING), "args": []})
    async with Broker.open(write_config(cfg), settings=Settings()) as broker:
        for tool, args in (("echo", {"message": "héllo"}), ("get-tiny-image", {})):
            raw = await direct(broker, "everything", tool, **args)
            model = await broker.call(
                role="coder", server="everything", tool=tool, arguments=args, progress=no_progress
            )
            assert types.CallToolResult.model_validate(raw) == model
        image = next(c for c in raw["content"] if c["type"] == "image")
        assert image["mimeType"] == "image/png" and len(image["data"]) > 100
        assert {r.bytes_out > 0 for r in broker.audit.read()} == {True}


async def test_a_tool_with_an_output_schema_takes_the_direct_path_and_is_checked_there(
    write_config, home: Path
) -> None:
    async with Broker.open(
        write_config(base_config(slow=slow_server())), settings=Settings()
    ) as broker:
        # The direct pipe (an `ng-` id downstream), the structured content kept, both shapes.
        raw = await direct(broker, "slow", "typed")
        assert raw["structuredContent"]["rid"].startswith("ng-")
        model = await broker.call(role="coder", server="slow", tool="typed", arguments={})
        assert model.structured_content is not None
        assert model.structured_content["rid"].startswith("ng-")
        # Content that does not match, or none: refused with the very error the SDK session
        # raises for the same answer (a call with progress goes through the session).
        said = {}
        for tool in ("typed_bad", "typed_missing"):
            with pytest.raises(RuntimeError) as on_direct:
                await direct(broker, "slow", tool)
            with pytest.raises(RuntimeError) as on_session:
                await broker.call(
                    role="coder", server="slow", tool=tool, arguments={}, progress=no_progress
                )
            said[tool] = str(on_direct.value)
            assert said[tool] == str(on_session.value), tool
        assert said["typed_bad"].startswith(
            "Invalid structured content returned by tool typed_bad: None is not of type"
        )
        assert said["typed_missing"] == (
            "Tool typed_missing has an output schema but did not return structured content"
        )
        assert [r.outcome for r in broker.audit.read()] == ["ok", "ok"] + ["error"] * 4
