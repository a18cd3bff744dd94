"""The context package and the recall step read every memory scope the agent works in (issue
17 item 6): this session's, the project's, the agent's own and the user's — not another
session's, agent's or project's. Real memini-core app (SQLite), both ways the orchestrator
reaches it (HTTP client, direct calls)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from neuralgentics.app.core import create_app
from neuralgentics.orchestrator.memini_direct import DirectMemory
from neuralgentics.orchestrator.memory_client import HttpMemoryClient
from neuralgentics.orchestrator.service import Orchestrator
from neuralgentics.orchestrator.task_store import TaskStore

TASK = "add retry with backoff to the HTTP client"
MINE = {
    "project": ({"project": "demo"}, "The HTTP client lives in http/client.py and wraps httpx."),
    "user": ({"scope": "user"}, "I want every HTTP client retry to log each attempt."),
    "agent": (
        {"scope": "agent", "agent": "coder"},
        "Run the HTTP client tests with pytest -k http before handing back a retry change.",
    ),
    "session": (
        {"scope": "session", "session": "s1", "project": "demo"},
        "In this session the HTTP client retry must keep a 200 ms first delay.",
    ),
}
NOT_MINE = {
    "other project": ({"project": "other"}, "The HTTP client of the mobile app retries twice."),
    "other agent": (
        {"scope": "agent", "agent": "reviewer"},
        "Check every HTTP client retry change for an upper bound on attempts.",
    ),
    "other session": (
        {"scope": "session", "session": "s2", "project": "demo"},
        "In this session the HTTP client retry should start at 1 second.",
    ),
}


@pytest.fixture
def memini():
    with TestClient(create_app()) as client:
        yield client


@pytest.mark.parametrize("access", ["http", "direct"])
def test_context_and_recall_read_the_agents_scopes(memini, tmp_path, embed, access):
    ids: dict[str, str] = {}
    for name, (where, text) in {**MINE, **NOT_MINE}.items():
        r = memini.post("/memory/add", json={"content": text, "detection": "off", **where})
        assert r.status_code == 201, r.text
        ids[name] = r.json()["memory"]["id"]
    client = (
        HttpMemoryClient("http://testserver", http=memini)
        if access == "http"
        else DirectMemory(memini.app.state.service)
    )
    orch = Orchestrator(
        project_dir=tmp_path,
        memory=client,
        embedder=embed,
        project="demo",
        store=TaskStore(tmp_path / "tasks.db"),
    )
    package = orch.context(TASK, "coder", 4000, project="demo", session="s1")
    used = set(package.memory_ids)
    assert {ids[n] for n in MINE} <= used, package.markdown
    assert not {ids[n] for n in NOT_MINE} & used

    # without a session: the project's, the agent's and the user's
    used = set(orch.context(TASK, "coder", 4000, project="demo").memory_ids)
    assert used >= {ids["project"], ids["user"], ids["agent"]}
    assert ids["session"] not in used and ids["other agent"] not in used

    # the task flow's recall: the task's session, the project and the user (the agent is not
    # known before routing)
    task_id = orch.start_task(TASK, "s1", project="demo").id
    _, recalled = orch.step(task_id, "recall", {})
    got = {m["id"] for m in recalled["memories"]}
    assert got >= {ids["project"], ids["user"], ids["session"]}
    assert not {ids["other project"], ids["other session"], ids["other agent"]} & got
    # once routed, the task's context package adds the agent's own memories
    orch.step(task_id, "classify", {})
    record, _ = orch.step(task_id, "route", {})
    assert record.agent == "coder"
    _, package = orch.step(task_id, "context", {"budget_tokens": 4000})
    used = set(package["memory_ids"])
    assert {ids[n] for n in MINE} <= used
    assert not {ids[n] for n in NOT_MINE} & used
