"""The 8-step Boomerang protocol: the full cycle over HTTP, and every refusal."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from neuralgentics.orchestrator.errors import InvalidInput, MemoryUnavailable, NotFound, StepRefused
from neuralgentics.orchestrator.protocol import STEPS
from neuralgentics.orchestrator.service import Orchestrator
from neuralgentics.orchestrator.task_store import TaskStore

TASK = "add retry with backoff to the HTTP client used by the deploy command"
# the input each step needs on the happy path of an implementation task
HAPPY = {
    "recall": {},
    "classify": {},
    "route": {},
    "context": {"budget_tokens": 1500},
    "delegate": {},
    "verify": {"verified_by": "reviewer", "passed": True, "notes": "LGTM"},
    "return": {
        "summary": "Added RetryPolicy (3 tries, 200 ms base, jitter) in http/client.py; deploy uses it."
    },
}


def test_full_cycle_over_http_remembers_the_result_with_links_and_trust(client, memory):
    created = client.post("/orchestrator/tasks", json={"task": TASK, "session": "ses-1"})
    assert created.status_code == 201
    task = created.json()
    assert [s["step"] for s in task["steps"]] == ["intake"] and task["next_step"] == "recall"
    task_id = task["id"]

    outputs = {}
    for step in STEPS[1:]:
        r = client.post(
            f"/orchestrator/tasks/{task_id}/step", json={"step": step, "data": HAPPY[step]}
        )
        assert r.status_code == 200, (step, r.text)
        outputs[step] = r.json()["output"]

    assert outputs["classify"]["task_type"] == "implementation"
    assert outputs["route"]["agent"] == "coder" and outputs["route"]["verify_with"] == [
        "reviewer",
        "tester",
    ]
    assert outputs["context"]["tokens"] <= 1500
    used = outputs["context"]["memory_ids"]
    assert used, "the context should have used the relevant memories"

    record = client.get(f"/orchestrator/tasks/{task_id}").json()
    assert record["status"] == "done" and record["next_step"] is None
    assert [s["step"] for s in record["steps"]] == list(STEPS)
    stamps = [s["at"] for s in record["steps"]]
    assert stamps == sorted(stamps)
    assert record["session"] == "ses-1" and record["agent"] == "coder"
    assert record["result_summary"].startswith("Added RetryPolicy")

    # step 8: a task_result memory, DERIVED_FROM the memories the context used, agent_used on each
    result_id = record["result_memory_id"]
    stored = memory.get(result_id)
    assert stored.source_type == "task_result"
    assert stored.metadata["task_id"] == task_id and stored.metadata["agent"] == "coder"
    assert "Added RetryPolicy" in stored.content
    edges = {
        (r.source_id, r.target_id, r.relationship_type)
        for r in memory.detail(result_id).relationships
    }
    assert edges >= {(result_id, u, "DERIVED_FROM") for u in used}
    credited = [
        u
        for u in used
        for e in memory.detail(u).trust_history
        if e.event == "agent_used" and e.actor == "coder"
    ]
    assert sorted(credited) == sorted(used)


def _advance(orch, task_id, upto: int):
    """Run the happy path until `upto` steps are done (intake counts as one)."""
    for step in STEPS[1:upto]:
        orch.step(task_id, step, HAPPY[step])


@pytest.mark.parametrize("done", range(1, 8))
def test_every_step_out_of_order_is_refused_naming_the_missing_step(orch, done):
    task_id = orch.start_task(TASK, "ses").id
    _advance(orch, task_id, done)
    expected = STEPS[done]
    for step in STEPS:
        if step == expected:
            continue
        with pytest.raises(StepRefused) as err:
            orch.step(task_id, step, HAPPY.get(step, {}))
        assert err.value.missing_step == expected
        assert f"'{expected}'" in err.value.message
        if STEPS.index(step) > done:
            assert "has not been done yet" in err.value.message
        else:
            assert "already done" in err.value.message
    # nothing was recorded by the refusals
    assert [s.step for s in orch.get_task(task_id).steps] == list(STEPS[:done])


def test_no_step_after_return(orch):
    task_id = orch.start_task(TASK, "ses").id
    _advance(orch, task_id, 8)
    for step in STEPS:
        with pytest.raises(StepRefused, match="is complete"):
            orch.step(task_id, step, {})


def test_route_and_delegate_refuse_a_forbidden_agent(orch):
    task_id = orch.start_task("write unit tests for the slugify helper", "ses").id
    _advance(orch, task_id, 3)
    with pytest.raises(StepRefused) as err:
        orch.step(task_id, "route", {"agent": "coder"})
    assert "coder" in err.value.message and "tester" in err.value.message
    orch.step(task_id, "route", {})
    orch.step(task_id, "context", {"budget_tokens": 500})
    with pytest.raises(StepRefused, match="agent 'general' refused"):
        orch.step(task_id, "delegate", {"agent": "general"})
    assert orch.step(task_id, "delegate", {})[1]["agent"] == "tester"


def test_verify_requires_the_verifier_the_type_asks_for(orch):
    task_id = orch.start_task(TASK, "ses").id
    _advance(orch, task_id, 6)
    with pytest.raises(StepRefused, match="verified by reviewer or tester"):
        orch.step(task_id, "verify", {"passed": True})
    with pytest.raises(StepRefused, match="verified by reviewer or tester"):
        orch.step(task_id, "verify", {"verified_by": "general", "passed": True})
    with pytest.raises(InvalidInput, match="passed"):
        orch.step(task_id, "verify", {"verified_by": "tester"})
    with pytest.raises(InvalidInput, match="passed"):
        orch.step(task_id, "verify", {"verified_by": "tester", "passed": "yes"})
    record, out = orch.step(task_id, "verify", {"verified_by": "tester", "passed": True})
    assert out["required"] and record.steps[-1].data["verified_by"] == "tester"


def test_verification_is_recorded_as_not_required_where_the_type_has_no_verifier(orch):
    task_id = orch.start_task("squash my last three commits into one", "ses").id
    _advance(orch, task_id, 6)
    _, out = orch.step(task_id, "verify", {})
    assert out == {
        "verified_by": None,
        "passed": True,
        "notes": "verification not required for git",
        "required": False,
    }


def test_failed_verification_sends_the_task_back_to_delegate(orch, memory):
    task_id = orch.start_task(TASK, "ses").id
    _advance(orch, task_id, 6)
    orch.step(task_id, "verify", {"verified_by": "reviewer", "passed": False, "notes": "no jitter"})
    assert orch.get_task(task_id).to_json()["next_step"] == "delegate"
    with pytest.raises(StepRefused, match="verification failed"):
        orch.step(task_id, "return", {"summary": "done"})
    with pytest.raises(StepRefused, match="'delegate'"):
        orch.step(task_id, "verify", {"verified_by": "reviewer", "passed": True})
    assert orch.step(task_id, "delegate", {})[1]["attempt"] == 2
    orch.step(task_id, "verify", {"verified_by": "reviewer", "passed": False})
    orch.step(task_id, "delegate", {})
    orch.step(task_id, "verify", {"verified_by": "reviewer", "passed": False})
    with pytest.raises(StepRefused, match="delegated 3 times"):
        orch.step(task_id, "delegate", {})
    record, out = orch.step(
        task_id,
        "return",
        {"summary": "Could not add jitter without a new dependency.", "outcome": "failed"},
    )
    assert record.status == "done" and out["outcome"] == "failed"
    assert memory.get(out["memory_id"]).metadata["outcome"] == "failed"


def test_return_needs_a_summary_and_a_reachable_memory_and_can_be_retried(orch, memory):
    task_id = orch.start_task(TASK, "ses").id
    _advance(orch, task_id, 7)
    for bad in (
        {},
        {"summary": "  "},
        {"summary": "x" * 20_001},
        {"summary": "ok", "outcome": "maybe"},
    ):
        with pytest.raises(InvalidInput):
            orch.step(task_id, "return", bad)
    memory.down = True
    with pytest.raises(MemoryUnavailable):
        orch.step(task_id, "return", HAPPY["return"])
    assert orch.get_task(task_id).status == "open"  # nothing half-done: the step can be retried
    memory.down = False
    record, _ = orch.step(task_id, "return", HAPPY["return"])
    assert record.status == "done"


def test_recall_with_memory_down_is_recorded_and_the_task_goes_on(orch, memory):
    memory.down = True
    task_id = orch.start_task(TASK, "ses").id
    record, out = orch.step(task_id, "recall", {})
    assert out["memories"] == [] and "unreachable" in out["warning"]
    assert record.steps[-1].data["memory_available"] is False


def test_caller_may_set_the_task_type_at_classify(orch):
    task_id = orch.start_task("tidy up the payment module", "ses").id
    _advance(orch, task_id, 2)
    with pytest.raises(InvalidInput, match="unknown task type"):
        orch.step(task_id, "classify", {"task_type": "cooking"})
    orch.step(task_id, "classify", {"task_type": "linting"})
    assert orch.step(task_id, "route", {})[1]["agent"] == "linter"


def test_bad_start_and_unknown_ids(orch):
    with pytest.raises(InvalidInput, match="session"):
        orch.start_task(TASK, "")
    with pytest.raises(InvalidInput, match="empty"):
        orch.start_task("", "ses")
    with pytest.raises(NotFound):
        orch.step("no-such-task", "recall", {})
    task_id = orch.start_task(TASK, "ses").id
    with pytest.raises(InvalidInput, match="unknown step 'lunch'"):
        orch.step(task_id, "lunch", {})


def test_task_records_survive_a_restart(orch, tmp_path, memory, embed, project):
    task_id = orch.start_task(TASK, "ses").id
    _advance(orch, task_id, 4)
    orch.store.close()
    reopened = Orchestrator(
        project_dir=project,
        memory=memory.client(),
        embedder=embed,
        store=TaskStore(tmp_path / "tasks.db"),
    )
    record = reopened.get_task(task_id)
    assert [s.step for s in record.steps] == list(STEPS[:4]) and record.agent == "coder"
    reopened.step(task_id, "context", HAPPY["context"])
    reopened.store.close()
    orch.store = TaskStore(tmp_path / "tasks.db")  # the fixture closes this one


def test_a_stale_record_cannot_take_the_same_step_twice(orch):
    task_id = orch.start_task(TASK, "ses").id
    stale = orch.store.get(task_id)
    orch.step(task_id, "recall", {})
    stale.steps.append(stale.steps[0])
    with pytest.raises(StepRefused, match="changed by another call"):
        orch.store.save(stale)


def test_http_refusals_and_errors(client):
    task_id = client.post("/orchestrator/tasks", json={"task": TASK, "session": "s"}).json()["id"]
    r = client.post(f"/orchestrator/tasks/{task_id}/step", json={"step": "route"})
    assert r.status_code == 409
    body = r.json()["error"]
    assert body["code"] == "step_refused" and body["missing_step"] == "recall"
    assert "step 2 'recall'" in body["message"] and body["field"] == "step"
    assert client.get("/orchestrator/tasks/nope").status_code == 404
    assert client.post("/orchestrator/tasks/nope/step", json={"step": "recall"}).status_code == 404
    bad = client.post(f"/orchestrator/tasks/{task_id}/step", json={"step": "lunch"})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "step"
    assert client.post("/orchestrator/tasks", json={"task": TASK}).status_code == 422
    # nothing changed by any of those
    assert [s["step"] for s in client.get(f"/orchestrator/tasks/{task_id}").json()["steps"]] == [
        "intake"
    ]


def test_cli_task_start_step_show(tmp_path, monkeypatch):
    from neuralgentics.cli import app
    from neuralgentics.config import get_settings

    monkeypatch.setenv("NEURALGENTICS_SERVICE_URL", "http://127.0.0.1:9")
    get_settings.cache_clear()
    runner = CliRunner()
    started = runner.invoke(
        app, ["task", "start", "--project", str(tmp_path), "--session", "cli", TASK]
    )
    assert started.exit_code == 0, started.output
    task_id = json.loads(started.output)["id"]
    refused = runner.invoke(app, ["task", "step", "--project", str(tmp_path), task_id, "classify"])
    assert refused.exit_code == 2 and "step 2 'recall'" in refused.output
    # the short id a table would print is enough, like git's short hashes
    ok = runner.invoke(app, ["task", "step", "--project", str(tmp_path), task_id[:8], "recall"])
    assert ok.exit_code == 0 and json.loads(ok.output)["task"]["next_step"] == "classify"
    bad = runner.invoke(
        app, ["task", "step", "--project", str(tmp_path), task_id, "classify", "--data", "{oops"]
    )
    assert bad.exit_code == 2 and "not valid JSON" in bad.output
    shown = runner.invoke(app, ["task", "show", "--project", str(tmp_path), task_id[:8]])
    assert [s["step"] for s in json.loads(shown.output)["steps"]] == ["intake", "recall"]
    listed = runner.invoke(app, ["task", "list", "--project", str(tmp_path), "--session", "cli"])
    assert listed.exit_code == 0 and listed.output.startswith(task_id)
    none = runner.invoke(app, ["task", "list", "--project", str(tmp_path), "--session", "nope"])
    assert none.exit_code == 0 and none.output.strip() == "no task in session 'nope'"
    unknown = runner.invoke(app, ["task", "show", "--project", str(tmp_path), "0000"])
    assert unknown.exit_code == 2 and "no task id starts with '0000'" in unknown.output
    malformed = runner.invoke(app, ["task", "show", "--project", str(tmp_path), "t-1"])
    assert malformed.exit_code == 2 and "at least 4 hex digits" in malformed.output


def test_a_task_id_start_shared_by_two_tasks_is_refused_naming_both(orch, monkeypatch):
    import uuid
    from types import SimpleNamespace

    from neuralgentics.db.ids import AmbiguousId
    from neuralgentics.orchestrator import service

    chosen = ["deadbeef-0000-4000-8000-000000000001", "deadbeef-1111-4000-8000-000000000002"]
    queue = list(chosen)  # two ids that share their first 8 digits
    monkeypatch.setattr(service, "uuid", SimpleNamespace(uuid4=lambda: uuid.UUID(queue.pop(0))))
    for i in range(2):
        orch.start_task(f"{TASK} #{i}", "ses")
    with pytest.raises(AmbiguousId) as refused:
        orch.resolve_task_id("deadbeef")
    assert refused.value.candidates == chosen and "2 task ids start with it" in str(refused.value)
    assert orch.resolve_task_id("deadbeef-1") == chosen[1]
    assert orch.get_task(orch.resolve_task_id("DEADBEEF0")).task == f"{TASK} #0"


def test_two_concurrent_calls_cannot_both_take_the_same_step(orch):
    import threading

    task_id = orch.start_task(TASK, "ses").id
    _advance(orch, task_id, 3)  # next: route
    outcomes: list[str] = []
    barrier = threading.Barrier(4)

    def attempt() -> None:
        barrier.wait(timeout=30)
        try:
            orch.step(task_id, "route", {})
            outcomes.append("ok")
        except StepRefused:
            outcomes.append("refused")

    threads = [threading.Thread(target=attempt) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(outcomes) == ["ok", "refused", "refused", "refused"]
    assert [s.step for s in orch.get_task(task_id).steps].count("route") == 1


def test_tasks_are_listed_by_session(client):
    ids = [
        client.post("/orchestrator/tasks", json={"task": f"{TASK} #{i}", "session": s}).json()["id"]
        for i, s in enumerate(["a", "b", "a"])
    ]
    listed = client.get("/orchestrator/tasks", params={"session": "a"}).json()["tasks"]
    assert {t["id"] for t in listed} == {ids[0], ids[2]}
    assert len(client.get("/orchestrator/tasks").json()["tasks"]) == 3
    assert client.get("/orchestrator/tasks", params={"limit": 0}).status_code == 422
