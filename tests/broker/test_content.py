"""Resources, templates, prompts, passthrough tools, sampling, elicitation and list_changed
through both fronts (`broker stdio`, `broker serve`), with the SDK client, against
server-everything (which has all of them).

Two instances of it: `everything` exposes tools, resources and prompts (listed directly,
namespaced); `meta` exposes nothing (its resources and prompts are in the catalog and read or
fetched on demand).
"""

from __future__ import annotations

import base64
import contextlib
import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp.types as types
import pytest
import yaml
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.broker.conftest import (
    NEURALGENTICS,
    audit_lines,
    everything_stdio,
    needs_node,
    slow_server,
)
from tests.broker.test_http_front import auth, serve

pytestmark = needs_node

STATIC = "demo://resource/static/document"


def config_data() -> dict[str, Any]:
    return {
        "servers": {
            "everything": {**everything_stdio(), "expose": "all"},
            "meta": everything_stdio(),
            "slow": {**slow_server(), "expose": ["prompts"]},
        },
        "roles": {
            "coder": {"allow": ["everything", "meta", "slow"]},
            "reader": {
                "allow": [
                    f"everything:resource:{STATIC}/*",
                    "everything:prompt:simple-*",
                    "everything/echo",
                ],
            },
        },
    }


Connect = Callable[..., contextlib.AbstractAsyncContextManager[ClientSession]]


def connect_over_stdio(config: Path, home: Path) -> Connect:
    """connect(role, **session kwargs) -> an initialized ClientSession of its own `broker
    stdio` process."""
    env = {
        **os.environ,
        "NEURALGENTICS_HOME": str(home / "home"),
        "NEURALGENTICS_CONFIG_DIR": str(home / "config"),
    }

    @contextlib.asynccontextmanager
    async def connect_stdio(role: str, **kw: Any) -> AsyncIterator[ClientSession]:
        params = StdioServerParameters(
            command=NEURALGENTICS,
            args=["broker", "stdio", "--config", str(config), "--role", role],
            env=env,
        )
        async with stdio_client(params) as (r, w), ClientSession(r, w, **kw) as s:
            await s.initialize()
            yield s

    return connect_stdio


def connect_over_http(base: str) -> Connect:
    """connect(role, **session kwargs) -> an initialized ClientSession on `broker serve`."""

    @contextlib.asynccontextmanager
    async def connect_http(role: str, **kw: Any) -> AsyncIterator[ClientSession]:
        headers = auth(base, **{"X-Neuralgentics-Role": role})
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            streamable_http_client(base + "/mcp", http_client=http) as (r, w),
            ClientSession(r, w, **kw) as s,
        ):
            await s.initialize()
            yield s

    return connect_http


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """One `broker serve` for the tests that change nothing on it (they only add audit
    records, and each reads its own): (base URL, its home)."""
    home = tmp_path_factory.mktemp("content-http")
    config = home / "broker.yaml"
    config.write_text(yaml.safe_dump(config_data(), sort_keys=False))
    with serve(config, home) as (base, _):
        yield base, home


@pytest.fixture(params=["stdio", "http"])
def front(request: pytest.FixtureRequest, write_config, home: Path) -> Any:
    """(name, connect(role, **session kwargs) -> an initialized ClientSession, audit() -> the
    audit records written since the test began). Over HTTP the broker is the module's."""
    if request.param == "stdio":
        config = write_config(config_data())
        yield "stdio", connect_over_stdio(config, home), lambda: audit_lines(home)
        return
    base, served_home = request.getfixturevalue("served")
    before = len(audit_lines(served_home))
    yield "http", connect_over_http(base), lambda: audit_lines(served_home)[before:]


@pytest.fixture(params=["stdio", "http"])
def own_front(request: pytest.FixtureRequest, write_config, home: Path) -> Any:
    """(name, connect) on a broker of the test's own: for a test that changes what the servers
    list."""
    config = write_config(config_data())
    if request.param == "stdio":
        yield "stdio", connect_over_stdio(config, home)
        return
    with serve(config, home) as (base, _):
        yield "http", connect_over_http(base)


def text(result: types.CallToolResult | types.GetPromptResult) -> str:
    if isinstance(result, types.GetPromptResult):
        return "".join(
            m.content.text for m in result.messages if isinstance(m.content, types.TextContent)
        )
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def test_listed_read_fetched_and_called_with_namespaces(front: Any) -> None:
    name, connect, audit = front
    async with connect("coder") as s:
        # Listed directly: what `everything` exposes, namespaced; nothing of `meta`.
        resources = (await s.list_resources()).resources
        uris = sorted(r.uri for r in resources)
        assert f"broker://everything/{STATIC}/features.md" in uris
        assert all(u.startswith("broker://everything/") for u in uris)
        templates = sorted(
            t.uri_template for t in (await s.list_resource_templates()).resource_templates
        )
        assert templates == [
            "broker://everything/demo://resource/dynamic/blob/{resourceId}",
            "broker://everything/demo://resource/dynamic/text/{resourceId}",
        ]
        prompts = sorted(p.name for p in (await s.list_prompts()).prompts)
        assert prompts == [
            "everything_args-prompt",
            "everything_completable-prompt",
            "everything_resource-prompt",
            "everything_simple-prompt",
            "slow_hello",
        ]
        tools = [t.name for t in (await s.list_tools()).tools]
        assert tools[:4] == ["get_tool_list", "mcp_router_call", "describe_tool", "find_tool"]
        assert "everything_echo" in tools and not any(t.startswith("meta_") for t in tools)

        # Read and fetched: a listed one, a templated one, and `meta`'s on demand.
        doc = await s.read_resource(f"broker://everything/{STATIC}/features.md")
        assert doc.contents[0].uri == f"broker://everything/{STATIC}/features.md"
        assert "Everything Server" in doc.contents[0].text
        dyn = await s.read_resource("broker://meta/demo://resource/dynamic/text/7")
        assert dyn.contents[0].uri == "broker://meta/demo://resource/dynamic/text/7"
        assert dyn.contents[0].text.startswith("Resource 7:")
        # A plain URI that only one server the role reads has is found too (tool results
        # carry the server's own URIs); one that two servers have must name its server.
        with pytest.raises(MCPError, match="could come from everything, meta"):
            await s.read_resource(f"{STATIC}/features.md")
        assert "Paris" in text(await s.get_prompt("everything_args-prompt", {"city": "Paris"}))
        assert text(await s.get_prompt("meta_simple-prompt"))
        with pytest.raises(MCPError, match="no prompt 'nope_x'"):
            await s.get_prompt("nope_x")

        # Passthrough: the tool by its namespaced name, like mcp_router_call.
        assert text(await s.call_tool("everything_echo", {"message": "hi"})) == "Echo: hi"
        with pytest.raises(MCPError, match="do not match its input schema") as bad:
            await s.call_tool("everything_echo", {"message": 5})
        assert bad.value.code == -32602  # as for mcp_router_call

        # The catalog: meta-tools mode content compactly, passthrough named.
        catalog = text(await s.call_tool("get_tool_list", {}))
        assert "Passthrough (these servers' tools are your own tools" in catalog
        assert f"- meta: {STATIC}/{{architecture.md" in catalog
        assert "meta_args-prompt(city, state?)" in catalog
        assert "- everything: listed by resources/list" in catalog

    records = audit()
    kinds = {(r["kind"], r["server"], r["tool"], r["outcome"]) for r in records}
    assert ("resource", "everything", "resources/read", "ok") in kinds
    assert ("resource", "meta", "resources/read", "ok") in kinds
    assert ("prompt", "everything", "args-prompt", "ok") in kinds
    assert ("call", "everything", "echo", "ok") in kinds
    assert ("call", "everything", "echo", "invalid") in kinds
    assert {r["front"] for r in records} == {name}


async def test_a_roles_rules_apply_to_resources_prompts_and_passthrough(front: Any) -> None:
    _, connect, audit = front
    async with connect("reader") as s:
        uris = {r.uri for r in (await s.list_resources()).resources}
        assert uris and all(u.startswith(f"broker://everything/{STATIC}/") for u in uris)
        assert (await s.list_resource_templates()).resource_templates == []
        assert [p.name for p in (await s.list_prompts()).prompts] == ["everything_simple-prompt"]
        assert [t.name for t in (await s.list_tools()).tools][4:] == ["everything_echo"]

        with pytest.raises(MCPError) as denied:
            await s.read_resource("broker://everything/demo://resource/dynamic/text/1")
        assert denied.value.code == -32003
        assert "no pattern in roles.reader.allow matches everything:resource:" in str(denied.value)
        with pytest.raises(MCPError, match="no prompt 'everything_args-prompt'"):
            await s.get_prompt("everything_args-prompt", {"city": "x"})
        with pytest.raises(MCPError) as unknown:
            await s.call_tool("everything_get-env", {})
        # not listed, and refused by the role's rules (audited) like mcp_router_call
        assert "may not use everything/get-env" in str(unknown.value)

    denied_records = [r for r in audit() if r["outcome"] == "denied"]
    assert any(
        r["kind"] == "resource" and r["rule"].startswith("no pattern in roles.reader.allow")
        for r in denied_records
    )


async def test_sampling_and_elicitation_reach_the_client_and_come_back(front: Any) -> None:
    name, connect, audit = front
    asked: list[Any] = []

    async def sampling(ctx: Any, params: types.CreateMessageRequestParams) -> Any:
        asked.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="the model says hi"),
            model="scripted",
        )

    async def elicitation(ctx: Any, params: types.ElicitRequestParams) -> Any:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"name": "Ada", "check": True})

    async with connect("coder", sampling_callback=sampling, elicitation_callback=elicitation) as s:
        out = await s.call_tool("everything_trigger-sampling-request", {"prompt": "say hi"})
        assert "the model says hi" in text(out)
        out = await s.call_tool(
            "mcp_router_call",
            {"server": "meta", "tool": "trigger-sampling-request", "arguments": {"prompt": "x"}},
        )
        assert "the model says hi" in text(out)
        out = await s.call_tool("everything_trigger-elicitation-request", {})
        assert "Ada" in text(out) and not out.is_error
    sampled = [a for a in asked if isinstance(a, types.CreateMessageRequestParams)]
    assert "say hi" in sampled[0].messages[0].content.text
    forwarded = [r for r in audit() if r["kind"] == "request"]
    assert [(r["server"], r["tool"], r["outcome"]) for r in forwarded] == [
        ("everything", "sampling/createMessage", "ok"),
        ("meta", "sampling/createMessage", "ok"),
        ("everything", "elicitation/create", "ok"),
    ]
    assert {r["role"] for r in forwarded} == {"coder"} and {r["front"] for r in forwarded} == {name}


async def test_a_client_without_sampling_gets_the_servers_error_naming_why(front: Any) -> None:
    _, connect, audit = front
    async with connect("coder") as s:
        for call in (
            ("everything_trigger-sampling-request", {"prompt": "x"}),
            (
                "mcp_router_call",
                {
                    "server": "meta",
                    "tool": "trigger-sampling-request",
                    "arguments": {"prompt": "x"},
                },
            ),
        ):
            out = await s.call_tool(*call)
            assert out.is_error
            assert "sampling/createMessage from server" in text(out)
    refused = [r for r in audit() if r["kind"] == "request"]
    assert len(refused) == 2 and {r["outcome"] for r in refused} == {"invalid"}


async def test_list_changed_of_tools_resources_and_prompts_is_passed_on(own_front: Any) -> None:
    _, connect = own_front
    seen: list[str] = []
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification):
            seen.append(message.method)
            changed.set()

    async with connect("coder", message_handler=on_message) as s:
        before = {r.uri for r in (await s.list_resources()).resources}
        note = base64.b64encode(b"remember the milk").decode()
        await s.call_tool(
            "everything_gzip-file-as-resource",
            {"name": "note.txt", "data": f"data:text/plain;base64,{note}"},
        )
        with anyio.fail_after(10):
            while "notifications/resources/list_changed" not in seen:
                await changed.wait()
                changed = anyio.Event()
        after = {r.uri for r in (await s.list_resources()).resources}
        assert after - before == {"broker://everything/demo://resource/session/note.txt"}

        await s.call_tool("mcp_router_call", {"server": "slow", "tool": "grow_prompt"})
        await s.call_tool("mcp_router_call", {"server": "slow", "tool": "grow"})
        with anyio.fail_after(10):
            while not {
                "notifications/prompts/list_changed",
                "notifications/tools/list_changed",
            } <= set(seen):
                await changed.wait()
                changed = anyio.Event()
        assert "slow_grown1" in {p.name for p in (await s.list_prompts()).prompts}
