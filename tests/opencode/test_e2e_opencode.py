"""The whole chain inside the real OpenCode binary (npm opencode-ai), driven by a scripted model.

`neuralgentics up` runs memini-core and the broker's HTTP front; `neuralgentics opencode install`
puts the plugin, agents and opencode.json into a fresh project; `opencode run` then plays a
script: delegate an implementation task to `architect` (blocked by the plugin, the model sees
why), then to `coder` (runs), then list and call a brokered tool (mcp-server-time), then finish.
Each step is asserted from the services' own state: the audit log, memini-core, the requests
OpenCode sent to the model.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import yaml
from _token import bearer
from fake_llm import FakeLLM, Reply, ToolCall, system_text, tool_names, tool_results
from oc_support import NODE_BIN, free_port, listening, start_up, stop

pytestmark = pytest.mark.slow

MARKER = "CSV-EXPORT-DONE-7f3a"
TASK = "Implement a CSV exporter function and add a --csv flag to the export command"


def script(req: dict) -> Reply:
    names = tool_names(req)
    system = system_text(req)
    if "You are the coder agent" in system:
        return Reply(
            text=f"Implemented reports/csv_export.py with a header row and quoting. {MARKER}"
        )
    if "You are the architect agent" in system:
        return Reply(text="architect ran (it must not)")
    if "task" not in names:
        return Reply(text="CSV exporter")  # title generation and other side requests
    done = tool_results(req)
    delegate = {
        "description": "CSV export",
        "prompt": "Add a --csv flag to the export command and implement the function that writes "
        "the rows with a header row.",
    }
    if len(done) == 0:
        return Reply(tool_calls=[ToolCall("task", {**delegate, "subagent_type": "architect"})])
    if len(done) == 1:
        return Reply(tool_calls=[ToolCall("task", {**delegate, "subagent_type": "coder"})])
    if len(done) == 2:
        return Reply(tool_calls=[ToolCall("neuralgentics_get_tool_list", {})])
    if len(done) == 3:
        return Reply(
            tool_calls=[
                ToolCall(
                    "neuralgentics_mcp_router_call",
                    {
                        "server": "time",
                        "tool": "get_current_time",
                        "arguments": {"timezone": "UTC"},
                        "role": "admin",
                    },
                )
            ]
        )
    return Reply(text="The CSV exporter is in place.")


def test_opencode_runs_the_plugin_routing_broker_and_memory(
    tmp_path: Path, isolated_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    opencode = NODE_BIN / "opencode"
    if not opencode.exists():
        pytest.fail(
            "node_modules/.bin/opencode is missing: run `npm install` (scripts/install.sh --test)"
        )
    time_server = Path(sys.executable).parent / "mcp-server-time"
    cfg_dir = Path(isolated_env["NEURALGENTICS_CONFIG_DIR"])
    (cfg_dir / "broker.yaml").write_text(
        yaml.safe_dump(
            {
                "servers": {
                    "time": {
                        "command": str(time_server),
                        "args": ["--local-timezone", "UTC"],
                        "summary": "current time and timezone conversion",
                    }
                },
                "roles": {"orchestrator": {"allow": ["time/*"]}, "coder": {"allow": ["time/*"]}},
            }
        )
    )

    port, broker_port = free_port(), free_port()
    env = {
        **isolated_env,
        "NEURALGENTICS_PORT": str(port),
        "NEURALGENTICS_BROKER_PORT": str(broker_port),
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    from neuralgentics.config import get_settings

    get_settings.cache_clear()
    up_proc, up_lines = start_up(env, port, broker_port)
    try:
        assert f"memini-core  http://127.0.0.1:{port}" in up_lines
        assert f"broker       http://127.0.0.1:{broker_port}/mcp" in up_lines
        with FakeLLM(script) as llm:
            project = tmp_path / "proj"
            project.mkdir()
            # The user's own opencode.json (their model provider); install merges into it.
            (project / "opencode.json").write_text(
                json.dumps(
                    {
                        "provider": {
                            "fake": {
                                "npm": "@ai-sdk/openai-compatible",
                                "name": "Fake",
                                "options": {"baseURL": llm.base_url, "apiKey": "test"},
                                "models": {"fake-model": {"name": "Fake", "tool_call": True}},
                            }
                        },
                        "model": "fake/fake-model",
                        "small_model": "fake/fake-model",
                        "autoupdate": False,
                        "share": "disabled",
                    },
                    indent=2,
                )
            )
            res = subprocess.run(
                [
                    str(Path(sys.executable).parent / "neuralgentics"),
                    "opencode",
                    "install",
                    "--project",
                    str(project),
                    "--broker",
                    "http",
                ],
                capture_output=True,
                text=True,
                timeout=120,
                env={**os.environ, **env},
            )
            assert res.returncode == 0, res.stderr
            assert json.loads((project / "opencode.json").read_text())["mcp"]["neuralgentics"][
                "url"
            ] == (f"http://127.0.0.1:{broker_port}/mcp")

            run = subprocess.run(
                [
                    str(opencode),
                    "run",
                    "--format",
                    "json",
                    "--agent",
                    "orchestrator",
                    "--model",
                    "fake/fake-model",
                    TASK,
                ],
                cwd=project,
                capture_output=True,
                text=True,
                timeout=420,
                env={
                    **os.environ,
                    **env,
                    "PWD": str(project),
                    "OPENCODE_DISABLE_MODELS_FETCH": "1",
                    "OPENCODE_DISABLE_AUTOUPDATE": "1",
                    "NEURALGENTICS_SERVICE_URL": f"http://127.0.0.1:{port}",
                },
            )
            events = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
            debug = (
                f"rc={run.returncode}\nstdout:\n{run.stdout[-4000:]}\nstderr:\n{run.stderr[-4000:]}"
            )
            assert run.returncode == 0, debug
            assert not llm.errors, llm.errors
            main_requests = [r for r in llm.requests if "task" in tool_names(r)]

            # (1) the delegation to architect was blocked and the model saw the reason
            final_results = tool_results(main_requests[-1])
            assert len(final_results) == 4, debug
            assert (
                "may not take this task" in final_results[0] and '"architect"' in final_results[0]
            )
            assert 'subagent_type "coder"' in final_results[0]
            assert not any("You are the architect agent" in system_text(r) for r in llm.requests)
            # (2) coder ran as a subagent
            assert any("You are the coder agent" in system_text(r) for r in llm.requests)
            assert MARKER in final_results[1]
            # the plugin put the context package into the orchestrator's system prompt
            assert "Context for orchestrator" in system_text(main_requests[-1])
            # (3) the broker's tools reached the model; the call ran with the agent's role, not the model's
            assert {"neuralgentics_get_tool_list", "neuralgentics_mcp_router_call"} <= tool_names(
                main_requests[0]
            )
            assert "time" in final_results[2]
            audit_file = Path(isolated_env["NEURALGENTICS_HOME"]) / "broker" / "audit.jsonl"
            records = [json.loads(x) for x in audit_file.read_text().splitlines()]
            calls = [
                r for r in records if r["server"] == "time" and r["tool"] == "get_current_time"
            ]
            assert len(calls) == 1, records
            assert calls[0]["role"] == "orchestrator" and calls[0]["outcome"] == "ok"
            # OpenCode sent the owner token it read through opencode.json's {file:} reference
            assert calls[0]["credential"] == "owner" and calls[0]["front"] == "http"
            assert "UTC" in final_results[3]
            # (4) the task result is in memini-core, with session, agent and tool
            hits = httpx.post(
                f"http://127.0.0.1:{port}/memory/query",
                headers=bearer(cfg_dir),
                json={"query": "CSV export flag header row", "top_k": 20},
            ).json()["hits"]
            stored = [h["memory"] for h in hits if MARKER in h["memory"]["content"]]
            assert len(stored) == 1, hits
            m = stored[0]
            assert m["source_type"] == "task_result" and m["project"] == "proj"
            assert (
                m["metadata"]["subagent_type"] == "coder"
                and m["metadata"]["agent"] == "orchestrator"
            )
            assert m["metadata"]["tool"] == "task" and m["metadata"]["session_id"].startswith(
                "ses_"
            )
            assert any(e.get("type") == "text" for e in events)
        # Ctrl-C (SIGINT to `up` alone: its children run in their own sessions) stops both cleanly;
        # SIGTERM goes through the same handler
        up_proc.send_signal(signal.SIGINT)
        assert up_proc.wait(timeout=30) == 0
        assert not listening(port) and not listening(broker_port)
    finally:
        stop(up_proc)
        get_settings.cache_clear()
