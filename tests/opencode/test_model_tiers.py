"""Model tiers: models.yaml and the install flags become each roster agent's `model`, the real
OpenCode sends a secondary-tier agent's requests to the secondary model, and doctor shows it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml
from fake_llm import (
    FakeLLM,
    Reply,
    ToolCall,
    opencode_config,
    system_text,
    tool_names,
    tool_results,
)
from oc_support import NODE_BIN, OPENCODE_ENV, free_port
from support.cli import neuralgentics
from tui_screen import precreate_plugin_lock

from neuralgentics.config import Settings
from neuralgentics.opencode.doctor import check_model_tiers
from neuralgentics.opencode.installer import InstallError, install, uninstall
from neuralgentics.opencode.models import ModelTierError, load_tiers, models_file, split_model

PRIMARY = ("orchestrator", "architect", "reviewer")
SECONDARY = ("coder", "explorer", "tester", "linter", "git", "writer")


def front(project: Path, agent: str) -> dict:
    text = (project / ".opencode" / "agent" / f"{agent}.md").read_text()
    return yaml.safe_load(text.split("---")[1])


def write_models(cfg_dir: Path, **tiers: str) -> None:
    (cfg_dir / "models.yaml").write_text(yaml.safe_dump({"models": tiers}))


@pytest.fixture
def project(tmp_path: Path, isolated_env: dict[str, str]) -> Path:
    p = tmp_path / "proj"
    p.mkdir()
    return p


def cfg_dir() -> Path:
    return Path(os.environ["NEURALGENTICS_CONFIG_DIR"])


def test_without_tiers_no_agent_gets_a_model_field(project: Path) -> None:
    report = install(Settings(), project)
    for agent in PRIMARY + SECONDARY:
        assert "model" not in front(project, agent)
    assert "primary agents run on OpenCode's default model" in report.lines()


def test_models_yaml_sets_each_agent_by_its_roster_tier(project: Path) -> None:
    write_models(
        cfg_dir(), primary="anthropic/claude-sonnet-4-5", secondary="openrouter/qwen/qwen3-coder"
    )
    install(Settings(), project)
    for agent in PRIMARY:
        assert front(project, agent)["model"] == "anthropic/claude-sonnet-4-5"
    for agent in SECONDARY:
        assert front(project, agent)["model"] == "openrouter/qwen/qwen3-coder"
    assert split_model("openrouter/qwen/qwen3-coder") == ("openrouter", "qwen/qwen3-coder")
    check = check_model_tiers(Settings(), project, False)
    assert check.status == "ok"
    assert (
        "primary → anthropic/claude-sonnet-4-5 (orchestrator, architect, reviewer)" in check.detail
    )
    assert "secondary → openrouter/qwen/qwen3-coder (coder, explorer" in check.detail


def test_flags_win_over_the_file_and_one_tier_can_stay_default(project: Path) -> None:
    write_models(cfg_dir(), primary="anthropic/claude-opus-4")
    install(Settings(), project, secondary_model="fake/small")
    assert front(project, "orchestrator")["model"] == "anthropic/claude-opus-4"
    assert front(project, "coder")["model"] == "fake/small"
    install(Settings(), project, primary_model="fake/big")  # a re-install rewrites the fields
    assert front(project, "architect")["model"] == "fake/big"
    assert "model" not in front(project, "coder")


def test_doctor_warns_when_models_yaml_changed_since_install(project: Path) -> None:
    install(Settings(), project, primary_model="fake/big")
    write_models(cfg_dir(), primary="fake/bigger")
    check = check_model_tiers(Settings(), project, False)
    assert (
        check.status == "warn"
        and "primary → fake/big" in check.detail
        and "primary=fake/bigger" in check.detail
    )
    assert check.fix.startswith("neuralgentics opencode install --project")


@pytest.mark.parametrize(
    "flags, message",
    [
        (
            {"primary_model": "claude-sonnet"},
            "--primary-model: 'claude-sonnet' is not \"provider/model\"",
        ),
        ({"secondary_model": "/model"}, "--secondary-model"),
        ({"secondary_model": "fake/a b"}, "--secondary-model"),
    ],
)
def test_a_bad_model_name_is_refused_and_nothing_is_written(
    project: Path, flags: dict, message: str
) -> None:
    with pytest.raises(InstallError, match=message):
        install(Settings(), project, **flags)
    assert list(project.iterdir()) == []


def test_a_bad_models_yaml_is_a_clear_error(project: Path) -> None:
    (cfg_dir() / "models.yaml").write_text("models:\n  primary: fake/a\n  tertiary: fake/b\n")
    with pytest.raises(ModelTierError, match="unknown tier"):
        load_tiers(models_file(Settings().config_dir))
    with pytest.raises(InstallError, match=r"models.yaml: unknown tier\(s\) tertiary"):
        install(Settings(), project)
    (cfg_dir() / "models.yaml").write_text("models: [1, 2]\n")
    assert check_model_tiers(Settings(), project, False).status == "fail"
    assert list(project.iterdir()) == []


def test_cli_flags(project: Path) -> None:
    def install_with(secondary: str):
        return neuralgentics(
            "opencode",
            "install",
            "--project",
            str(project),
            "--primary-model",
            "fake/big",
            "--secondary-model",
            secondary,
        )

    res = install_with("nonsense")
    assert res.returncode == 2 and "--secondary-model: 'nonsense'" in res.stderr
    res = install_with("fake/small")
    assert res.returncode == 0, res.stderr
    assert "secondary agents run on fake/small" in res.stdout
    uninstall(Settings(), project)


@pytest.mark.slow
def test_the_real_opencode_sends_a_secondary_agents_requests_to_the_secondary_model(
    project: Path, isolated_env: dict[str, str]
) -> None:
    """orchestrator (primary tier) delegates to coder (secondary tier); the scripted model logs
    which model each request named. No services run: the plugin lets the delegation through."""

    def script(req: dict) -> Reply:
        system = system_text(req)
        if "You are the coder agent" in system:
            return Reply(text="coder done")
        if "task" not in tool_names(req):
            return Reply(text="a title")
        if not tool_results(req):
            return Reply(
                tool_calls=[
                    ToolCall(
                        "task",
                        {
                            "description": "write it",
                            "prompt": "Implement the CSV export",
                            "subagent_type": "coder",
                        },
                    )
                ]
            )
        return Reply(text="all done")

    with FakeLLM(script) as llm:
        models = {m: m for m in ("fake-default", "fake-big", "fake-small")}
        (project / "opencode.json").write_text(json.dumps(opencode_config(llm.base_url, models)))
        env = {**os.environ, **isolated_env, "NEURALGENTICS_PORT": str(free_port())}
        res = neuralgentics(
            "opencode",
            "install",
            "--project",
            str(project),
            "--primary-model",
            "fake/fake-big",
            "--secondary-model",
            "fake/fake-small",
            env=env,
        )
        assert res.returncode == 0, res.stderr
        for d in (Path(isolated_env["XDG_CONFIG_HOME"]) / "opencode", project / ".opencode"):
            precreate_plugin_lock(d)
        run = subprocess.run(
            [str(NODE_BIN / "opencode"), "run", "--agent", "orchestrator", "Add a CSV export"],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=300,
            env={
                **env,
                "PWD": str(project),
                **OPENCODE_ENV,
            },
        )
        assert run.returncode == 0, run.stderr[-3000:]
        assert not llm.errors, llm.errors
        coder = [r["model"] for r in llm.requests if "You are the coder agent" in system_text(r)]
        orchestrator = [
            r["model"] for r in llm.requests if "You are the orchestrator agent" in system_text(r)
        ]
        assert coder == ["fake-small"], [(r["model"], system_text(r)[:60]) for r in llm.requests]
        assert orchestrator and set(orchestrator) == {"fake-big"}
        assert "all done" in run.stdout
