"""Every path to a downstream tool applies the same role (issue 29, item 6).

Under OpenCode the broker runs as `broker stdio` with no `--role`; the plugin stamps the
calling agent's role on each call. A passthrough tool (`expose: tools`) used to run as
`default_role` whatever agent called it: the `plan` role was denied `*/get-env` through
`mcp_router_call`, yet `everything_get-env` ran. Real `broker stdio`, real server-everything,
the SDK's client; the stamp as the plugin writes it (tests/opencode/plugin.test.ts).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from tests.broker.conftest import NEURALGENTICS, audit_lines, everything_stdio, needs_node
from tests.broker.test_content import text

pytestmark = needs_node


def _config() -> dict[str, Any]:
    return {
        "servers": {"everything": {**everything_stdio(), "expose": ["tools"]}},
        "roles": {
            "build": {"allow": ["everything"]},
            "plan": {"allow": ["everything"], "deny": ["*/get-env"]},
        },
        "default_role": "build",
    }


async def test_a_passthrough_tool_runs_as_the_stamped_role_like_the_router(
    home: Path, write_config: Any
) -> None:
    config = write_config(_config())
    connect = connect_over_stdio_unpinned(config, home)
    async with connect() as s:
        # The router, as the plugin stamps it for the plan agent: denied.
        with pytest.raises(MCPError, match="may not use everything/get-env") as routed:
            await s.call_tool(
                "mcp_router_call",
                {"server": "everything", "tool": "get-env", "role": "plan", "session_id": "s-1"},
            )
        # The passthrough tool, stamped the same way: denied the same way.
        with pytest.raises(MCPError, match="may not use everything/get-env") as direct:
            await s.call_tool("everything_get-env", {"_neuralgentics": {"role": "plan"}})
        assert direct.value.code == routed.value.code
        # Allowed to plan: the stamp is removed before the tool sees its arguments.
        out = await s.call_tool(
            "everything_echo",
            {"message": "hi", "_neuralgentics": {"role": "plan", "session_id": "s-1"}},
        )
        assert text(out) == "Echo: hi" and not out.is_error
        # No stamp (another client): the connection's role, default_role, for both paths.
        assert "PATH" in text(await s.call_tool("everything_get-env", {}))
        with pytest.raises(MCPError, match="must be an object"):
            await s.call_tool("everything_echo", {"message": "x", "_neuralgentics": "plan"})
    records = [r for r in audit_lines(home) if r["tool"] in ("get-env", "echo")]
    assert [(r["role"], r["tool"], r["outcome"]) for r in records] == [
        ("plan", "get-env", "denied"),
        ("plan", "get-env", "denied"),
        ("plan", "echo", "ok"),
        ("build", "get-env", "ok"),
    ]
    assert records[2]["session_id"] == "s-1"


def connect_over_stdio_unpinned(
    config: Path, home: Path
) -> Callable[[], contextlib.AbstractAsyncContextManager[ClientSession]]:
    """connect() -> a ClientSession on `broker stdio` with no `--role` (as OpenCode runs it)."""
    env = {
        **os.environ,
        "NEURALGENTICS_HOME": str(home / "home"),
        "NEURALGENTICS_CONFIG_DIR": str(home / "config"),
    }

    @contextlib.asynccontextmanager
    async def connect() -> AsyncIterator[ClientSession]:
        params = StdioServerParameters(
            command=NEURALGENTICS, args=["broker", "stdio", "--config", str(config)], env=env
        )
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            yield s

    return connect
