"""The loop in real OpenCode sessions (issue 16's proof), as a new user gets it.

`neuralgentics up` runs memini-core and the broker; `neuralgentics broker add time -- …` and
`neuralgentics opencode install --broker http` set up a fresh project (no YAML edited, nothing
exported: the plugin gets the custom ports from its options); HOME and XDG are isolated. Then
six `opencode run`s of the real binary against a scripted model (the only fake):

1. the user states a fact, the model saves it with `memory_save`;
2. (same session) the user states a newer fact; after saving it the old one is superseded — by
   update detection, or by the model with the one `memory_feedback` call the answer offers;
3. (new session) asked about it, the primary agent's first request carries the new fact and
   not the old one, and no push to delegate; the title request carries no context package;
4. (orchestrator) a delegation to a forbidden agent is refused with the reason, the right one
   runs, the reviewer verifies it; the task row has the 8 steps in order, a DERIVED_FROM link to
   the memory its context used, and that memory's trust went up by agent_used (+0.05);
5. the default `build` agent calls mcp-server-time through the broker; the audit shows `build`;
6. with the services stopped the run still completes, and the user sees one line saying so;
7. with the services stopped a delegation the matrix forbids is refused all the same (the
   plugin applies the matrix the installer wrote into its options), naming the agent to use.

The runs happen once (module fixture); each test asserts one promise from the services' own
state, read while they were up.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_llm import FakeLLM, Reply, ToolCall, opencode_config, system_text, tool_names
from oc_support import (
    NODE_BIN,
    env_under,
    exactly,
    free_port,
    listening,
    opencode_install,
    opencode_run,
    start_up,
    stop,
)
from support.cli import neuralgentics
from support.token import bearer

pytestmark = pytest.mark.slow

OLD_FACT = "Our CSV exports use a semicolon as the separator."
NEW_FACT = "Our CSV exports now use a comma as the separator."
QUESTION = "Which separator do our CSV exports use?"
TASK = "Implement the CSV export of the report table, with the separator this project uses."
CODER_MARKER = "CSV-EXPORT-DONE-5e1c"
# a delegation whose verification the model skips (issue 30 item 4), resumed on a later turn
STALL_TASK = "Implement the JSON export of the report table."
RESUME = "Go on."


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def last_user_text(req: dict) -> str:
    """The latest user message (`opencode run` passes its message in double quotes)."""
    users = [m for m in req.get("messages", []) if m.get("role") == "user"]
    return _text(users[-1].get("content")).strip().strip('"') if users else ""


def results_since_user(req: dict) -> list[str]:
    """Tool results after the last user message (this turn's), oldest first."""
    out: list[str] = []
    for m in req.get("messages", []):
        if m.get("role") == "user":
            out = []
        elif m.get("role") == "tool":
            out.append(_text(m.get("content")))
    return out


def script(req: dict) -> Reply:
    names = tool_names(req)
    system = system_text(req)
    if not names:
        return Reply(text="CSV separator")  # the title request
    if "You are the coder agent" in system:
        return Reply(text=f"Wrote reports/csv_export.py using a comma separator. {CODER_MARKER}")
    if "You are the reviewer agent" in system:
        return Reply(text="Checked the exporter and its separator. VERDICT: pass")
    if "You are the architect agent" in system:
        return Reply(text="architect ran (it must not)")
    user, done = last_user_text(req), results_since_user(req)
    if user.startswith("Remember:"):
        if not done:
            return Reply(tool_calls=[ToolCall("memory_save", {"fact": OLD_FACT})])
        return Reply(text="Saved.")
    if user.startswith("Correction:"):
        if not done:
            return Reply(tool_calls=[ToolCall("memory_save", {"fact": NEW_FACT})])
        offered = re.search(r"memory_feedback (\{.*?\})", done[-1])
        if len(done) == 1 and offered:  # the one-call confirm the save's answer offers
            return Reply(tool_calls=[ToolCall("memory_feedback", json.loads(offered.group(1)))])
        return Reply(text="Updated.")
    if user == QUESTION:
        return Reply(text="A comma.")
    if user.startswith("Implement the CSV export"):
        delegate = {"description": "CSV export", "prompt": TASK}
        if len(done) == 0:
            return Reply(tool_calls=[ToolCall("task", {**delegate, "subagent_type": "architect"})])
        if len(done) == 1:
            return Reply(tool_calls=[ToolCall("task", {**delegate, "subagent_type": "coder"})])
        if len(done) == 2:
            verify = {
                "description": "Verify CSV export",
                "prompt": f"Verify this result of the CSV export task: {done[1][:400]}",
                "subagent_type": "reviewer",
            }
            return Reply(tool_calls=[ToolCall("task", verify)])
        return Reply(text="The CSV export is in place and verified.")
    if user == STALL_TASK:
        if not done:
            call = {"description": "JSON export", "prompt": STALL_TASK, "subagent_type": "coder"}
            return Reply(tool_calls=[ToolCall("task", call)])
        return Reply(text="The JSON export is written.")  # the verify hint ignored
    if user == RESUME:
        if not done and "waits for verification by reviewer" in system:
            verify = {
                "description": "Verify JSON export",
                "prompt": "Verify the JSON export of the report table.",
                "subagent_type": "reviewer",
            }
            return Reply(tool_calls=[ToolCall("task", verify)])
        return Reply(text="Nothing left to do." if not done else "Verified.")
    if user.startswith("What time is it"):
        named = "get_current_time" in system
        if not done and not named:
            # what a model does when nothing names the tool: list the tools first
            return Reply(tool_calls=[ToolCall("neuralgentics_get_tool_list", {})])
        if len(done) == (0 if named else 1):
            call = {
                "server": "time",
                "tool": "get_current_time",
                "arguments": {"timezone": "UTC"},
                "role": "admin",  # the model's claim: the plugin stamps the real agent
            }
            return Reply(tool_calls=[ToolCall("neuralgentics_mcp_router_call", call)])
        return Reply(text=f"It is {done[-1][:80]}")
    return Reply(text="ok")


@dataclass
class Turn:
    rc: int
    stdout: str
    stderr: str
    requests: list[dict]
    events: list[dict] = field(default_factory=list)

    def debug(self) -> str:
        return f"rc={self.rc}\nstdout:\n{self.stdout[-3000:]}\nstderr:\n{self.stderr[-3000:]}"


@dataclass
class Loop:
    turns: dict[str, Turn]
    memories: list[dict]  # every memory of the project, superseded ones included
    tasks: list[dict]
    details: dict[str, dict]  # memory id -> GET /memory/{id}
    audit: list[dict]
    broker_yaml: str
    install_output: str
    plugin_options: dict
    port: int
    broker_port: int
    # the memory write path's update detection and one-call supersede are served
    update_detection: bool
    up_exit: int
    ports_free: bool
    stalled: dict  # the stalled task as GET /orchestrator/tasks showed it
    task_list: str  # `neuralgentics task list` while it was stalled
    doctor: list[dict]


def _run(opencode: Path, project: Path, env: dict, llm: FakeLLM, *args: str) -> Turn:
    start = len(llm.requests)
    proc, events = opencode_run(opencode, project, env, *args)
    return Turn(proc.returncode, proc.stdout, proc.stderr, llm.requests[start:], events)


@pytest.fixture(scope="module")
def loop(tmp_path_factory: pytest.TempPathFactory, shared_models_dir: Path) -> Loop:
    opencode = NODE_BIN / "opencode"
    if not opencode.exists():
        pytest.fail("node_modules/.bin/opencode is missing: run scripts/install.sh --test")
    root = tmp_path_factory.mktemp("loop")
    port, broker_port = free_port(), free_port()
    ng_env = {
        **env_under(root, shared_models_dir),
        # custom ports: nothing else tells the plugin (issue 16, item 6)
        "NEURALGENTICS_PORT": str(port),
        # a task waiting for its verification is stalled at once (default: after 5 minutes)
        "NEURALGENTICS_TASK_STALL_SECONDS": "0",
        "NEURALGENTICS_BROKER_PORT": str(broker_port),
    }
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("NEURALGENTICS_")},
        **ng_env,
        # as the README's quick start: export PATH="$PWD/.venv/bin:$PATH"
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    up, _ = start_up(env, port, broker_port)
    try:
        cfg_dir = Path(ng_env["NEURALGENTICS_CONFIG_DIR"])
        auth = bearer(cfg_dir)
        base = f"http://127.0.0.1:{port}"
        # the README's example, verbatim: mcp-server-time comes with the main install
        add = neuralgentics("broker", "add", "time", "--", "mcp-server-time", env=exactly(env))
        assert add.returncode == 0, add.stderr
        with FakeLLM(script) as llm:
            project = root / "proj"
            project.mkdir()
            (project / "opencode.json").write_text(json.dumps(opencode_config(llm.base_url)))
            inst = opencode_install(project, env, "--broker", "http")
            opencode_json = json.loads((project / "opencode.json").read_text())
            options = next(p[1] for p in opencode_json["plugin"] if isinstance(p, list))

            turns = {
                "save": _run(opencode, project, env, llm, f"Remember: {OLD_FACT}"),
                "update": _run(
                    opencode, project, env, llm, "--continue", f"Correction: {NEW_FACT}"
                ),
                "ask": _run(opencode, project, env, llm, QUESTION),
                "delegate": _run(opencode, project, env, llm, "--agent", "orchestrator", TASK),
                "tool": _run(opencode, project, env, llm, "What time is it in UTC?"),
            }
            # issue 30 item 4: the model skips the verification; the task is reported stalled,
            # and the next turn of that session reminds the orchestrator, who has it verified
            turns["stall"] = _run(
                opencode, project, env, llm, "--agent", "orchestrator", STALL_TASK
            )
            listed = httpx.get(base + "/orchestrator/tasks", headers=auth).json()["tasks"]
            [stalled] = [t for t in listed if t["task"] == STALL_TASK]
            task_list = neuralgentics("task", "list", env=exactly(env))
            doctor = neuralgentics(
                "doctor",
                "--no-model",
                "--no-servers",
                "--project",
                str(project),
                "--json",
                env=exactly(env),
            )
            turns["resume"] = _run(
                opencode,
                project,
                env,
                llm,
                "--session",
                stalled["session"],
                "--agent",
                "orchestrator",
                RESUME,
            )
            memories = httpx.get(
                base + "/memory",
                params={"project": options["project"], "include_superseded": True, "limit": 100},
                headers=auth,
            ).json()["items"]
            tasks = httpx.get(base + "/orchestrator/tasks", headers=auth).json()["tasks"]
            details = {
                m["id"]: httpx.get(f"{base}/memory/{m['id']}", headers=auth).json()
                for m in memories
            }
            audit_file = Path(ng_env["NEURALGENTICS_HOME"]) / "broker" / "audit.jsonl"
            audit = [json.loads(x) for x in audit_file.read_text().splitlines()]
            broker_yaml = (cfg_dir / "broker.yaml").read_text()
            paths = httpx.get(base + "/openapi.json", headers=auth).json()["paths"]
            update_detection = "/memory/{memory_id}/supersede" in paths

            # Ctrl-C (SIGINT to `up` alone: its children run in their own sessions) stops both
            up.send_signal(signal.SIGINT)
            up_exit = up.wait(timeout=30)
            ports_free = not listening(port) and not listening(broker_port)
            # both services down: the session must still work, and say so
            turns["down"] = _run(opencode, project, env, llm, QUESTION)
            # ... and the matrix must hold (issue 30 item 1): the plugin applies it itself
            turns["down_delegate"] = _run(
                opencode, project, env, llm, "--agent", "orchestrator", TASK
            )
        return Loop(
            turns,
            memories,
            tasks,
            details,
            audit,
            broker_yaml,
            inst.stdout,
            options,
            port,
            broker_port,
            update_detection,
            up_exit,
            ports_free,
            stalled,
            task_list.stdout,
            json.loads(doctor.stdout),
        )
    finally:
        stop(up)


SUBAGENTS = ("coder", "reviewer", "architect")


def test_a_stalled_verify_is_reported_then_resumed_on_the_next_turn(loop: Loop) -> None:
    """Issue 30 item 4: the model ignored "delegate the check"; the task is marked stalled by
    the service, `task list` and `doctor`; the session's next turn reminds the orchestrator,
    whose delegation to the reviewer verifies it and the result is remembered."""
    stalled = loop.stalled
    assert stalled["stalled"] and stalled["next_step"] == "verify"
    assert stalled["waiting_for"] == ["reviewer", "tester"]
    assert CODER_MARKER in stalled["result_summary"]  # the coder's answer, kept for later
    [line] = [x for x in loop.task_list.splitlines() if x.startswith(stalled["id"])]
    assert line.endswith("STALLED") and " verify " in line
    assert "neuralgentics task close ID" in loop.task_list
    [tasks] = [c for c in loop.doctor if c["name"] == "tasks"]
    assert tasks["status"] == "warn" and stalled["id"][:8] in tasks["detail"], tasks

    first = _primary_requests(loop.turns["resume"])[0]
    assert f"Task {stalled['id'][:8]}" in system_text(first)
    assert "waits for verification by reviewer or tester" in system_text(first)
    [task] = [t for t in loop.tasks if t["id"] == stalled["id"]]
    assert task["status"] == "done" and not task["stalled"]
    verify = task["steps"][-2]
    assert verify["step"] == "verify" and verify["data"]["verified_by"] == "reviewer"
    result = loop.details[task["result_memory_id"]]["memory"]["content"]
    assert CODER_MARKER in result
    last = _primary_requests(loop.turns["resume"])[-1]
    assert "verified by reviewer: pass" in results_since_user(last)[-1]


def _primary_requests(turn: Turn) -> list[dict]:
    """The requests of the run's own agent (not the title's, not a subagent's)."""
    return [
        r
        for r in turn.requests
        if tool_names(r) and not any(f"You are the {a} agent" in system_text(r) for a in SUBAGENTS)
    ]


def _memory(loop: Loop, content: str) -> dict:
    found = [m for m in loop.memories if m["content"] == content]
    assert len(found) == 1, [m["content"] for m in loop.memories]
    return found[0]


def test_every_turn_completed(loop: Loop) -> None:
    for name, turn in loop.turns.items():
        assert turn.rc == 0, f"{name}: {turn.debug()}"
        assert any(e.get("type") == "text" for e in turn.events), f"{name}: {turn.debug()}"


def test_the_plugin_got_the_custom_ports_from_the_installer(loop: Loop) -> None:
    # nothing exported by hand: opencode.json hands the plugin where the services are
    assert loop.plugin_options["service_url"] == f"http://127.0.0.1:{loop.port}"
    assert loop.plugin_options["broker_url"] == f"http://127.0.0.1:{loop.broker_port}"
    assert loop.plugin_options["broker"] == "http"


def test_turn1_the_model_saves_the_fact_with_the_memory_tool(loop: Loop) -> None:
    old = _memory(loop, OLD_FACT)
    # the repository's key (no git here: its path), not the folder name (issue 28)
    assert old["source_type"] == "agent" and old["project"] == loop.plugin_options["project"]
    assert old["project"].startswith("path:") and old["project"].endswith("/proj")
    assert old["metadata"]["agent"] == "build"
    first = _primary_requests(loop.turns["save"])[0]
    assert {"memory_search", "memory_save", "memory_feedback", "project_search"} <= tool_names(
        first
    )


def test_turn2_the_newer_fact_supersedes_the_old_one(loop: Loop) -> None:
    assert loop.update_detection  # POST /memory/{id}/supersede is served
    old, new = _memory(loop, OLD_FACT), _memory(loop, NEW_FACT)
    assert old["superseded_by"] == new["id"]
    assert new["superseded_by"] is None
    edges = loop.details[new["id"]]["relationships"]
    assert any(
        e["relationship_type"] == "SUPERSEDES"
        and e["source_id"] == new["id"]
        and e["target_id"] == old["id"]
        for e in edges
    )
    # the model was told, in the save's answer, what happened to the old fact
    answers = [r for r in loop.turns["update"].requests if "memory_save" in tool_names(r)]
    said = results_since_user(answers[-1])
    assert old["id"] in said[0], said


def test_turn3_the_primary_agent_gets_the_new_fact_and_the_title_request_no_context(
    loop: Loop,
) -> None:
    turn = loop.turns["ask"]
    first = _primary_requests(turn)[0]
    system = system_text(first)
    assert "## Context for build" in system, system[-2000:]
    assert NEW_FACT in system and OLD_FACT not in system
    # a question: context, and no push to hand it to another agent
    assert "subagent_type" not in system[system.index("## Context for build") :]
    titles = [r for r in turn.requests if not tool_names(r)]
    assert titles, "OpenCode made no title request"
    for title in titles:
        assert "## Context for" not in system_text(title) and NEW_FACT not in system_text(title)


def test_turn4_delegation_refused_then_run_verified_and_remembered(loop: Loop) -> None:
    turn = loop.turns["delegate"]
    last = _primary_requests(turn)[-1]
    results = results_since_user(last)
    assert len(results) == 3, turn.debug()
    refused, done, verified = results
    assert 'agent "architect" may not take this task' in refused
    assert "forbids architect" in refused and 'subagent_type "coder"' in refused
    assert not any("You are the architect agent" in system_text(r) for r in turn.requests)
    assert CODER_MARKER in done and "verified by reviewer or tester" in done
    assert "verified by reviewer: pass" in verified

    # the coder got the package step 5 built, once
    coder = [r for r in turn.requests if "You are the coder agent" in system_text(r)]
    assert coder and system_text(coder[0]).count("## Context for coder") == 1
    assert NEW_FACT in system_text(coder[0])

    [task] = [t for t in loop.tasks if t["task"] == TASK]
    assert [s["step"] for s in task["steps"]] == [
        "intake",
        "recall",
        "classify",
        "route",
        "context",
        "delegate",
        "verify",
        "return",
    ]
    assert task["status"] == "done" and task["agent"] == "coder"
    assert task["steps"][6]["data"]["verified_by"] == "reviewer"
    assert task["steps"][6]["data"]["passed"] is True
    new = _memory(loop, NEW_FACT)
    assert new["id"] in task["context_memory_ids"]
    result = loop.details[task["result_memory_id"]]
    assert CODER_MARKER in result["memory"]["content"]
    assert any(
        e["relationship_type"] == "DERIVED_FROM" and e["target_id"] == new["id"]
        for e in result["relationships"]
    )
    # trust from use: +0.05 (agent_used), once, for the memory the task's context used
    history = loop.details[new["id"]]["trust_history"]
    used = [e for e in history if e["event"] == "agent_used" and task["id"] in (e["note"] or "")]
    assert len(used) == 1 and used[0]["actor"] == "coder" and used[0]["delta"] == 0.05
    # (the stalled task's context used it too: +0.05 again once that one was verified)
    every = [e for e in history if e["event"] == "agent_used"]
    assert loop.details[new["id"]]["memory"]["trust_score"] == round(0.5 + 0.05 * len(every), 2)


def test_turn5_the_default_build_agent_calls_a_broker_tool_out_of_the_box(loop: Loop) -> None:
    assert "build:" in loop.broker_yaml  # written by `broker add`, not by hand
    calls = [
        r for r in loop.audit if r.get("server") == "time" and r.get("tool") == "get_current_time"
    ]
    assert len(calls) == 1, loop.audit
    assert calls[0]["role"] == "build" and calls[0]["outcome"] == "ok"
    # OpenCode sent the owner token it read through opencode.json's {file:} reference
    assert calls[0]["credential"] == "owner" and calls[0]["front"] == "http"
    last = _primary_requests(loop.turns["tool"])[-1]
    assert "UTC" in results_since_user(last)[0]


def test_ctrl_c_stops_both_services_cleanly(loop: Loop) -> None:
    assert loop.up_exit == 0 and loop.ports_free


def test_turn6_with_the_services_down_the_run_completes_and_says_so(loop: Loop) -> None:
    turn = loop.turns["down"]
    assert turn.rc == 0, turn.debug()
    lines = [x for x in turn.stderr.splitlines() if x.startswith("[neuralgentics]")]
    assert any(
        "memini-core is not answering" in x and "routing checked locally" in x for x in lines
    )
    assert any("broker is not answering" in x for x in lines)
    assert len(lines) == 2, lines  # one line each, not one per request
    assert "[neuralgentics]" not in turn.stdout  # the JSON stream stays clean
    # the memory tools say in one line that memory is down (issue 30 item 5)
    first = _primary_requests(turn)[0]
    described = {
        t["function"]["name"]: t["function"].get("description", "") for t in first["tools"]
    }
    assert described["memory_save"].startswith("Unavailable: Neuralgentics memory is down")
    assert described["project_search"].startswith("Unavailable")


def test_turn7_with_the_services_down_a_forbidden_delegation_is_still_refused(
    loop: Loop,
) -> None:
    assert loop.plugin_options["routing"]["agents"]  # the installer wrote the matrix
    turn = loop.turns["down_delegate"]
    assert turn.rc == 0, turn.debug()
    results = results_since_user(_primary_requests(turn)[-1])
    assert len(results) >= 2, turn.debug()
    refused, done = results[:2]
    assert 'agent "architect" may not take this task' in refused, refused
    assert "forbids architect" in refused and 'subagent_type "coder"' in refused
    assert "memini-core is down" in refused
    assert not any("You are the architect agent" in system_text(r) for r in turn.requests)
    # the right agent ran, checked by the plugin and said to be so
    assert CODER_MARKER in done and "routing checked by the plugin" in done


def test_turn5_over_http_the_first_request_names_the_brokered_servers(loop: Loop) -> None:
    """Issue 30 item 2: with `--broker http` (OpenCode's connection has the owner's token and no
    role) the catalog is in the first request, so the first call can be the router."""
    first = _primary_requests(loop.turns["tool"])[0]
    system = system_text(first)
    assert "get_current_time" in system and "time" in system, system[-3000:]
    assert "no role yet" not in system
    # the script, like a model, lists the tools first when the request does not name them
    assert _calls(_primary_requests(loop.turns["tool"])[-1])[0] == "neuralgentics_mcp_router_call"


def _calls(req: dict) -> list[str]:
    """The tools the model called in a request's history, oldest first."""
    return [
        c.get("function", {}).get("name", "")
        for m in req.get("messages", [])
        for c in m.get("tool_calls") or []
    ]
