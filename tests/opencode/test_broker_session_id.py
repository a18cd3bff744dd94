"""One OpenCode session followed from the agent to the egress gateway (issue 18, item 5), and
the role's catalog in its system prompt (issue 21, item 2).

The real `opencode run` with our plugin and `broker stdio` (as `neuralgentics opencode install`
writes them) calls server-everything's `echo` over streamable HTTP through a recording egress
gateway. OpenCode's session id (`ses_…`) must be the audit record's `session_id` and the
`X-Neuralgentics-Session` header the gateway saw; the broker process's own id stays in the
record as `connection`.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path

import pytest
import yaml
from fake_llm import (
    FakeLLM,
    Reply,
    ToolCall,
    opencode_config,
    system_text,
    tool_names,
    tool_results,
)
from oc_support import NODE_BIN, free_port, opencode_install, opencode_run

from tests.broker.conftest import everything_served
from tests.broker.gateway import RecordingGateway

pytestmark = pytest.mark.slow

OPENCODE_VERSION = "1.18.33"


class GatewayThread:
    """The recording gateway on its own event loop, for a test that is not async."""

    def __init__(self) -> None:
        self.gateway = RecordingGateway()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self) -> RecordingGateway:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.gateway.start(), self.loop).result(10)
        return self.gateway

    def __exit__(self, *exc: object) -> None:
        async def shutdown() -> None:
            await self.gateway.stop()
            pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in pending:  # connections OpenCode's broker left open
                t.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(shutdown(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


def script(req: dict) -> Reply:
    if "neuralgentics_mcp_router_call" not in tool_names(req):
        return Reply(text="Echo")  # the title request
    if not tool_results(req):
        return Reply(
            tool_calls=[
                ToolCall(
                    "neuralgentics_mcp_router_call",
                    {"server": "everything", "tool": "echo", "arguments": {"message": "hi"}},
                )
            ]
        )
    return Reply(text="done")


def _skip_plugin_install(config_dir: Path) -> None:
    """The lock that spares this test OpenCode's npm install of @opencode-ai/plugin (notes §3)."""
    if not (config_dir / "node_modules").exists():
        (config_dir / "node_modules").mkdir(parents=True)
        (config_dir / "package-lock.json").write_text(
            json.dumps(
                {"packages": {"": {"dependencies": {"@opencode-ai/plugin": OPENCODE_VERSION}}}}
            )
        )


def test_opencode_session_id_reaches_the_audit_and_the_egress_gateway(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    opencode = NODE_BIN / "opencode"
    everything = NODE_BIN / "mcp-server-everything"
    for needed in (opencode, everything):
        if not needed.exists():
            pytest.fail(f"{needed} is missing: run `npm install` (scripts/install.sh --test)")
    with everything_served("streamableHttp") as everything_url:
        cfg_dir = Path(isolated_env["NEURALGENTICS_CONFIG_DIR"])
        (cfg_dir / "broker.yaml").write_text(
            yaml.safe_dump(
                {
                    "servers": {
                        "everything": {
                            "transport": "streamable_http",
                            "url": f"{everything_url}/mcp",
                        }
                    },
                    "roles": {"build": {"allow": ["everything/echo"]}},
                    # the catalog in the broker's instructions is the default role's
                    "default_role": "build",
                }
            )
        )
        with GatewayThread() as gateway, FakeLLM(script) as llm:
            project = tmp_path / "proj"
            project.mkdir()
            (project / "opencode.json").write_text(json.dumps(opencode_config(llm.base_url)))
            env = {
                **os.environ,
                **isolated_env,
                "EGRESS_GATEWAY_URL": gateway.url,
                # memini-core is not running: the plugin degrades, the broker part is what counts
                "NEURALGENTICS_SERVICE_URL": f"http://127.0.0.1:{free_port()}",
                "PWD": str(project),
            }
            opencode_install(project, env)
            _skip_plugin_install(Path(isolated_env["XDG_CONFIG_HOME"]) / "opencode")
            if (project / ".opencode").is_dir():
                _skip_plugin_install(project / ".opencode")
            run, events = opencode_run(opencode, project, env, "echo hi")
            debug = f"rc={run.returncode}\nstdout:{run.stdout[-2000:]}\nstderr:{run.stderr[-2000:]}"
            assert run.returncode == 0, debug
            session = next(e["sessionID"] for e in events if e.get("sessionID"))
            assert session.startswith("ses_")
            assert any("Echo: hi" in r for q in llm.requests for r in tool_results(q)), debug
            seen = [s.headers.get("x-neuralgentics-session") for s in gateway.seen]
            # the role's catalog reached the system prompt (the broker's MCP instructions), so
            # the model's first call could be the router, with no get_tool_list round trip
            first = next(
                q for q in llm.requests if "neuralgentics_mcp_router_call" in tool_names(q)
            )
            system = system_text(first)
            assert "<mcp_instructions>" in system and "Role build may use:" in system, system
            assert "- everything:" in system and "echo" in system

    audit = Path(isolated_env["NEURALGENTICS_HOME"]) / "broker" / "audit.jsonl"
    records = [json.loads(x) for x in audit.read_text().splitlines()]
    calls = [r for r in records if r["tool"] == "echo"]
    assert len(calls) == 1, records
    assert calls[0]["outcome"] == "ok" and calls[0]["role"] == "build"
    assert calls[0]["session_id"] == session
    assert calls[0]["connection"].startswith("stdio-")
    # the tools/call went out through the gateway with the agent's session
    assert session in seen, seen
