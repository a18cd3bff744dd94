"""The role's catalog in the broker's MCP instructions (issue 21, item 2): what `initialize`
answers on each front, per role, inside its token budget, through the SDK's own clients and
real servers (mcp-server-time, server-everything)."""

from __future__ import annotations

import anyio
import httpx
import pytest
import yaml
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from neuralgentics.broker.catalog import count_tokens
from neuralgentics.broker.server.instructions import ANY_ROLE, GUIDE, NO_ROLE
from tests.broker.conftest import (
    base_config,
    cli,
    everything_stdio,
    needs_node,
    refresh,
    slow_server,
    time_server,
)
from tests.broker.test_http_front import auth, serve
from tests.broker.test_stdio_front import broker_stdio

pytestmark = needs_node


async def _instructions(config, home, role, extra=None) -> str:
    async with broker_stdio(config, home, role, extra) as s:
        # broker_stdio initialized the session; its result is on the session
        return (await s.initialize()).instructions or ""  # the same result, kept by the session


async def test_stdio_instructions_carry_the_roles_catalog(write_config, home) -> None:
    cfg = base_config(time=time_server(), everything=everything_stdio())
    # time enough for both servers to list on a loaded machine (the default is 3 s; the wait
    # ends as soon as they have)
    cfg["catalog"] = {"list_wait": 30}
    # five brokers, each its own process and config: the first lists the servers (and leaves
    # their tool lists in the home's cache, as a user's first broker does), the others start
    # side by side
    cases = {
        "coder": (write_config(cfg, "coder.yaml"), "coder"),
        "reviewer": (write_config(cfg, "reviewer.yaml"), "reviewer"),
        # no --role: the default role's catalog; none: what some role may use (issue 30
        # item 2: the first request names the servers); no roles at all: the guide alone
        "default": (write_config({**cfg, "default_role": "reviewer"}, "default.yaml"), None),
        "none": (write_config(cfg, "none.yaml"), None),
        "roleless": (write_config({**cfg, "roles": {}}, "roleless.yaml"), None),
        # switched off: the guide alone
        "off": (write_config({**cfg, "catalog": {"in_instructions": False}}, "off.yaml"), "coder"),
    }
    texts: dict[str, str] = {}

    async def one(case: str) -> None:
        config, role = cases[case]
        texts[case] = await _instructions(config, home, role)

    await one("coder")
    async with anyio.create_task_group() as tg:
        for case in cases:
            if case != "coder":
                tg.start_soon(one, case)

    text = texts["coder"]
    assert text.startswith(GUIDE)
    assert "Role coder may use:" in text
    assert "get_current_time" in text and "echo" in text
    assert "get-env" not in text  # everything/get-env is not coder's
    assert count_tokens(text) <= 400  # catalog.instructions_budget_tokens
    assert "Skills" in text and "reviewer" in text and "Reviews changes" not in text  # names only

    reviewer = texts["reviewer"]
    assert "Role reviewer may use:" in reviewer and "everything" not in reviewer
    assert "convert_time" not in reviewer and "get_current_time" in reviewer

    assert "Role reviewer may use:" in texts["default"]
    none = texts["none"]
    assert none.startswith(GUIDE) and ANY_ROLE in none and NO_ROLE not in none
    # the union of coder's and reviewer's: every server, each tool once
    assert "get_current_time" in none and "convert_time" in none and "echo" in none
    assert none.count("get_current_time") == 1
    assert texts["roleless"] == GUIDE + NO_ROLE
    assert texts["off"] == GUIDE


async def test_a_server_that_is_slow_to_list_does_not_hold_initialize(write_config, home) -> None:
    # `quick` lists its tools in milliseconds; `lazy` answers nothing for its first 10 s (and,
    # unlike a shell sleeping, exits when the broker closes its stdin: no 2 s wait for a TERM)
    quick = {"command": slow_server()["command"], "args": slow_server()["args"]}
    lazy = {**quick, "args": [*quick["args"], "--start-delay", "10"]}
    config = write_config(
        {
            "servers": {"quick": quick, "lazy": lazy},
            "roles": {"coder": {"allow": ["quick", "lazy"]}},
            "catalog": {"list_wait": 4},  # the quick server starts a Python process in it
        }
    )
    with anyio.fail_after(30):
        text = await _instructions(config, home, "coder")
    assert "- lazy: tools not listed yet" in text, text
    assert "Tools: wait, hang, pid" in text, text


def test_http_instructions_follow_the_sessions_role(write_config, home) -> None:
    config = write_config(base_config(time=time_server(), everything=everything_stdio()))
    token = cli(
        "broker", "token", "add", "--role", "reviewer", "--label", "rv", "--config", str(config)
    ).stdout.strip()
    assert token

    async def initialize(base: str, headers: dict[str, str]) -> str:
        async with (
            httpx.AsyncClient(headers=headers, timeout=60) as client,
            streamable_http_client(base + "/mcp", http_client=client) as (r, w),
            ClientSession(r, w) as s,
        ):
            result = await s.initialize()
            return result.instructions or ""

    with serve(config, home) as (base, _):
        coder = anyio.run(initialize, base, auth(base, **{"X-Neuralgentics-Role": "coder"}))
        by_token = anyio.run(initialize, base, {"Authorization": f"Bearer {token}"})
        owner = anyio.run(initialize, base, auth(base))
        assert "Role coder may use:" in coder and "echo" in coder
        assert "Role reviewer may use:" in by_token and "echo" not in by_token
        # the owner naming no role, no default role: what some role may use (issue 30 item 2)
        assert ANY_ROLE in owner and "echo" in owner and "get_current_time" in owner

        # a change of roles reaches the next session's instructions (no restart)
        r = httpx.post(
            base + "/roles/reviewer/grant",
            headers=auth(base),
            json={"rules": ["time/convert_time"]},
            timeout=30,
        )
        assert r.status_code == 200, r.text
        again = anyio.run(initialize, base, {"Authorization": f"Bearer {token}"})
        assert "convert_time" in again and "convert_time" not in by_token
    assert yaml.safe_load(config.read_text())["roles"]["reviewer"]["allow"][-1] == (
        "time/convert_time"
    )


@pytest.mark.parametrize("budget", [130, 250])
async def test_the_instructions_stay_inside_their_budget(write_config, home, budget) -> None:
    cfg = base_config(time=time_server(), everything=everything_stdio())
    cfg["roles"]["coder"]["allow"].append("everything/*")
    config = write_config({**cfg, "catalog": {"instructions_budget_tokens": budget}})
    refresh(config, home)  # every tool known: the budget is what cuts
    text = await _instructions(config, home, "coder")
    assert "- everything" in text and "- time" in text  # no server left out
    assert count_tokens(text) <= budget
    if budget == 130:  # server-everything's ~13 tools do not all fit: said, and how to find them
        assert "find_tool(intent) searches them all" in text
