"""The broker declares resources and prompts only when some server may have them (issue 30
item 3): OpenCode adds three resource tools (275 tokens in every request) for any MCP server
that declares resources; with only mcp-server-time behind the broker they would have nothing
to read. Real servers, the SDK's client."""

from __future__ import annotations

from tests.broker.conftest import base_config, everything_stdio, needs_node, time_server
from tests.broker.test_stdio_front import broker_stdio

pytestmark = needs_node


def _config(**servers):
    # time enough for the servers to list before initialize is answered on a loaded machine
    # (the wait ends as soon as they have)
    return {**base_config(**servers), "catalog": {"list_wait": 30}}


async def _capabilities(config, home):
    async with broker_stdio(config, home, "coder") as s:
        return (await s.initialize()).capabilities


async def test_resources_and_prompts_are_declared_only_when_a_server_may_have_them(
    write_config, home
) -> None:
    time_only = write_config(_config(time=time_server()), "a.yaml")
    caps = await _capabilities(time_only, home)
    assert caps.tools is not None and caps.tools.list_changed
    assert caps.resources is None and caps.prompts is None

    # server-everything has resources and prompts: reachable through OpenCode's own tools
    both = write_config(_config(time=time_server(), everything=everything_stdio()), "b.yaml")
    caps = await _capabilities(both, home)
    assert caps.resources is not None and caps.resources.list_changed
    assert caps.prompts is not None and caps.prompts.list_changed
