"""The orchestrator against the real memini-core app (SQLite store, real embeddings), through
the HTTP client it uses in production: recall, step 8's task_result memory, DERIVED_FROM
links and agent_used trust events, all read back from memini-core's own routes."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from neuralgentics.app.core import create_app
from neuralgentics.app.process import shared_embedder
from neuralgentics.orchestrator.memini_direct import DirectMemory
from neuralgentics.orchestrator.memory_client import HttpMemoryClient
from neuralgentics.orchestrator.protocol import STEPS
from neuralgentics.orchestrator.service import Orchestrator
from neuralgentics.orchestrator.task_store import TaskStore

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
        r = memini.post(
            "/memory/add", json={"content": fact, "source_type": "fact", "project": "demo"}
        )
        assert r.status_code == 201, r.text
        ids.append(r.json()["memory"]["id"])
    # an older fact superseded by a newer one must not reach the context
    old = memini.post(
        "/memory/add",
        json={
            "content": "The HTTP client never retries; callers must retry themselves.",
            "project": "demo",
        },
    ).json()["memory"]["id"]
    r = memini.post(
        "/memory/relationship",
        json={"source_id": ids[0], "target_id": old, "relationship_type": "SUPERSEDES"},
    )
    assert r.status_code == 201, r.text

    if access == "http":
        client = HttpMemoryClient("http://testserver", http=memini)
    else:  # in memini-core's process: direct calls into its MemoryService
        client = DirectMemory(memini.app.state.service)
    orch = Orchestrator(
        project_dir=tmp_path,
        memory=client,
        embedder=embed,
        project="demo",
        store=TaskStore(tmp_path / "tasks.db"),
    )
    task_id = orch.start_task(
        "add retry with backoff to the HTTP client used by the deploy command", "s1"
    ).id
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
    derived = {
        (e["source_id"], e["target_id"])
        for e in result["relationships"]
        if e["relationship_type"] == "DERIVED_FROM"
    }
    assert derived == {(out["memory_id"], u) for u in used}
    for u in used:
        detail = memini.get(f"/memory/{u}").json()
        events = [(e["event"], e["actor"]) for e in detail["trust_history"]]
        assert ("agent_used", "coder") in events
        assert detail["memory"]["trust_score"] > 0.5
    orch.store.close()


def test_memini_down_is_a_clear_error_not_a_crash(tmp_path, embed):
    client = HttpMemoryClient("http://127.0.0.1:9", timeout=1.0)
    orch = Orchestrator(
        project_dir=tmp_path, memory=client, embedder=embed, store=TaskStore(tmp_path / "t.db")
    )
    package = orch.context("fix the flaky upload test", "coder", 500)
    assert package.warnings and "127.0.0.1:9 unreachable" in package.warnings[0]
    orch.store.close()


@pytest.mark.parametrize("access", ["http", "direct"])
def test_context_includes_project_chunks_from_the_real_index(tmp_path, embed, access):
    from neuralgentics.memini import indexer

    project = tmp_path / "shop"
    (project / "shop").mkdir(parents=True)
    (project / "shop/retry.py").write_text(
        "def request_with_retry(send, tries=3, base_ms=200):\n"
        '    """Retry an idempotent HTTP request with exponential backoff."""\n'
        "    for attempt in range(tries):\n"
        "        try:\n            return send()\n"
        "        except ConnectionError:\n            sleep(base_ms * 2 ** attempt / 1000)\n"
    )
    (project / "shop/colours.py").write_text("PALETTE = {'red': '#f00', 'green': '#0f0'}\n")
    app = create_app()
    with TestClient(app) as memini:
        indexer.index_project(
            project, indexer.chunk_store_for(app.state.service().store), embedder=shared_embedder()
        )
        memory = (
            HttpMemoryClient("http://testserver", http=memini)
            if access == "http"
            else DirectMemory(app.state.service)
        )
        orch = Orchestrator(project_dir=project, memory=memory, embedder=embed)
        package = orch.context("add exponential backoff retry to the HTTP requests", "coder", 2000)
        chunks = [i for i in package.items if i.kind == "chunk"]
        assert chunks and chunks[0].id.startswith("shop/retry.py:"), package.dropped
        assert "request_with_retry" in package.markdown and "PALETTE" not in package.markdown
        assert package.tokens <= 2000

        # a project that was never indexed: the package is built, and says why code is missing
        other = tmp_path / "unindexed"
        other.mkdir()
        bare = Orchestrator(project_dir=other, memory=memory, embedder=embed).context(
            "add retries", "coder", 500
        )
        assert any("not indexed" in w or "no indexed project" in w for w in bare.warnings), (
            bare.warnings
        )


def test_mounted_in_memini_core_the_routes_use_its_memory_directly(tmp_path, monkeypatch):
    """The production shape: memini-core's own app serves /orchestrator; a whole task runs
    through HTTP and its result lands in that app's memory."""
    monkeypatch.chdir(tmp_path)
    with TestClient(create_app()) as app:
        fact = app.post("/memory/add", json={"content": FACTS[0], "source_type": "fact"}).json()[
            "memory"
        ]["id"]
        task = app.post(
            "/orchestrator/tasks",
            json={"task": "add retry with backoff to the HTTP client", "session": "s"},
        ).json()
        data = {
            "context": {"budget_tokens": 1200},
            "verify": {"verified_by": "reviewer", "passed": True},
            "return": {"summary": "Retry with backoff added."},
        }
        for step in STEPS[1:]:
            r = app.post(
                f"/orchestrator/tasks/{task['id']}/step",
                json={"step": step, "data": data.get(step, {})},
            )
            assert r.status_code == 200, (step, r.text)
        done = app.get(f"/orchestrator/tasks/{task['id']}").json()
        assert fact in done["context_memory_ids"]
        result = app.get(f"/memory/{done['result_memory_id']}").json()
        assert result["memory"]["source_type"] == "task_result"
        assert any(
            e["relationship_type"] == "DERIVED_FROM" and e["target_id"] == fact
            for e in result["relationships"]
        )
        assert (
            app.post("/orchestrator/route", json={"task": "rebase onto main"}).json()[
                "primary_agent"
            ]
            == "git"
        )
