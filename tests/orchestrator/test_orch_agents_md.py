"""AGENTS.md is generated from the roster, matrix and skills, and stays under 800 tokens."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from neuralgentics.orchestrator.agents_md import MAX_TOKENS
from neuralgentics.token_counts import count_tokens

REPO = Path(__file__).resolve().parents[2]


def test_agents_md_declares_capabilities_agents_routing_and_skills_within_budget(orch):
    text = orch.agents_md()
    assert count_tokens(text) <= MAX_TOKENS == 800
    for needle in (
        "Memory",
        "memory_search",
        "memory_save",
        "memory_feedback",
        "project_search",
        "neuralgentics_get_tool_list",
        "neuralgentics_mcp_router_call",
        "Skills",
        "VERDICT: pass",
        "| Testing | tester | general, coder, explore | reviewer |",
        "`coder` — Implements features",
        "intake → recall → classify → route → context → delegate → verify → return",
    ):
        assert needle in text, needle
    assert '"inputSchema"' not in text and '"properties"' not in text  # no tool schemas


def test_agents_md_degrades_instead_of_growing_past_the_budget(orch, project):
    skills = project / "skills"
    skills.mkdir()
    for i in range(40):
        (skills / f"extra-{i}.md").write_text(
            f"---\ndescription: An extra project skill number {i} with a fairly long description of what it does.\n---\nBody.\n"
        )
    text = orch.agents_md()
    assert count_tokens(text) <= MAX_TOKENS
    assert "`extra-39`" in text  # every skill still named


def test_repository_agents_md_is_the_generator_output():
    from neuralgentics.cli import app

    res = CliRunner().invoke(
        app, ["agents-md", "--project", str(REPO), "--check", str(REPO / "AGENTS.md")]
    )
    assert res.exit_code == 0, res.output


def test_cli_agents_md_check_fails_on_drift(tmp_path):
    from neuralgentics.cli import app

    stale = tmp_path / "AGENTS.md"
    stale.write_text("# old\n")
    res = CliRunner().invoke(app, ["agents-md", "--project", str(tmp_path), "--check", str(stale)])
    assert res.exit_code == 1 and "out of date" in res.output
    out = CliRunner().invoke(app, ["agents-md", "--project", str(tmp_path), "-o", str(stale)])
    assert out.exit_code == 0
    assert (
        CliRunner()
        .invoke(app, ["agents-md", "--project", str(tmp_path), "--check", str(stale)])
        .exit_code
        == 0
    )
