"""What is worth delegating, who takes what no rule names, and trust only from work that
finished well (issue 16, items 2 and 4)."""

from __future__ import annotations

import pytest

from neuralgentics.orchestrator.classify import reads_as_question
from neuralgentics.orchestrator.protocol import STEPS

TASK = "add retry with backoff to the HTTP client used by the deploy command"


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("When do our deploys go out?", True),
        ("what does this project do", True),
        ("Which separator do our CSV exports use?", True),
        ("Can you add a --csv flag to the export command?", False),
        ("Implement a CSV exporter for the export command", False),
        ("Remember: our CSV exports use a semicolon as the separator", False),
        ('"Which separator do our CSV exports use?"', True),  # as `opencode run` passes it
    ],
)
def test_questions_are_told_apart_from_requests(text, question):
    assert reads_as_question(text) is question


@pytest.mark.parametrize(
    ("text", "delegable"),
    [
        ("When do our deploys go out?", False),  # a question nothing in the matrix names
        ("What time is it in UTC?", False),  # close to a debugging example, but a question
        ("Our CSV exports use a semicolon as the separator", False),  # a statement
        ("Implement a CSV exporter for the export command", True),
        ("write unit tests for the slugify helper", True),
        ("Can you add a --dry-run flag to the deploy command?", True),
    ],
)
def test_only_work_of_a_recognised_type_is_delegable(orch, text, delegable):
    assert orch.route(text).delegable is delegable


def test_a_plain_question_gets_context_but_no_push_to_delegate(orch, memory):
    memory.remember("Deploys go out on Thursdays after the 10:00 stand-up.")
    package = orch.context("When do our deploys go out?", "build", 2000)
    assert package.markdown.startswith("## Context for build\n")
    assert "subagent_type" not in package.markdown and "delegate it" not in package.markdown
    assert not [i for i in package.items if i.kind in ("routing", "skill")]
    assert "Thursdays" in package.markdown  # the memory that answers it is there
    assert any(d.kind == "routing" and d.reason == "not a delegable task" for d in package.dropped)
    # the same agent with a piece of work gets the routing advice
    work = orch.context("write unit tests for the slugify helper", "build", 2000)
    assert "subagent_type `tester`" in work.items[0].text


def test_opencode_explore_is_in_the_roster_and_allowed_where_the_matrix_says(orch):
    assert "explore" in orch.config.agents
    assert orch.is_allowed("where is the retry policy configured", "explore").allowed
    refused = orch.is_allowed("implement the export to parquet", "explore")
    assert not refused.allowed and refused.suggested_agents == ["coder"]


def test_general_is_the_fallback_only_for_text_no_type_recognises(orch):
    ok = orch.is_allowed("Tell me something nice about the weather today", "general")
    assert ok.allowed and "fallback" in ok.reason
    assert not orch.is_allowed("implement the export to parquet", "general").allowed


def test_a_refused_route_step_names_the_agent_to_use(client):
    task = client.post("/orchestrator/tasks", json={"task": TASK, "session": "s"}).json()
    for step in ("recall", "classify"):
        assert client.post(f"/orchestrator/tasks/{task['id']}/step", json={"step": step}).is_success
    r = client.post(
        f"/orchestrator/tasks/{task['id']}/step",
        json={"step": "route", "data": {"agent": "architect"}},
    )
    assert r.status_code == 409
    err = r.json()["error"]
    assert err["code"] == "step_refused" and err["suggested_agents"] == ["coder"]
    assert "architect" in err["message"] and "forbids" in err["message"]
    # the record is untouched: the same task can be routed to the right agent next
    again = client.post(
        f"/orchestrator/tasks/{task['id']}/step", json={"step": "route", "data": {"agent": "coder"}}
    )
    assert again.status_code == 200


def _run(orch, task_id: str, verify: dict, outcome: str) -> dict:
    for step in STEPS[1:6]:
        orch.step(task_id, step, {"budget_tokens": 1500} if step == "context" else {})
    orch.step(task_id, "verify", verify)
    return orch.step(task_id, "return", {"summary": "Added the retry policy.", "outcome": outcome})[
        1
    ]


def _agent_used(memory, memory_id: str) -> list:
    return [e for e in memory.detail(memory_id).trust_history if e.event == "agent_used"]


def test_a_failed_task_links_its_memories_but_does_not_raise_their_trust(orch, memory):
    used_id = memory.remember("The HTTP client of the deploy command retries nothing today.")
    task_id = orch.start_task(TASK, "ses").id
    out = _run(orch, task_id, {"verified_by": "reviewer", "passed": False}, "failed")
    assert used_id in out["derived_from"]
    assert _agent_used(memory, used_id) == []
    assert memory.get(used_id).trust_score == pytest.approx(0.5)
    # a task that succeeds raises it by agent_used (+0.05), once
    task2 = orch.start_task(TASK + " (second try)", "ses").id
    out2 = _run(orch, task2, {"verified_by": "tester", "passed": True}, "succeeded")
    assert used_id in out2["derived_from"]
    assert len(_agent_used(memory, used_id)) == 1
    assert memory.get(used_id).trust_score == pytest.approx(0.55)


def test_a_task_is_recalled_in_the_memory_scope_it_names(orch, memory):
    remembered = memory.remember("The HTTP client of the deploy command retries nothing today.")
    # the project the fixture stores into, read back (`from conftest import PROJECT` picks
    # whichever conftest another test directory put first on sys.path)
    project = memory.get(remembered).project
    elsewhere = orch.start_task(TASK, "ses", project="other-project")
    assert elsewhere.project == "other-project"
    assert orch.step(elsewhere.id, "recall", {})[1]["memories"] == []
    here = orch.start_task(TASK, "ses", project=project)
    recalled = orch.step(here.id, "recall", {})[1]["memories"]
    assert any("retries nothing" in m["content"] for m in recalled)
