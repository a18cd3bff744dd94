"""What `opencode install` leaves so a session works at once (issue 16, items 5-7): the plugin's
options (custom ports), OpenCode's plugin-install lock in every config dir it reads, a broker
role for every agent, and nothing large in the project — all reversed by uninstall."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from oc_support import opencode_json, snapshot

from neuralgentics.config import Settings
from neuralgentics.opencode import locks
from neuralgentics.opencode.broker_roles import roles_without_tools
from neuralgentics.opencode.installer import install, plugin_home, resolve_target, uninstall


def our_plugin(project: Path) -> list:
    return next(
        p for p in opencode_json(project)["plugin"] if str(p[0]).endswith("/neuralgentics.ts")
    )


def test_the_plugin_is_told_where_the_services_are_custom_ports_included(
    project: Path, monkeypatch: pytest.MonkeyPatch, isolated_env: dict[str, str]
) -> None:
    monkeypatch.setenv("NEURALGENTICS_PORT", "18900")
    monkeypatch.setenv("NEURALGENTICS_BROKER_PORT", "18901")
    (project / "opencode.json").write_text(json.dumps({"plugin": ["my-own-plugin@1.0.0"]}))
    install(Settings(), project, broker="http")
    cfg = opencode_json(project)
    assert cfg["plugin"][0] == "my-own-plugin@1.0.0"  # the user's list is appended to
    spec, options = our_plugin(project)
    assert spec.startswith("file:///")
    # the project's routing matrix, for the plugin to apply with the services down (issue 30)
    assert "coder" in options.pop("routing")["agents"]
    assert options == {
        "service_url": "http://127.0.0.1:18900",
        "broker_url": "http://127.0.0.1:18901",
        "broker": "http",
        "token_file": str(Path(isolated_env["NEURALGENTICS_CONFIG_DIR"]) / "token"),
        # the repository's key and the plugin's own credential (issue 28)
        "project": f"path:{project.resolve()}",
        "project_name": project.name,
        "credential_file": str(
            plugin_home(Settings(), resolve_target(Settings(), project, False)) / "credential"
        ),
    }
    assert cfg["mcp"]["neuralgentics"]["url"] == "http://127.0.0.1:18901/mcp"
    uninstall(Settings(), project)
    assert opencode_json(project) == {"plugin": ["my-own-plugin@1.0.0"]}


def test_no_npm_install_at_start_the_lock_is_in_every_config_dir_and_reversed(
    project: Path, isolated_env: dict[str, str]
) -> None:
    global_dir = Path(isolated_env["XDG_CONFIG_HOME"]) / "opencode"
    before = snapshot(project)
    install(Settings(), project)
    for d in (global_dir, project / ".opencode"):
        assert (d / "node_modules").is_dir() and not any((d / "node_modules").iterdir())
        lock = json.loads((d / "package-lock.json").read_text())
        assert "@opencode-ai/plugin" in lock["packages"][""]["dependencies"]
    # nothing large in the project: agents, manifest, brand, lock — a few KB
    size = sum(p.stat().st_size for p in project.rglob("*") if p.is_file())
    assert size < 100_000, size
    # OpenCode writes its .gitignore into a config dir it uses: ours to remove with the dir
    (project / ".opencode" / ".gitignore").write_text(locks.OPENCODE_GITIGNORE)
    uninstall(Settings(), project)
    assert snapshot(project) == before
    assert not (global_dir / "node_modules").exists()
    assert not (global_dir / "package-lock.json").exists()


def test_a_users_own_node_modules_is_never_touched(project: Path, isolated_env) -> None:
    global_dir = Path(isolated_env["XDG_CONFIG_HOME"]) / "opencode"
    (global_dir / "node_modules" / "@opencode-ai" / "plugin").mkdir(parents=True)
    (global_dir / "package.json").write_text('{"dependencies": {}}\n')
    before = snapshot(global_dir)
    install(Settings(), project)
    assert snapshot(global_dir) == before
    uninstall(Settings(), project)
    assert snapshot(global_dir) == before


def test_the_global_lock_stays_while_another_project_relies_on_it(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    global_dir = Path(isolated_env["XDG_CONFIG_HOME"]) / "opencode"
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    install(Settings(), a)
    install(Settings(), b)
    uninstall(Settings(), a)
    assert (global_dir / "package-lock.json").exists()  # b still starts without npm
    uninstall(Settings(), b)
    assert not (global_dir / "package-lock.json").exists()
    assert not locks.registry_path(Settings()).exists()


def test_a_lock_something_was_installed_into_since_is_left(project: Path, isolated_env) -> None:
    global_dir = Path(isolated_env["XDG_CONFIG_HOME"]) / "opencode"
    install(Settings(), project)
    (global_dir / "node_modules" / "left-pad").mkdir()
    report = uninstall(Settings(), project)
    assert (global_dir / "node_modules" / "left-pad").is_dir()
    assert any("installed there since" in n for n in report.notes)


def test_every_agent_gets_a_broker_role_and_the_users_roles_are_kept(
    project: Path, isolated_env: dict[str, str]
) -> None:
    broker_yaml = Path(isolated_env["NEURALGENTICS_CONFIG_DIR"]) / "broker.yaml"
    broker_yaml.write_text(
        yaml.safe_dump(
            {
                "servers": {"time": {"command": "mcp-server-time"}},
                "roles": {"coder": {"allow": ["time/get_current_time"]}},
            }
        )
    )
    report = install(Settings(), project)
    roles = yaml.safe_load(broker_yaml.read_text())["roles"]
    assert roles["coder"] == {"allow": ["time/get_current_time"]}  # the user's, untouched
    for agent in ("build", "general", "tester", "writer", "git", "linter"):
        assert roles[agent] == {"allow": ["*"]}, agent
    for read_only in ("plan", "explore", "orchestrator", "architect", "reviewer", "explorer"):
        assert roles[read_only] == {"allow": ["*"], "read_only": True}, read_only
    assert any("added broker roles" in line for line in report.lines())
    from neuralgentics.broker.config import load_config

    cfg = load_config(broker_yaml)
    assert roles_without_tools(cfg, [*roles, "build", "plan"]) == {}
    # the broker itself: build may call the time server, plan may not write through a tool
    from neuralgentics.broker.access.policy import AccessPolicy

    policy = AccessPolicy(cfg.roles)
    assert policy.may_call("build", "time", "get_current_time")
    assert policy.may_call("plan", "time", "get_current_time")
    assert not policy.may_call("plan", "fs", "write_file")
    # uninstall leaves broker.yaml (shared by every project) and says so
    report = uninstall(Settings(), project)
    assert "build" in yaml.safe_load(broker_yaml.read_text())["roles"]
    assert any("kept the broker roles" in n for n in report.notes)


def test_broker_add_writes_the_default_policy_too(isolated_env: dict[str, str]) -> None:
    from typer.testing import CliRunner

    from neuralgentics.cli import app

    res = CliRunner().invoke(app, ["broker", "add", "time", "--", "mcp-server-time"])
    assert res.exit_code == 0, res.output
    broker_yaml = Path(isolated_env["NEURALGENTICS_CONFIG_DIR"]) / "broker.yaml"
    roles = yaml.safe_load(broker_yaml.read_text())["roles"]
    assert roles["build"] == {"allow": ["*"]} and "coder" in roles
    assert "added default roles" in res.output
    # a second add changes no role
    res = CliRunner().invoke(app, ["broker", "add", "t2", "--", "mcp-server-time"])
    assert res.exit_code == 0 and "roles" not in res.output
