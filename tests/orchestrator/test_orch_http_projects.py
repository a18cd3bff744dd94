"""One service, many projects: `project_dir` on a request applies that project's overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from neuralgentics.token_counts import count_tokens


@pytest.fixture
def rust_project(tmp_path: Path) -> Path:
    proj = tmp_path / "rusty"
    (proj / ".neuralgentics").mkdir(parents=True)
    (proj / ".neuralgentics/routing.yaml").write_text(
        "task_types:\n  testing: {primary: coder, forbidden: [general]}\n"
    )
    (proj / "skills").mkdir()
    (proj / "skills/coder.md").write_text(
        "---\ndescription: Rust coder\n---\nRun cargo clippy before reporting.\n"
    )
    return proj


def test_route_skills_and_context_follow_the_requested_project(client, rust_project):
    task = "add unit tests for the tokenizer"
    default = client.post("/orchestrator/route", json={"task": task, "agent": "coder"}).json()
    assert default["allowed"] is False
    other = client.post(
        "/orchestrator/route",
        json={"task": task, "agent": "coder", "project_dir": str(rust_project)},
    ).json()
    assert other["allowed"] is True and other["primary_agent"] == "coder"

    coder = client.get(
        "/orchestrator/skills/coder", params={"project_dir": str(rust_project)}
    ).json()
    assert coder["origin"] == "project" and "clippy" in coder["body"]
    assert client.get("/orchestrator/skills/coder").json()["origin"] == "builtin"

    ctx = client.post(
        "/orchestrator/context",
        json={"task": "implement the lexer", "agent": "coder", "project_dir": str(rust_project)},
    ).json()
    assert any("clippy" in item["text"] for item in ctx["items"])


def test_a_task_keeps_the_project_it_was_started_in(client, rust_project):
    task = client.post(
        "/orchestrator/tasks",
        json={
            "task": "add unit tests for the tokenizer",
            "session": "s",
            "project_dir": str(rust_project),
        },
    ).json()
    assert task["project_dir"] == str(rust_project.resolve())
    for step in ("recall", "classify"):
        assert (
            client.post(f"/orchestrator/tasks/{task['id']}/step", json={"step": step}).status_code
            == 200
        )
    routed = client.post(
        f"/orchestrator/tasks/{task['id']}/step", json={"step": "route", "data": {"agent": "coder"}}
    )
    assert routed.status_code == 200, routed.text  # allowed by that project's matrix


@pytest.mark.parametrize("bad", ["relative/path", "/no/such/dir/anywhere"])
def test_bad_project_dir_is_refused(client, bad):
    r = client.post("/orchestrator/route", json={"task": "fix the bug", "project_dir": bad})
    assert r.status_code == 422 and r.json()["error"]["field"] == "project_dir"


def test_roster_and_agents_md_routes(client):
    roster = client.get("/orchestrator/roster").json()
    assert {a["name"] for a in roster["agents"]} >= {"orchestrator", "coder", "writer", "general"}
    assert {t["id"]: t["primary"] for t in roster["task_types"]}["review"] == "reviewer"
    md = client.get("/orchestrator/agents-md")
    assert md.status_code == 200 and count_tokens(md.text) <= 800 and "## Routing" in md.text
