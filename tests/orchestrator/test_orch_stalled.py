"""Tasks stalled at verify (issue 30 item 4): reported, recalled to the orchestrator on its
session's next turn, and closed or resumed by command; real task store and memory."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from neuralgentics.orchestrator import protocol
from neuralgentics.orchestrator.errors import InvalidInput, StepRefused

TASK = "add retry with backoff to the HTTP client used by the deploy command"
ANSWER = "Added RetryPolicy in http/client.py."


def _delegated(orch, session: str = "ses-stall") -> str:
    """A task delegated to the coder and answered: its next step is verify."""
    record = orch.start_task(TASK, session)
    for step in ("recall", "classify", "route", "context", "delegate"):
        orch.step(record.id, step, {})
    orch.record_result(record.id, ANSWER)
    return record.id


def test_a_task_waiting_for_verify_is_stalled_only_after_the_threshold(orch) -> None:
    task_id = _delegated(orch)
    record = orch.get_task(task_id)
    assert protocol.waiting_for_verify(record)
    later = datetime.fromisoformat(record.updated_at) + timedelta(seconds=299)
    assert not protocol.stalled(record, 300, later)
    assert protocol.stalled(record, 300, later + timedelta(seconds=1))
    orch.stall_after = 0
    view = orch.task_view(record)
    assert view["stalled"] and view["waiting_for"] == ["reviewer", "tester"]
    assert view["result_summary"] == ANSWER
    assert [t.id for t in orch.stalled_tasks()] == [task_id]


def test_the_sessions_next_context_reminds_the_orchestrator_and_no_other_session(orch) -> None:
    task_id = _delegated(orch)
    package = orch.context("Go on.", "orchestrator", 2000, session="ses-stall")
    [item] = [i for i in package.items if i.kind == "reminder"]
    assert item.id == task_id and package.items[0] is item  # first, whatever the turn is
    assert f"Task {task_id[:8]}" in package.markdown
    assert "waits for verification by reviewer or tester" in package.markdown
    assert 'subagent_type "reviewer"' in package.markdown
    other = orch.context("Go on.", "orchestrator", 2000, session="another")
    assert not [i for i in other.items if i.kind == "reminder"]
    # verified: no reminder any more
    orch.step(task_id, "verify", {"verified_by": "reviewer", "passed": True})
    again = orch.context("Go on.", "orchestrator", 2000, session="ses-stall")
    assert not [i for i in again.items if i.kind == "reminder"]


def test_close_remembers_the_kept_answer_with_the_users_outcome(orch, memory) -> None:
    task_id = _delegated(orch)
    record, out = orch.close_task(task_id, "failed")
    assert record.status == "done" and out["outcome"] == "failed"
    verify = record.last("verify")
    assert verify is not None and verify.data["closed_by"] == "user"
    assert verify.data["passed"] is False and verify.data["verified_by"] is None
    assert ANSWER in memory.get(out["memory_id"]).content
    with pytest.raises(StepRefused, match="nothing to close"):
        orch.close_task(task_id)


def test_close_and_resume_refuse_what_is_not_waiting_and_bad_input_changes_nothing(orch) -> None:
    record = orch.start_task(TASK, "ses-x")
    for call in (orch.resume_task, orch.close_task):
        with pytest.raises(StepRefused, match="not waiting for its verification"):
            call(record.id)
    with pytest.raises(StepRefused, match="not waiting for its verification"):
        orch.record_result(record.id, ANSWER)
    task_id = _delegated(orch)
    before = orch.get_task(task_id)
    with pytest.raises(InvalidInput, match="outcome"):
        orch.close_task(task_id, "maybe")
    with pytest.raises(InvalidInput, match="summary"):
        orch.close_task(task_id, "succeeded", "   ")
    assert orch.get_task(task_id).to_json() == before.to_json()


def test_resume_restarts_the_clock(orch) -> None:
    task_id = _delegated(orch)
    orch.stall_after = 60
    record = orch.get_task(task_id)
    record.updated_at = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    orch._store().save(record)
    assert orch.task_view(orch.get_task(task_id))["stalled"]
    resumed = orch.resume_task(task_id)
    assert not orch.task_view(resumed)["stalled"] and protocol.waiting_for_verify(resumed)


def test_http_list_marks_stalled_and_close_over_http(client, orch) -> None:
    task_id = _delegated(orch)
    orch.stall_after = 0
    listed = client.get("/orchestrator/tasks", params={"stalled": True}).json()["tasks"]
    assert [t["id"] for t in listed] == [task_id] and listed[0]["stalled"]
    bad = client.post(f"/orchestrator/tasks/{task_id}/close", json={"outcome": "maybe"})
    assert bad.status_code == 422
    r = client.post(f"/orchestrator/tasks/{task_id}/close", json={"outcome": "succeeded"})
    assert r.status_code == 200, r.text
    assert r.json()["task"]["status"] == "done" and not r.json()["task"]["stalled"]
    again = client.post(f"/orchestrator/tasks/{task_id}/close", json={})
    assert again.status_code == 409


def test_cli_marks_stalled_resumes_and_a_close_with_memory_down_changes_nothing(
    tmp_path, monkeypatch, request
) -> None:
    import json

    from typer.testing import CliRunner

    from neuralgentics.cli import app
    from neuralgentics.config import get_settings

    monkeypatch.setenv("NEURALGENTICS_SERVICE_URL", "http://127.0.0.1:9")  # memory down
    monkeypatch.setenv("NEURALGENTICS_TASK_STALL_SECONDS", "0")
    get_settings.cache_clear()
    request.addfinalizer(get_settings.cache_clear)
    runner = CliRunner()
    where = ["--project", str(tmp_path)]
    started = runner.invoke(app, ["task", "start", *where, "--session", "cli", TASK])
    task_id = json.loads(started.output)["id"]
    for step in ("recall", "classify", "route", "context", "delegate"):
        r = runner.invoke(app, ["task", "step", *where, task_id, step])
        assert r.exit_code == 0, r.output
    listed = runner.invoke(app, ["task", "list", *where])
    [line] = [x for x in listed.output.splitlines() if x.startswith(task_id)]
    assert line.endswith("STALLED") and "1 task stalled at verify" in listed.output
    shown = json.loads(runner.invoke(app, ["task", "show", *where, task_id[:8]]).output)
    assert shown["stalled"] and shown["waiting_for"] == ["reviewer", "tester"]

    resumed = runner.invoke(app, ["task", "resume", *where, task_id[:8]])
    assert resumed.exit_code == 0 and "opencode --session cli" in resumed.output
    no_result = runner.invoke(app, ["task", "close", *where, task_id[:8]])
    assert no_result.exit_code == 2 and "--summary" in no_result.output
    down = runner.invoke(app, ["task", "close", *where, task_id[:8], "--summary", ANSWER])
    assert down.exit_code == 3, down.output  # memory unavailable (neuralgentics.exits)
    after = json.loads(runner.invoke(app, ["task", "show", *where, task_id[:8]]).output)
    assert after["next_step"] == "verify" and after["steps"] == shown["steps"]
