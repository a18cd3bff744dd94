"""The roster and routing matrix: the seed's defaults, and per-project / per-user overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from neuralgentics.orchestrator.config import load_config
from neuralgentics.orchestrator.errors import RosterError

SEED_ROSTER = {
    "orchestrator": "primary",
    "architect": "primary",
    "coder": "secondary",
    "reviewer": "primary",
    "explorer": "secondary",
    "tester": "secondary",
}
SEED_MATRIX = [
    ("implementation", "coder", {"general"}),
    ("architecture", "architect", {"general", "coder"}),
    ("file_finding", "explorer", {"general"}),
    ("testing", "tester", {"general", "coder"}),
    ("linting", "linter", {"general"}),
    ("git", "git", {"general"}),
    ("documentation", "writer", {"general"}),
    ("review", "reviewer", {"general", "coder"}),
    ("debugging", "coder", {"general"}),
]


def test_builtin_roster_has_the_seed_agents_with_their_model_tier():
    config = load_config()
    for name, tier in SEED_ROSTER.items():
        assert config.agents[name].model == tier
        assert config.agents[name].purpose
    # the agents the matrix names, and the generic fallback
    assert {"linter", "git", "writer", "general"} <= set(config.agents)


@pytest.mark.parametrize(("task_type", "primary", "forbidden"), SEED_MATRIX)
def test_builtin_matrix_matches_the_seed(task_type, primary, forbidden):
    spec = load_config().task_types[task_type]
    assert spec.primary == primary
    # ours may forbid more than the seed, never less
    assert forbidden <= set(spec.forbidden)


def test_design_and_review_agents_do_not_implement():
    assert {"architect", "reviewer"} <= set(load_config().task_types["implementation"].forbidden)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_project_override_changes_only_the_fields_it_sets_and_wins_over_user(tmp_path: Path):
    user = tmp_path / "config"
    project = tmp_path / "proj"
    _write(
        user / "roster.yaml",
        "agents:\n  coder: {model: primary}\n  dba: {model: primary, purpose: Database work}\n",
    )
    _write(
        project / ".neuralgentics/roster.yaml", "agents:\n  coder: {purpose: Writes Rust only}\n"
    )
    _write(
        project / ".neuralgentics/routing.yaml",
        "task_types:\n  testing: {forbidden: [general]}\n"
        "  database:\n    label: Database\n    primary: dba\n    forbidden: [general]\n"
        "    examples: [write a migration adding an index]\n",
    )
    config = load_config(project, user)
    assert config.agents["coder"].model == "primary"  # from the user layer
    assert config.agents["coder"].purpose == "Writes Rust only"  # from the project layer
    assert config.agents["dba"].purpose == "Database work"
    assert config.task_types["testing"].forbidden == ["general"]
    assert config.task_types["testing"].primary == "tester"  # untouched
    assert config.task_types["database"].primary == "dba"


@pytest.mark.parametrize(
    ("filename", "text", "expected"),
    [
        (
            "routing.yaml",
            "task_types:\n  testing: {primary: nobody}\n",
            "primary names unknown agent 'nobody'",
        ),
        ("routing.yaml", "task_types:\n  testing: {forbidden: [tester]}\n", "also forbidden"),
        ("roster.yaml", "agents:\n  coder: {model: huge}\n", "agent 'coder': model"),
        ("roster.yaml", "agents:\n  coder: {colour: red}\n", "colour"),
        ("roster.yaml", "agents:\n  coder: [model, primary\n", "not valid YAML"),
        (
            "routing.yaml",
            "task_types:\n  testing:\n    keywords: [{pattern: '(unclosed'}]\n",
            "not a valid regular expression",
        ),
        ("routing.yaml", "types: {}\n", "unknown key"),
        ("roster.yaml", "agents:\n  Bad Name: {model: primary}\n", "not a valid name"),
    ],
)
def test_a_broken_override_names_the_file_and_the_problem(tmp_path: Path, filename, text, expected):
    path = _write(tmp_path / ".neuralgentics" / filename, text)
    with pytest.raises(RosterError) as err:
        load_config(tmp_path, None)
    assert str(path) in err.value.message
    assert expected in err.value.message
