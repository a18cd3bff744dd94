"""`neuralgentics opencode install|uninstall` on real directories: merge, backup, exact reversal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
import yaml
from oc_support import opencode_json, snapshot
from typer.testing import CliRunner

from neuralgentics.config import Settings
from neuralgentics.opencode import cli as opencode_cli
from neuralgentics.opencode.installer import InstallError, install, uninstall

USER_CONFIG = """{
  "$schema": "https://opencode.ai/config.json",
    "theme":   "tokyonight",
  "mcp": {"mine": {"type": "local", "command": ["my-server"]}},
  "agent": {"orchestrator": {"permission": {"task": {"general": "allow"}}}}
}
"""


def isolated_env_config() -> str:
    import os

    return os.environ["NEURALGENTICS_CONFIG_DIR"]


def plugin_entry(project: Path) -> list:
    """opencode.json's entry for our plugin: [file:// URL, options]."""
    entries = [
        p
        for p in opencode_json(project).get("plugin", [])
        if isinstance(p, list) and p[0].endswith("/neuralgentics.ts")
    ]
    assert len(entries) == 1, opencode_json(project).get("plugin")
    return entries[0]


def plugin_path(project: Path) -> Path:
    from urllib.parse import unquote, urlparse

    return Path(unquote(urlparse(plugin_entry(project)[0]).path))


def test_install_creates_the_credential_and_puts_it_nowhere_in_the_project(project: Path) -> None:
    """The token file is made 0600 in a 0700 dir; the project gets only where it is (beside the
    plugin, for the plugin; as a {file:} reference in opencode.json), never the token."""
    import stat

    install(Settings(), project, broker="http")
    token_file = Path(isolated_env_config()) / "token"
    token = token_file.read_text().strip()
    assert len(token) >= 40
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(token_file.parent.stat().st_mode) == 0o700
    holders = [p for p in project.rglob("*") if p.is_file() and token.encode() in p.read_bytes()]
    assert holders == []
    options = plugin_entry(project)[1]
    assert options["token_file"] == str(token_file)
    install(Settings(), project, broker="http")  # again: the same token, not a new one
    assert token_file.read_text().strip() == token
    uninstall(Settings(), project)
    assert not (project / ".opencode").exists() and token_file.exists()  # the credential stays


def test_with_neuralgentics_token_set_the_remote_entry_names_the_variable(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from neuralgentics.config import get_settings

    monkeypatch.setenv("NEURALGENTICS_TOKEN", "from-the-environment-123")
    get_settings.cache_clear()
    install(Settings(), project, broker="http")
    entry = opencode_json(project)["mcp"]["neuralgentics"]
    assert entry["headers"] == {"Authorization": "Bearer {env:NEURALGENTICS_TOKEN}"}
    assert "from-the-environment-123" not in (project / "opencode.json").read_text()
    assert not (Path(isolated_env_config()) / "token").exists()  # nothing made: the variable is it


def test_fresh_project_gets_plugin_agents_and_config_and_uninstall_leaves_nothing(
    project: Path,
) -> None:
    before = snapshot(project)
    install(Settings(), project)
    plugin = plugin_path(project)
    # the plugin is outside the project (nothing for OpenCode to npm-install into there)
    assert plugin.read_text().startswith("/**") and project not in plugin.parents
    assert not (project / ".opencode/plugin").exists()
    coder = (project / ".opencode/agent/coder.md").read_text()
    front = yaml.safe_load(coder.split("---")[1])
    assert front["mode"] == "subagent" and front["permission"]["edit"] == "allow"
    architect = yaml.safe_load(
        (project / ".opencode/agent/architect.md").read_text().split("---")[1]
    )
    assert architect["permission"]["edit"] == "deny" and architect["tools"]["write"] is False
    orchestrator = yaml.safe_load(
        (project / ".opencode/agent/orchestrator.md").read_text().split("---")[1]
    )
    assert orchestrator["mode"] == "primary"
    # OpenCode's built-in `general` is not replaced by a file of ours
    assert not (project / ".opencode/agent/general.md").exists()

    cfg = opencode_json(project)
    broker = cfg["mcp"]["neuralgentics"]
    assert broker["type"] == "local" and broker["command"][-2:] == ["broker", "stdio"]
    assert Path(broker["command"][0]).name == "neuralgentics"
    task = cfg["agent"]["orchestrator"]["permission"]["task"]
    assert list(task)[0] == "*" and task["*"] == "deny"
    assert task["coder"] == "allow" and task["architect"] == "allow"
    # OpenCode's own subagents, where the matrix allows them (the plugin checks each task)
    assert task["explore"] == "allow" and task["general"] == "allow"
    assert "orchestrator" not in task  # primaries are not delegated to

    uninstall(Settings(), project)
    assert snapshot(project) == before
    assert not plugin.exists()


def test_existing_settings_and_files_are_kept_backed_up_and_restored_byte_for_byte(
    project: Path,
) -> None:
    (project / "opencode.json").write_text(USER_CONFIG)
    (project / ".opencode/agent").mkdir(parents=True)
    (project / ".opencode/agent/coder.md").write_text("---\ndescription: my own coder\n---\nmine\n")
    before = snapshot(project)

    report = install(Settings(), project)

    cfg = opencode_json(project)
    assert cfg["theme"] == "tokyonight"
    assert cfg["mcp"]["mine"] == {"type": "local", "command": ["my-server"]}
    assert "neuralgentics" in cfg["mcp"]
    task = cfg["agent"]["orchestrator"]["permission"]["task"]
    # the user's rule stays and no catch-all deny is put after it (the last match would win)
    assert task["general"] == "allow" and "*" not in task and task["coder"] == "allow"
    assert (project / ".opencode/agent/coder.md").read_text().endswith("mine\n")
    assert any("coder.md" in k for k in report.kept)
    backups = list((project / ".opencode/neuralgentics-backup").iterdir())
    assert [b.read_text() for b in backups] == [USER_CONFIG]

    uninstall(Settings(), project)
    assert snapshot(project) == before


def test_later_user_edits_survive_uninstall(project: Path) -> None:
    (project / "opencode.json").write_text(USER_CONFIG)
    install(Settings(), project)
    cfg = opencode_json(project)
    cfg["model"] = "anthropic/claude-sonnet"
    (project / "opencode.json").write_text(json.dumps(cfg))

    report = uninstall(Settings(), project)

    cfg = opencode_json(project)
    assert cfg["model"] == "anthropic/claude-sonnet"
    assert "neuralgentics" not in cfg["mcp"] and cfg["mcp"]["mine"]
    assert cfg["agent"]["orchestrator"]["permission"]["task"] == {"general": "allow"}
    assert not (project / ".opencode/plugin").exists()
    assert any("your later edits kept" in r for r in report.removed)


def test_an_edited_agent_file_is_left_in_place_on_uninstall(project: Path) -> None:
    install(Settings(), project)
    (project / ".opencode/agent/tester.md").write_text("---\ndescription: tuned by me\n---\n")
    report = uninstall(Settings(), project)
    assert (
        (project / ".opencode/agent/tester.md")
        .read_text()
        .startswith("---\ndescription: tuned by me")
    )
    assert not (project / ".opencode/agent/coder.md").exists()
    assert any("tester.md" in n for n in report.notes)


def test_http_broker_and_reinstall_switches_mode_without_duplicates(project: Path) -> None:
    before = snapshot(project)
    install(Settings(), project, broker="http")
    token_file = Path(isolated_env_config()) / "token"
    assert opencode_json(project)["mcp"]["neuralgentics"] == {
        "type": "remote",
        "url": "http://127.0.0.1:8901/mcp",
        "enabled": True,
        # OpenCode reads the file when it loads the config: the token is not in opencode.json
        "headers": {"Authorization": "Bearer {file:" + str(token_file) + "}"},
    }
    install(Settings(), project, broker="stdio")
    assert opencode_json(project)["mcp"]["neuralgentics"]["type"] == "local"
    manifest = json.loads((project / ".opencode/neuralgentics-install.json").read_text())
    assert manifest["broker"] == "stdio"
    uninstall(Settings(), project)
    assert snapshot(project) == before


def test_first_class_servers_from_the_broker_config_go_straight_into_opencode_json(
    project: Path, isolated_env: dict[str, str]
) -> None:
    cfg_dir = Path(isolated_env["NEURALGENTICS_CONFIG_DIR"])
    (cfg_dir / "broker.yaml").write_text(
        yaml.safe_dump(
            {
                "servers": {
                    "time": {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"]},
                    "memory": {
                        "command": "npx",
                        "args": ["-y", "@modelcontextprotocol/server-memory"],
                        "first_class": True,
                    },
                    "docs": {
                        "transport": "streamable_http",
                        "url": "http://127.0.0.1:9999/mcp",
                        "first_class": True,
                    },
                }
            }
        )
    )
    install(Settings(), project)
    mcp = opencode_json(project)["mcp"]
    assert mcp["memory"] == {
        "type": "local",
        "command": ["npx", "-y", "@modelcontextprotocol/server-memory"],
        "enabled": True,
    }
    assert mcp["docs"] == {"type": "remote", "url": "http://127.0.0.1:9999/mcp", "enabled": True}
    assert "time" not in mcp  # brokered, not first-class


def test_invalid_opencode_json_is_refused_naming_the_line_and_nothing_changes(
    project: Path,
) -> None:
    (project / "opencode.json").write_text('{\n  "theme": "dark",\n  "mcp": {,}\n}\n')
    before = snapshot(project)
    with pytest.raises(InstallError, match=r"opencode.json:3:\d+: not valid JSON"):
        install(Settings(), project)
    assert snapshot(project) == before


def test_jsonc_with_comments_is_refused_with_a_hint(project: Path) -> None:
    (project / "opencode.jsonc").write_text('{\n  // my theme\n  "theme": "dark"\n}\n')
    before = snapshot(project)
    with pytest.raises(InstallError, match="has comments"):
        install(Settings(), project)
    assert snapshot(project) == before


def test_bad_targets_are_refused(project: Path, tmp_path: Path) -> None:
    with pytest.raises(InstallError, match="no such directory"):
        install(Settings(), tmp_path / "nope")
    with pytest.raises(InstallError, match="not both"):
        install(Settings(), project, global_=True)
    with pytest.raises(InstallError, match="not installed"):
        uninstall(Settings(), project)


def test_global_install_goes_to_the_xdg_config_dir(isolated_env: dict[str, str]) -> None:
    home = Path(isolated_env["XDG_CONFIG_HOME"]) / "opencode"
    install(Settings(), global_=True, broker="http")
    plugin = Path(isolated_env["NEURALGENTICS_HOME"]) / "opencode/plugins/global/neuralgentics.ts"
    assert plugin.exists() and not (home / "plugin").exists()
    assert json.loads((home / "opencode.json").read_text())["plugin"][0][0] == plugin.as_uri()
    assert (home / "agent/coder.md").exists()
    assert (
        json.loads((home / "opencode.json").read_text())["mcp"]["neuralgentics"]["type"] == "remote"
    )
    uninstall(Settings(), global_=True)
    assert not home.exists() or not any(home.iterdir())
    assert not plugin.exists()


def test_cli_install_and_uninstall(project: Path) -> None:
    app = typer.Typer()
    app.command("noop")(lambda: None)
    opencode_cli.register(app)
    runner = CliRunner()
    res = runner.invoke(app, ["opencode", "install", "--project", str(project), "--broker", "http"])
    assert res.exit_code == 0, res.output
    assert "neuralgentics.ts" in res.output and "uninstall --project" in res.output
    res = runner.invoke(app, ["opencode", "install", "--project", str(project), "--broker", "sse"])
    assert res.exit_code == 2 and "sse" in res.output
    res = runner.invoke(app, ["opencode", "uninstall", "--project", str(project)])
    assert res.exit_code == 0 and "uninstalled" in res.output
    res = runner.invoke(app, ["opencode", "uninstall", "--project", str(project)])
    assert res.exit_code == 2 and "not installed" in res.output


# --- the TUI brand (tui.json) -------------------------------------------------------------

BRAND_SPEC = "./neuralgentics-tui/neuralgentics-brand.tsx"
USER_TUI = '{\n  "theme": "tokyonight",\n  "plugin": [["./mine.tsx", {"a": 1}]]\n}\n'


def tui_of(project: Path) -> dict:
    return json.loads((project / ".opencode" / "tui.json").read_text())


def test_install_lists_the_brand_plugin_in_tui_json_with_where_the_services_and_token_are(
    project: Path,
) -> None:
    report = install(Settings(), project, broker="http")
    tui = tui_of(project)
    assert len(tui["plugin"]) == 1
    spec, options = tui["plugin"][0]
    assert spec == BRAND_SPEC
    assert (project / ".opencode" / spec).read_text() == (
        Path(__file__).resolve().parents[2]
        / "src/neuralgentics/opencode/plugin/neuralgentics-brand.tsx"
    ).read_text()
    token_file = Path(isolated_env_config()) / "token"
    assert options["broker"] == "http" and options["service_url"].startswith("http://127.0.0.1:")
    assert Path(options["token_file"].replace("~", str(Path.home()), 1)) == token_file
    assert token_file.read_text().strip() not in (project / ".opencode" / "tui.json").read_text()
    assert any("tui.json" in line for line in report.lines())


def test_a_users_tui_json_is_merged_backed_up_and_restored_byte_for_byte(project: Path) -> None:
    (project / ".opencode").mkdir()
    (project / ".opencode" / "tui.json").write_text(USER_TUI)
    before = snapshot(project)
    install(Settings(), project)
    tui = tui_of(project)
    assert tui["theme"] == "tokyonight"
    assert tui["plugin"][0] == ["./mine.tsx", {"a": 1}] and tui["plugin"][1][0] == BRAND_SPEC
    uninstall(Settings(), project)
    assert snapshot(project) == before


def test_later_edits_of_tui_json_survive_uninstall_and_only_our_entry_goes(project: Path) -> None:
    install(Settings(), project)
    tui = tui_of(project)
    tui["theme"] = "gruvbox"
    tui["plugin"].append("./theirs.tsx")
    (project / ".opencode" / "tui.json").write_text(json.dumps(tui))
    uninstall(Settings(), project)
    assert tui_of(project) == {"theme": "gruvbox", "plugin": ["./theirs.tsx"]}
    assert not (project / ".opencode" / "neuralgentics-tui").exists()


def test_a_tui_json_that_already_lists_the_brand_is_kept_as_it_is(project: Path) -> None:
    (project / ".opencode").mkdir()
    mine = json.dumps({"plugin": [[BRAND_SPEC, {"poll_ms": 60000}]]})
    (project / ".opencode" / "tui.json").write_text(mine)
    report = install(Settings(), project)
    assert (project / ".opencode" / "tui.json").read_text() == mine
    assert any("already lists" in k for k in report.kept)
    uninstall(Settings(), project)
    assert (project / ".opencode" / "tui.json").read_text() == mine


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"plugin": [}', "tui.json:1:"),
        ('{"plugin": "./x.tsx"}', '"plugin" is not a list'),
    ],
)
def test_a_broken_tui_json_is_refused_and_nothing_changes(
    project: Path, text: str, message: str
) -> None:
    (project / ".opencode").mkdir()
    (project / ".opencode" / "tui.json").write_text(text)
    before = snapshot(project)
    with pytest.raises(InstallError, match=message):
        install(Settings(), project)
    assert snapshot(project) == before


def test_global_install_lists_the_brand_in_the_global_tui_json(
    isolated_env: dict[str, str],
) -> None:
    install(Settings(), global_=True)
    home = Path(isolated_env["XDG_CONFIG_HOME"]) / "opencode"
    assert json.loads((home / "tui.json").read_text())["plugin"][0][0] == BRAND_SPEC
    assert (home / "neuralgentics-tui" / "neuralgentics-brand.tsx").exists()
    uninstall(Settings(), global_=True)
    assert not (home / "tui.json").exists() and not (home / "neuralgentics-tui").exists()


def test_doctor_says_whether_the_tui_brand_is_installed(project: Path) -> None:
    from neuralgentics.opencode.doctor import check_tui_brand

    home = project / ".opencode"
    missing = check_tui_brand(home, f"--project {project}")
    assert missing.status == "warn" and "OpenCode's own footer" in missing.detail
    assert missing.fix == f"neuralgentics opencode install --project {project}"
    install(Settings(), project)
    assert check_tui_brand(home, "").status == "ok"
    brand = home / "neuralgentics-tui" / "neuralgentics-brand.tsx"
    brand.write_text(brand.read_text() + "// mine\n")
    assert "differs" in check_tui_brand(home, "").detail


def test_the_install_summary_lists_as_many_settings_as_it_counts(project: Path) -> None:
    """Issue 32 item 11: 'merged 13 settings' used to list three names."""
    import re

    report = install(Settings(), project)
    line = next(w for w in report.written if w.startswith("merged "))
    count = int(line.split()[1])
    listed = line.split(": ", 1)[1].split(", ")
    total = sum(int(m.group(1)) if (m := re.search(r" \((\d+)\)$", x)) else 1 for x in listed)
    assert count == total > 2, line
    assert any(x.startswith("agent.orchestrator.permission.task (") for x in listed), line
    uninstall(Settings(), project)


def test_the_plugin_options_carry_the_projects_routing_matrix(project: Path) -> None:
    """Issue 30 item 1: the matrix the plugin applies while memini-core is down is the one the
    orchestrator resolves for this project, overrides included; a broken one is refused."""
    override = project / ".neuralgentics" / "routing.yaml"
    override.parent.mkdir()
    override.write_text("task_types:\n  implementation:\n    forbidden: [general, writer]\n")
    install(Settings(), project)
    routing = plugin_entry(project)[1]["routing"]
    types = {t["id"]: t for t in routing["types"]}
    assert types["implementation"]["forbidden"] == ["general", "writer"]
    assert types["implementation"]["primary"] == "coder"
    assert any("implement" in pattern for pattern, _ in types["implementation"]["keywords"])
    assert "coder" in routing["agents"] and routing["version"] == 1


def test_a_broken_routing_matrix_is_refused_and_nothing_changes(project: Path) -> None:
    override = project / ".neuralgentics" / "routing.yaml"
    override.parent.mkdir()
    override.write_text("task_types:\n  implementation:\n    primary: nobody\n")
    before = snapshot(project)
    with pytest.raises(InstallError, match="names unknown agent 'nobody'"):
        install(Settings(), project)
    assert snapshot(project) == before


def test_doctor_warns_when_the_plugins_matrix_is_older_than_the_routing_yaml(
    project: Path,
) -> None:
    from neuralgentics.opencode.doctor import check_plugin_routing

    install(Settings(), project)
    options = plugin_entry(project)[1]
    assert check_plugin_routing(Settings(), options, project, "reinstall").status == "ok"
    override = project / ".neuralgentics" / "routing.yaml"
    override.parent.mkdir()
    override.write_text("task_types:\n  implementation:\n    forbidden: [general, writer]\n")
    stale = check_plugin_routing(Settings(), options, project, "reinstall")
    assert stale.status == "warn" and "changed since install" in stale.detail
    missing = check_plugin_routing(Settings(), {}, project, "reinstall")
    assert missing.status == "warn" and "run unchecked" in missing.detail


def test_install_lists_the_servers_a_hand_written_broker_config_names(project: Path) -> None:
    """A first `broker stdio` start does not wait for servers it never listed, so install lists
    them: the first session's instructions then name their tools. A server that cannot start is
    reported and does not fail the install."""
    import sys

    from neuralgentics.broker import load_config
    from neuralgentics.broker.catalog.cache import ToolListCache

    s = Settings()
    config = Path(isolated_env_config()) / "broker.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "servers": {
                    "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]},
                    "broken": {"command": "/nonexistent/mcp-server"},
                }
            }
        )
    )
    notes = install(s, project).notes
    assert "listed broker server time: 2 tools" in notes, notes
    assert any(n.startswith("could not list broker server broken (") for n in notes), notes
    servers = load_config(config).servers
    cached = ToolListCache(s.home / "broker" / "tools").load("time", servers["time"])
    assert cached is not None and {t.name for t in cached} == {"get_current_time", "convert_time"}
    # listed once: a re-install leaves a listed server alone
    assert not any("broker server time" in n for n in install(s, project).notes)
