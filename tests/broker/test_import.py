"""`neuralgentics broker import` (issue 18, item 1): real files of the four shapes, real servers
(mcp-server-time from PyPI, server-everything / server-memory / server-filesystem from npm),
secrets never copied in clear, `--remove-from-source` for opencode.json, and the imported
servers called through the broker afterwards."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import anyio
import pytest
import yaml

from neuralgentics.broker.config import load_config
from neuralgentics.broker.service import Broker
from neuralgentics.config import Settings
from tests.broker.conftest import BIN, PY, cli, needs_node, python_server

pytestmark = needs_node

NODE = Path(__file__).resolve().parents[2] / "node_modules" / ".bin"
GH_TOKEN = "ghp_" + "Z" * 36  # a literal secret in opencode.json
OPENAI = "sk-proj-" + "q1" * 12  # a literal secret in claude_desktop_config.json


@pytest.fixture
def world(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A project with opencode.json, .vscode/mcp.json and .cursor/mcp.json, and a user home
    with claude_desktop_config.json — each naming real servers."""
    user = tmp_path / "user"
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(user / ".config"))
    for var in ("GH_AUTHORIZATION", "OPENAI_API_KEY", "FS_TOKEN", "EVERY_KEY"):
        monkeypatch.delenv(var, raising=False)
    proj = tmp_path / "proj"
    (proj / ".vscode").mkdir(parents=True)
    (proj / ".cursor").mkdir()
    opencode = {
        "$schema": "https://opencode.ai/config.json",
        "mcp": {
            "time": {
                "type": "local",
                "command": [PY, *python_server("mcp_server_time", "--local-timezone", "UTC")],
                "environment": {"TZ": "UTC"},
            },
            "gh": {
                "type": "remote",
                "url": "https://api.example.invalid/mcp",
                "headers": {"Authorization": f"Bearer {GH_TOKEN}"},
            },
            "keyed": {
                "type": "local",
                "command": [str(NODE / "mcp-server-everything"), "stdio"],
                "environment": {"API_KEY": "{env:EVERY_KEY}"},
            },
            "old": {"type": "local", "command": ["nothing-here"], "enabled": False},
            "neuralgentics": {"type": "local", "command": ["neuralgentics", "broker", "stdio"]},
        },
    }
    (proj / "opencode.json").write_text(json.dumps(opencode, indent=2))
    os.chmod(proj / "opencode.json", 0o640)
    (proj / ".vscode" / "mcp.json").write_text(
        "{\n  // VS Code asks for the token\n"
        '  "inputs": [{"type": "promptString", "id": "fs-token", "password": true}],\n'
        '  "servers": {\n'
        f'    "fs": {{"type": "stdio", "command": "{NODE / "mcp-server-filesystem"}",\n'
        '           "args": ["${workspaceFolder}"], "env": {"FS_TOKEN": "${input:fs-token}"}},\n'
        "  },\n}\n"
    )
    (proj / ".cursor" / "mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "mem": {
                        "command": str(NODE / "mcp-server-memory"),
                        "env": {"MEMORY_FILE_PATH": "${workspaceFolder}/mem.jsonl"},
                    }
                }
            }
        )
    )
    claude = user / ".config" / "Claude"
    claude.mkdir(parents=True)
    (claude / "claude_desktop_config.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "everything": {
                        "command": str(NODE / "mcp-server-everything"),
                        "args": ["stdio"],
                        "env": {"OPENAI_API_KEY": OPENAI},
                    }
                }
            }
        )
    )
    return {"proj": proj, "claude": claude / "claude_desktop_config.json", "home": home}


def _imp(world: dict[str, Path], *args: str):
    return cli("broker", "import", "--project", str(world["proj"]), *args)


def _no_secret_anywhere(world: dict[str, Path], *texts: str) -> None:
    config = world["home"] / "config" / "broker.yaml"
    for text in [*texts, config.read_text() if config.exists() else ""]:
        assert GH_TOKEN not in text and OPENAI not in text


def test_a_dry_run_shows_every_shape_and_writes_nothing(world) -> None:
    before = {p: p.read_bytes() for p in world["proj"].rglob("*.json")}
    r = _imp(world)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for kind in ("(opencode)", "(vscode)", "(cursor)", "(claude)"):
        assert kind in out
    for name in ("time", "gh", "keyed", "fs", "mem", "everything"):
        assert f"+ {name} " in out
    assert "- neuralgentics" in out and "the Neuralgentics broker itself" in out
    assert "- old" in out and "disabled in the source" in out
    # what the broker will need set, and where it came from; never the value
    assert "${GH_AUTHORIZATION}  gh headers.Authorization: a literal secret in" in out
    assert "${OPENAI_API_KEY}  everything env.OPENAI_API_KEY: a literal secret in" in out
    assert "${FS_TOKEN}  fs env.FS_TOKEN: VS Code prompts for input 'fs-token'" in out
    assert "${EVERY_KEY}  keyed env.API_KEY: referenced in" in out
    assert "dry run: nothing written" in out
    _no_secret_anywhere(world, r.stdout, r.stderr)
    assert not (world["home"] / "config" / "broker.yaml").exists()
    assert {p: p.read_bytes() for p in world["proj"].rglob("*.json")} == before


def test_apply_converts_lists_grants_and_the_servers_answer_through_the_broker(
    world, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("broker", "role", "add", "build", "--allow", "nothing*").returncode == 0
    r = _imp(world, "--apply", "--grant", "build", "--timeout", "90")
    assert r.returncode == 0, r.stderr
    _no_secret_anywhere(world, r.stdout, r.stderr)
    cfg = load_config(world["home"] / "config" / "broker.yaml")
    assert set(cfg.servers) == {"time", "gh", "keyed", "fs", "mem", "everything"}
    assert cfg.servers["gh"].transport == "streamable_http"
    assert cfg.servers["gh"].headers == {"Authorization": "Bearer ${GH_AUTHORIZATION}"}
    assert cfg.servers["everything"].env == {"OPENAI_API_KEY": "${OPENAI_API_KEY}"}
    assert cfg.servers["keyed"].env == {"API_KEY": "${EVERY_KEY}"}
    assert cfg.servers["fs"].args == [str(world["proj"])]  # ${workspaceFolder}
    assert cfg.servers["mem"].env == {"MEMORY_FILE_PATH": f"{world['proj']}/mem.jsonl"}
    assert cfg.servers["time"].env == {"TZ": "UTC"}  # not a secret: copied
    assert "time/*" in cfg.roles["build"].allow and "everything/*" in cfg.roles["build"].allow
    # listed right away where they could start; a missing variable is said, not guessed
    assert "time: 2 tools" in r.stdout and "mem: 9 tools" in r.stdout
    assert "everything: not listed: environment variable OPENAI_API_KEY is not set" in r.stderr

    # the user sets the secret where the broker runs: the imported servers answer
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI)

    async def through_the_broker() -> None:
        path = world["home"] / "config" / "broker.yaml"
        async with Broker.open(path, settings=Settings()) as b:
            now = await b.call(
                role="build", server="time", tool="get_current_time", arguments={"timezone": "UTC"}
            )
            assert "UTC" in now.content[0].text  # type: ignore[union-attr]
            env = await b.call(role="build", server="everything", tool="get-env", arguments={})
            assert OPENAI in env.content[0].text  # type: ignore[union-attr]  # expanded at launch
            saved = await b.call(
                role="build",
                server="mem",
                tool="create_entities",
                arguments={"entities": [{"name": "x", "entityType": "t", "observations": ["o"]}]},
            )
            assert not saved.is_error

    anyio.run(through_the_broker)
    assert (world["proj"] / "mem.jsonl").exists()  # ${workspaceFolder} pointed at the project
    _no_secret_anywhere(world, (world["home"] / "home" / "broker" / "audit.jsonl").read_text())

    # a second run finds them there; a changed entry is a conflict until --replace
    again = _imp(world)
    assert "= time" in again.stdout and "nothing to add" in again.stdout
    data = json.loads((world["proj"] / "opencode.json").read_text())
    data["mcp"]["time"]["environment"]["TZ"] = "Europe/Paris"
    (world["proj"] / "opencode.json").write_text(json.dumps(data))
    conflict = _imp(world, "--apply")
    assert "! time" in conflict.stdout and "--replace" in conflict.stdout
    assert load_config(world["home"] / "config" / "broker.yaml").servers["time"].env["TZ"] == "UTC"
    assert _imp(world, "--apply", "--replace", "--no-list").returncode == 0
    assert (
        load_config(world["home"] / "config" / "broker.yaml").servers["time"].env["TZ"]
        == "Europe/Paris"
    )


def test_remove_from_source_edits_opencode_json_only_and_never_loses_a_secret(
    world, monkeypatch: pytest.MonkeyPatch
) -> None:
    oc = world["proj"] / "opencode.json"
    r = _imp(world, "--apply", "--no-list", "--remove-from-source")
    assert r.returncode == 0, r.stderr
    left = json.loads(oc.read_text())["mcp"]
    # imported ones are gone; ours and the disabled one stay; gh holds the only copy of its
    # token, which is not set yet: it stays until it is
    assert set(left) == {"gh", "old", "neuralgentics"}
    assert "kept gh" in r.stderr and "set GH_AUTHORIZATION first" in r.stderr
    assert stat.S_IMODE(oc.stat().st_mode) == 0o640
    assert json.loads(oc.read_text())["$schema"] == "https://opencode.ai/config.json"
    assert "left as it is" in r.stderr  # the other shapes are not edited
    assert (world["proj"] / ".vscode" / "mcp.json").read_text().startswith("{\n  // VS Code")

    monkeypatch.setenv("GH_AUTHORIZATION", GH_TOKEN)
    r = _imp(world, "--apply", "--no-list", "--remove-from-source")
    assert "removed from" in r.stdout and "gh" not in json.loads(oc.read_text())["mcp"]

    # a file with comments is not rewritten (they would be lost): it says what to remove
    commented = world["proj"] / "opencode.jsonc"
    commented.write_text(
        '{\n  // mine\n  "mcp": {"clock": {"type": "local", "command": ["'
        + PY
        + '", "-m", "mcp_server_time"]}}\n}\n'
    )
    before = commented.read_bytes()
    r = _imp(world, str(commented), "--apply", "--no-list", "--remove-from-source")
    assert (
        r.returncode == 0
        and "clock" in load_config(world["home"] / "config" / "broker.yaml").servers
    )
    assert "it has comments" in r.stderr and "clock" in r.stderr
    assert commented.read_bytes() == before


def test_bad_input_is_named_and_changes_nothing(world, tmp_path: Path) -> None:
    config = world["home"] / "config" / "broker.yaml"
    nothing = tmp_path / "settings.json"
    nothing.write_text('{"editor.fontSize": 12}')
    r = _imp(world, str(nothing), "--apply")
    assert r.returncode == 2 and "no MCP servers here" in r.stderr and "mcpServers" in r.stderr
    broken = tmp_path / "broken.json"
    broken.write_text('{"mcpServers": {"x": ')
    r = _imp(world, str(broken), "--apply")
    assert r.returncode == 2 and "not valid JSON/JSONC" in r.stderr
    r = _imp(world, "--apply", "--grant", "nobody")
    assert r.returncode == 2 and "--grant nobody: no such role" in r.stderr
    r = _imp(world, str(tmp_path / "missing.json"))
    assert r.returncode == 2 and "no such file" in r.stderr
    assert not config.exists()


def test_opencode_install_offers_the_import(world) -> None:
    r = cli("opencode", "install", "--project", str(world["proj"]))
    assert r.returncode == 0, r.stderr
    assert "found 6 MCP servers the broker could front" in r.stdout
    assert f"neuralgentics broker import --project {world['proj']}" in r.stdout
    # the hint changed nothing: the servers are still OpenCode's, the broker has none
    assert "time" in json.loads((world["proj"] / "opencode.json").read_text())["mcp"]
    assert not (world["home"] / "config" / "broker.yaml").exists() or not yaml.safe_load(
        (world["home"] / "config" / "broker.yaml").read_text()
    ).get("servers")
    assert BIN.exists()
