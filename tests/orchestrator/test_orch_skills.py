"""The skills loader: both header forms, precedence, reload, broken files, path safety."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.cli import invoke

from neuralgentics.orchestrator.errors import InvalidInput, NotFound
from neuralgentics.orchestrator.skills import (
    SkillParseError,
    SkillRegistry,
    SkillSource,
    builtin_skills_dir,
    parse_skill,
)

REPO = Path(__file__).resolve().parents[2]
SHIPPED = {"architect", "coder", "reviewer", "tester", "explorer"}

SEED_FORM = """# skill: architect
name: Architecture Review
model: primary
description: Reviews system design and provides actionable feedback.
agents: architect, reviewer
task_types: architecture

---
You are a senior software architect.
1. Identify trade-offs explicitly
"""
YAML_FORM = """---
id: architect
name: Architecture Review
model: primary
description: Reviews system design and provides actionable feedback.
applies_to:
  agents: [architect, reviewer]
  task_types: [architecture]
---
You are a senior software architect.
1. Identify trade-offs explicitly
"""


def test_both_header_forms_parse_to_the_same_skill():
    seed, yml = parse_skill(SEED_FORM, default_id="x"), parse_skill(YAML_FORM, default_id="x")
    assert (seed.form, yml.form) == ("seed", "yaml")
    for attr in ("id", "name", "model", "description", "agents", "task_types", "body"):
        assert getattr(seed, attr) == getattr(yml, attr), attr
    assert seed.id == "architect" and seed.agents == ["architect", "reviewer"]
    assert seed.body.startswith("You are a senior software architect.")


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("just some markdown\n", 1, "no skill header"),
        ("---\nid: a\ndescription: d\nbody without end\n", 1, "never closed"),
        ("---\nid: a\ndescription: [unclosed\n---\nbody\n", 3, "not valid YAML"),
        ("---\nid: a\nname: n\n---\nbody\n", 1, "'description' is missing"),
        (
            "---\nid: a\ndescription: d\nmodel: huge\n---\nbody\n",
            4,
            "'model' must be primary or secondary",
        ),
        ("---\nid: Bad/../id\ndescription: d\n---\nbody\n", 2, "must be lowercase"),
        ("---\nid: a\ndescription: d\n---\n\n   \n", 5, "no body"),
        (
            "# skill: a\ndescription: d\nthis line has no colon\n---\nbody\n",
            3,
            "expected 'key: value'",
        ),
        ("# skill: a\ndescription: d\ndescription: again\n---\nbody\n", 3, "set twice"),
        ("---\nid: a\ndescription: d\nagents: {x: 1}\n---\nbody\n", 4, "'agents' must be a list"),
    ],
)
def test_broken_skill_text_reports_line_and_problem(text, line, problem):
    with pytest.raises(SkillParseError) as err:
        parse_skill(text, default_id="a")
    assert err.value.line == line
    assert problem in err.value.problem


def _registry(project: Path, user: Path | None = None, **kw) -> SkillRegistry:
    sources = [SkillSource("project", project)]
    if user is not None:
        sources.append(SkillSource("user", user))
    sources.append(SkillSource("builtin", builtin_skills_dir()))
    return SkillRegistry(sources, **kw)


def test_the_shipped_skills_load_and_are_short(tmp_path):
    reg = _registry(
        tmp_path / "none",
        known_agents=["architect", "coder", "reviewer", "tester", "explorer"],
        known_task_types=[
            "architecture",
            "review",
            "implementation",
            "debugging",
            "testing",
            "file_finding",
            "documentation",
        ],
    )
    skills = {s.id: s for s in reg.skills()}
    assert set(skills) == SHIPPED
    assert reg.problems() == []
    from neuralgentics.token_counts import count_tokens

    for skill in skills.values():
        assert skill.origin == "builtin"
        assert 60 < count_tokens(skill.body) < 400, skill.id  # short and practical
        assert skill.agents == [skill.id]  # named after its agent: applies to it


def test_repo_skills_dir_is_an_exact_copy_of_the_builtins():
    builtin = {p.name: p.read_text() for p in builtin_skills_dir().glob("*.md")}
    repo = {
        p.name: p.read_text()
        for p in (REPO / "skills").glob("*.md")
        if p.name.lower() != "readme.md"
    }
    assert repo == builtin, (
        "skills/ and src/neuralgentics/orchestrator/builtin_skills/ have drifted"
    )


def test_project_wins_over_user_which_wins_over_builtin(tmp_path):
    project, user = tmp_path / "p", tmp_path / "u"
    project.mkdir(), user.mkdir()
    (user / "coder.md").write_text("---\ndescription: user coder\n---\nUser body.\n")
    (user / "sql.md").write_text("---\ndescription: user sql\n---\nSQL body.\n")
    (project / "coder.md").write_text(
        "# skill: coder\ndescription: project coder\n---\nProject body.\n"
    )
    reg = _registry(project, user)
    coder = reg.get("coder")
    assert coder.description == "project coder" and coder.origin == "project"
    assert coder.shadows == [str(user / "coder.md"), str(builtin_skills_dir() / "coder.md")]
    assert reg.get("sql").origin == "user"
    assert reg.get("tester").origin == "builtin"


def test_a_broken_file_is_reported_and_skipped_and_the_rest_load(tmp_path):
    (tmp_path / "good.md").write_text("---\ndescription: fine\n---\nBody.\n")
    (tmp_path / "bad.md").write_text("---\ndescription: [oops\n---\nBody.\n")
    (tmp_path / "binary.md").write_bytes(b"\xff\xfe\x00garbage")
    (tmp_path / "README.md").write_text("How to write skills.\n")  # documentation, not a skill
    reg = _registry(tmp_path)
    ids = {s.id for s in reg.skills()}
    assert "good" in ids and "bad" not in ids and SHIPPED <= ids
    problems = {Path(p.path).name: p for p in reg.problems()}
    assert set(problems) == {"bad.md", "binary.md"}
    assert problems["bad.md"].line == 2 and "not valid YAML" in problems["bad.md"].problem
    assert "not UTF-8" in problems["binary.md"].problem
    assert str(problems["bad.md"]).startswith(f"{tmp_path / 'bad.md'}:2: ")


def test_unknown_agent_or_task_type_in_a_skill_is_reported(tmp_path):
    (tmp_path / "x.md").write_text("---\ndescription: d\nagents: [codr]\n---\nBody.\n")
    (tmp_path / "y.md").write_text("---\ndescription: d\ntask_types: [testng]\n---\nBody.\n")
    reg = _registry(tmp_path, known_agents=["coder"], known_task_types=["testing"])
    msgs = " ".join(p.problem for p in reg.problems())
    assert "unknown agent 'codr'" in msgs and "unknown task type 'testng'" in msgs


def test_reload_when_a_file_changes_appears_or_goes(tmp_path):
    path = tmp_path / "style.md"
    path.write_text("---\ndescription: first\n---\nOne.\n")
    reg = _registry(tmp_path)
    assert reg.get("style").description == "first"
    loads = reg.loads
    reg.skills()
    assert reg.loads == loads  # nothing changed: no reload
    path.write_text("---\ndescription: second version\n---\nTwo.\n")
    assert reg.get("style").description == "second version"
    (tmp_path / "new.md").write_text("---\ndescription: new\n---\nNew.\n")
    assert reg.get("new").description == "new"
    path.unlink()
    with pytest.raises(NotFound):
        reg.get("style")


def test_symlink_out_of_the_skills_dir_is_refused_inside_is_fine(tmp_path):
    skills, outside = tmp_path / "skills", tmp_path / "secret"
    skills.mkdir(), outside.mkdir()
    (outside / "leak.md").write_text("---\ndescription: stolen\n---\nSecret.\n")
    (skills / "real.md").write_text("---\ndescription: real\n---\nReal.\n")
    os.symlink(outside / "leak.md", skills / "leak.md")
    os.symlink(skills / "real.md", skills / "alias.md")
    reg = _registry(skills)
    ids = {s.id for s in reg.skills()}
    assert "leak" not in ids and "alias" in ids
    [problem] = reg.problems()
    assert problem.path.endswith("leak.md") and "symlink points outside" in problem.problem


@pytest.mark.parametrize(
    "bad_id", ["../../etc/passwd", "coder/../../x", "/etc/passwd", "..", "Coder", ""]
)
def test_show_refuses_ids_that_are_paths(tmp_path, bad_id):
    with pytest.raises(InvalidInput) as err:
        _registry(tmp_path).get(bad_id)
    assert "no paths" in err.value.message


def test_applicable_skills_follow_agent_and_task_type(orch):
    ids = lambda agent, tt: {s.id for s in orch.skills.applicable(agent, tt)}  # noqa: E731
    assert ids("coder", "implementation") == {"coder"}
    assert ids("reviewer", "review") == {"reviewer"}
    assert ids("architect", "architecture") == {"architect"}
    assert ids("architect", "git") == set()  # architect's skill lists its task types


# -- CLI and HTTP ---------------------------------------------------------------------------


def _cli(*args: str):
    from neuralgentics.cli import app

    return invoke(app, list(args))


def test_cli_skills_list_and_show(tmp_path):
    (tmp_path / "skills").mkdir()
    (tmp_path / "skills/broken.md").write_text("no header\n")
    res = _cli("skills", "list", "--project", str(tmp_path))
    assert res.exit_code == 0
    for skill_id in SHIPPED:
        assert skill_id in res.output
    assert (
        "broken.md:1: no skill header" in res.output
    )  # reported on stderr, mixed in by the runner

    data = json.loads(_cli("skills", "list", "--project", str(tmp_path), "--json").output)
    assert {s["id"] for s in data["skills"]} == SHIPPED and data["problems"][0]["line"] == 1

    show = _cli("skills", "show", "reviewer", "--project", str(tmp_path))
    assert (
        show.exit_code == 0
        and "# Code Review (reviewer)" in show.output
        and "Security" in show.output
    )
    missing = _cli("skills", "show", "nope", "--project", str(tmp_path))
    assert missing.exit_code == 2 and "no skill 'nope'" in missing.output
    traversal = _cli("skills", "show", "../../etc/passwd", "--project", str(tmp_path))
    assert traversal.exit_code == 2 and "no paths" in traversal.output


def test_http_skills(client, project):
    (project / "skills").mkdir()
    (project / "skills/coder.md").write_text("---\ndescription: project coder\n---\nUse tabs.\n")
    body = client.get("/orchestrator/skills").json()
    by_id = {s["id"]: s for s in body["skills"]}
    assert (
        set(by_id) == SHIPPED
        and by_id["coder"]["origin"] == "project"
        and "body" not in by_id["coder"]
    )
    one = client.get("/orchestrator/skills/coder")
    assert one.status_code == 200 and one.json()["body"] == "Use tabs.\n"
    assert client.get("/orchestrator/skills/nope").status_code == 404
    assert client.get("/orchestrator/skills/..%2F..%2Fetc%2Fpasswd").status_code in (404, 422)
