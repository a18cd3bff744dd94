"""The orchestrator against the real memini-core app (SQLite store, real embeddings), through
the HTTP client it uses in production: recall, step 8's task_result memory, DERIVED_FROM
links and agent_used trust events, all read back from memini-core's own routes."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from neuralgentics.orchestrator.memini_direct import DirectMemory
from neuralgentics.orchestrator.memory_client import HttpMemoryClient
from neuralgentics.orchestrator.protocol import STEPS
from neuralgentics.orchestrator.service import Orchestrator
from neuralgentics.orchestrator.task_store import TaskStore

create_app = pytest.importorskip("neuralgentics.memini.app").create_app

FACTS = [
    "The HTTP client retries idempotent requests 3 times with exponential backoff starting at 200 ms.",
    "The deploy command is defined in cli/deploy.py and calls the release API.",
    "We decided to keep one deployable monolith until the team is larger than 20 engineers.",
]


@pytest.fixture
def memini():
    with TestClient(create_app()) as client:
        yield client


@pytest.mark.parametrize("access", ["http", "direct"])
def test_full_cycle_against_real_memini_core(memini, tmp_path, embed, access):
    ids = []
    for fact in FACTS:
        r = memini.post("/memory/add", json={"content": fact, "source_type": "fact", "project": "demo"})
        assert r.status_code == 201, r.text
        ids.append(r.json()["memory"]["id"])
    # an older fact superseded by a newer one must not reach the context
    old = memini.post("/memory/add", json={"content": "The HTTP client never retries; callers must retry themselves.", "project": "demo"}).json()["memory"]["id"]
    r = memini.post("/memory/relationship", json={"source_id": ids[0], "target_id": old, "relationship_type": "SUPERSEDES"})
    assert r.status_code == 201, r.text

    if access == "http":
        client = HttpMemoryClient("http://testserver", http=memini)
    else:  # in memini-core's process: direct calls into its MemoryService
        client = DirectMemory(memini.app.state.service)
    orch = Orchestrator(project_dir=tmp_path, memory=client, embed=embed, project="demo",
                        store=TaskStore(tmp_path / "tasks.db"))
    task_id = orch.start_task("add retry with backoff to the HTTP client used by the deploy command", "s1").id
    _, recalled = orch.step(task_id, "recall", {})
    assert ids[0] in {m["id"] for m in recalled["memories"]}
    assert old not in {m["id"] for m in recalled["memories"]}
    orch.step(task_id, "classify", {})
    orch.step(task_id, "route", {})
    _, package = orch.step(task_id, "context", {"budget_tokens": 1500})
    used = package["memory_ids"]
    assert ids[0] in used and ids[1] in used and ids[2] not in used
    orch.step(task_id, "delegate", {})
    orch.step(task_id, "verify", {"verified_by": "tester", "passed": True})
    record, out = orch.step(task_id, "return", {"summary": "RetryPolicy added to http/client.py."})
    assert [s.step for s in record.steps] == list(STEPS)

    result = memini.get(f"/memory/{out['memory_id']}").json()
    assert result["memory"]["source_type"] == "task_result"
    assert result["memory"]["metadata"]["task_id"] == task_id
    derived = {(e["source_id"], e["target_id"]) for e in result["relationships"] if e["relationship_type"] == "DERIVED_FROM"}
    assert derived == {(out["memory_id"], u) for u in used}
    for u in used:
        detail = memini.get(f"/memory/{u}").json()
        events = [(e["event"], e["actor"]) for e in detail["trust_history"]]
        assert ("agent_used", "coder") in events
        assert detail["memory"]["trust_score"] > 0.5
    orch.store.close()


def test_memini_down_is_a_clear_error_not_a_crash(tmp_path, embed):
    client = HttpMemoryClient("http://127.0.0.1:9", timeout=1.0)
    orch = Orchestrator(project_dir=tmp_path, memory=client, embed=embed, store=TaskStore(tmp_path / "t.db"))
    package = orch.context("fix the flaky upload test", "coder", 500)
    assert package.warnings and "127.0.0.1:9 unreachable" in package.warnings[0]
    orch.store.close()
