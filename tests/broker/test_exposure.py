"""`expose: auto` (broker/exposure.py): a server is listed directly when that costs fewer tokens
than its catalog entry and its share of the meta-tools; meta-tools only when something is
brokered; passthrough schemas without pydantic titles; the same role policy and audit."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from neuralgentics.broker.catalog.content_cache import ContentCache
from neuralgentics.broker.config import ServerConfig, load_config
from neuralgentics.broker.exposure import ServerCost, decide, overhead_cost, trim_schema
from tests.broker.conftest import (
    NEURALGENTICS,
    audit_lines,
    base_config,
    everything_stdio,
    needs_node,
    refresh,
    time_server,
)
from tests.broker.test_stdio_front import text

META = {"get_tool_list", "mcp_router_call", "describe_tool", "find_tool"}


# ------------------------------------------------------------------ the decision, by numbers


def test_one_small_server_is_listed_directly_when_the_meta_tools_cost_more() -> None:
    # mcp-server-time's figures: 287 tokens natively, ~40 in the catalog, meta-tools ~300
    assert decide({"time": ServerCost(287, 40)}, overhead=300) == {"time"}


def test_big_servers_share_the_meta_tools_and_stay_brokered() -> None:
    costs = {"everything": ServerCost(3000, 120), "fs": ServerCost(2500, 90)}
    assert decide(costs, overhead=300) == frozenset()


def test_once_the_meta_tools_are_paid_a_server_goes_where_it_is_cheaper() -> None:
    # a tiny server (cheaper than its catalog line) beside a big one: tiny direct, big brokered
    costs = {"tiny": ServerCost(30, 40), "big": ServerCost(3000, 120), "mid": ServerCost(400, 60)}
    assert decide(costs, overhead=300) == {"tiny"}


def test_all_direct_wins_when_the_split_would_cost_more() -> None:
    # split: 300 + 20 + 100 = 420; all direct: 100 + 200 = 300
    costs = {"a": ServerCost(100, 120), "b": ServerCost(200, 20)}
    assert decide(costs, overhead=300) == {"a", "b"}


def test_an_explicit_expose_wins_and_an_unlisted_server_stays_brokered() -> None:
    costs = {
        "forced": ServerCost(None, 0, auto=False, tools_exposed=True),
        "kept": ServerCost(None, 0, auto=False, tools_exposed=False),
        "small": ServerCost(50, 60),
        "big-but-forced-direct": ServerCost(None, 0, auto=False, tools_exposed=True),
    }
    # "kept" is brokered whatever it costs: the meta-tools are paid, "small" goes direct
    assert decide(costs, overhead=300) == {"forced", "big-but-forced-direct", "small"}
    # a server never listed: its cost is unknown, it stays in the catalog (named there)
    assert decide({"new": ServerCost(None, 0), "small": ServerCost(200, 40)}, 300) == frozenset()


def test_the_overhead_is_the_meta_tools_and_the_guide() -> None:
    assert 200 < overhead_cost() < 600


def test_expose_defaults_to_auto_and_explicit_values_still_parse() -> None:
    base = {"command": "x"}
    assert ServerConfig(**base).auto_expose
    assert ServerConfig(**base).exposed == frozenset()
    assert ServerConfig(**base, expose="auto").auto_expose
    assert ServerConfig(**base, expose="none").exposed == frozenset()
    assert not ServerConfig(**base, expose="none").auto_expose
    assert ServerConfig(**base, expose="tools").exposed == {"tools"}
    assert ServerConfig(**base, expose="all").exposed == {"tools", "resources", "prompts"}
    with pytest.raises(ValueError, match="expose"):
        ServerConfig(**base, expose="sometimes")


# ------------------------------------------------------------------ cheaper schemas


def test_trim_drops_schema_titles_but_keeps_a_property_named_title() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "fetchArguments",
        "type": "object",
        "properties": {
            "title": {"title": "Title", "type": "string", "description": "the page title"},
            "urls": {"title": "Urls", "type": "array", "items": {"title": "Url", "type": "string"}},
            "mode": {"anyOf": [{"title": "A", "const": "a"}, {"type": "null"}], "default": None},
        },
        "required": ["title"],
        "$defs": {"Thing": {"title": "Thing", "type": "object", "properties": {}}},
    }
    out = trim_schema(schema)
    assert out == {
        "type": "object",
        "properties": {
            "title": {"type": "string", "description": "the page title"},
            "urls": {"type": "array", "items": {"type": "string"}},
            "mode": {"anyOf": [{"const": "a"}, {"type": "null"}], "default": None},
        },
        "required": ["title"],
        "$defs": {"Thing": {"type": "object", "properties": {}}},
    }
    assert schema["title"] == "fetchArguments"  # the input is left as it was


# ------------------------------------------------------------------ a real broker over stdio


@contextlib.asynccontextmanager
async def broker_stdio(
    config: Path, home: Path, role: str, on_message: Any = None
) -> AsyncIterator[tuple[ClientSession, types.InitializeResult]]:
    env = {
        **os.environ,
        "NEURALGENTICS_HOME": str(home / "home"),
        "NEURALGENTICS_CONFIG_DIR": str(home / "config"),
    }
    args = ["broker", "stdio", "--config", str(config), "--role", role]
    params = StdioServerParameters(command=NEURALGENTICS, args=args, env=env)
    async with (
        stdio_client(params) as (r, w),
        ClientSession(r, w, message_handler=on_message) as session,
    ):
        init = await session.initialize()
        yield session, init


@needs_node
async def test_one_server_is_listed_directly_with_no_meta_tools(write_config, home: Path) -> None:
    config = write_config(base_config(time=time_server()))
    refresh(config, home)  # its tools listed before (a first start: the test below)
    async with broker_stdio(config, home, "coder") as (s, init):
        tools = (await s.list_tools()).tools
        names = {t.name for t in tools}
        # describe_tool stays for the role's skills (the bundled ones), named in the
        # instructions; no other meta-tool, no guide to them, no catalog of time's tools
        assert names == {"time_get_current_time", "time_convert_time", "describe_tool"}
        instructions = init.instructions or ""
        assert instructions.startswith("Skills") and "describe_tool(skill=ID)" in instructions
        assert "mcp_router_call" not in instructions and "get_current_time" not in instructions
        assert names & META == {"describe_tool"}
        # pydantic's titles are gone from what every request carries
        assert '"title"' not in json.dumps([t.input_schema for t in tools])
        r = await s.call_tool("time_get_current_time", {"timezone": "UTC"})
        assert not r.is_error and "UTC" in text(r)
    rec = [a for a in audit_lines(home) if a.get("tool") == "get_current_time"]
    assert rec and rec[-1]["role"] == "coder" and rec[-1]["server"] == "time"


@needs_node
async def test_a_first_start_answers_before_listing_then_says_the_list_changed(
    write_config, home: Path
) -> None:
    # An empty home: time was never listed, so its cost is unknown and it starts behind the
    # catalog; it is started once tools/list is answered, and when its listing makes it
    # cheaper listed directly the client is told to list again (OpenCode does).
    config = write_config(base_config(time=time_server()))
    changed = anyio.Event()

    async def on_message(message: object) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    async with broker_stdio(config, home, "coder", on_message) as (s, init):
        catalog = init.instructions or ""
        assert "- time:" in catalog and "tools not listed yet" in catalog, catalog
        first = {t.name for t in (await s.list_tools()).tools}
        assert first == META
        with anyio.fail_after(60):
            await changed.wait()
        names = {t.name for t in (await s.list_tools()).tools}
        assert names == {"time_get_current_time", "time_convert_time", "describe_tool"}
        r = await s.call_tool("time_get_current_time", {"timezone": "UTC"})
        assert not r.is_error and "UTC" in text(r)
    # and the next start's catalog knows it from the cache
    assert (home / "home" / "broker" / "tools" / "time.json").exists()


@needs_node
async def test_a_denied_tool_is_not_listed_and_refused_when_called(
    write_config, home: Path
) -> None:
    config = write_config(base_config(time=time_server()))
    refresh(config, home)
    async with broker_stdio(config, home, "reviewer") as (s, _):
        names = {t.name for t in (await s.list_tools()).tools}
        assert names - {"describe_tool"} == {"time_get_current_time"}  # may not convert
        with pytest.raises(MCPError, match="convert_time"):
            await s.call_tool(
                "time_convert_time",
                {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Europe/Paris"},
            )
    denied = [a for a in audit_lines(home) if a.get("outcome") == "denied"]
    assert denied and denied[-1]["role"] == "reviewer"


@needs_node
async def test_many_tools_stay_brokered_behind_the_meta_tools(write_config, home: Path) -> None:
    config = write_config(base_config(time=time_server(), everything=everything_stdio()))
    refresh(config, home)
    async with broker_stdio(config, home, "coder") as (s, init):
        # the catalog reaches the first request: in the instructions
        assert "mcp_router_call" in (init.instructions or "")
        assert "everything" in (init.instructions or "")
        tools = (await s.list_tools()).tools
        names = {t.name for t in tools}
        assert META <= names
        assert not any(n.startswith("everything_") for n in names)
        catalog = text(await s.call_tool("get_tool_list", {}))
        assert "everything" in catalog and "echo" in catalog


@needs_node
async def test_expose_none_keeps_even_one_small_server_brokered(write_config, home: Path) -> None:
    config = write_config(base_config(time={**time_server(), "expose": "none"}))
    async with broker_stdio(config, home, "coder") as (s, _):
        names = {t.name for t in (await s.list_tools()).tools}
        assert names == META
        r = await s.call_tool(
            "mcp_router_call",
            {"server": "time", "tool": "get_current_time", "arguments": {"timezone": "UTC"}},
        )
        assert not r.is_error


@needs_node
async def test_refresh_lists_resources_so_a_broker_declares_them_only_when_a_server_has_some(
    write_config, home: Path
) -> None:
    # OpenCode adds three resource tools of its own (275 tokens a request) for a server that
    # declares resources; `broker refresh` (what `broker add` runs) lists them before any
    # broker starts, so the first `initialize` already knows whether some server has them
    config = write_config(base_config(time=time_server(), everything=everything_stdio()))
    refresh(config, home)
    contents = ContentCache(home / "home" / "broker" / "content")
    servers = load_config(config).servers
    time_content = contents.load("time", servers["time"])
    everything = contents.load("everything", servers["everything"])
    assert time_content is not None and everything is not None  # listed by refresh alone
    assert not (time_content.resources or time_content.templates or time_content.prompts)
    assert everything.resources and everything.prompts
    time_only = write_config(base_config(time=time_server()), name="time-only.yaml")
    async with broker_stdio(time_only, home, "coder") as (_, init):
        assert init.capabilities.resources is None and init.capabilities.prompts is None
    async with broker_stdio(config, home, "coder") as (_, init):
        assert init.capabilities.resources is not None and init.capabilities.prompts is not None
