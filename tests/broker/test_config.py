"""Config: validated at load with messages naming line and field; edits change nothing when bad."""

from __future__ import annotations

import pytest

from neuralgentics.broker.config import ConfigError, expand_env, load_config, parse_config
from tests.broker.conftest import CliResult, base_config, cli, time_server

GOOD = """\
servers:
  time:
    transport: stdio
    command: python3
    args: [-m, mcp_server_time]
    env: {TZ: UTC}
    summary: Current time and time-zone conversion
  everything:
    transport: streamable_http
    url: http://127.0.0.1:3001/mcp
roles:
  coder:
    allow: ["time/*", "everything/echo"]
  reviewer:
    allow: ["time/get_current_time"]
    deny: ["everything/*"]
"""


def test_the_issue_example_loads() -> None:
    cfg = parse_config(GOOD)
    assert cfg.servers["time"].args == ["-m", "mcp_server_time"]
    assert cfg.servers["everything"].transport == "streamable_http"
    assert cfg.roles["reviewer"].deny == ["everything/*"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "servers:\n  t:\n    transport: stdio\n    args: [x]\n",
            ":3: servers.t: transport 'stdio' needs 'command'",
        ),
        (
            "servers:\n  t:\n    transport: carrier-pigeon\n    command: x\n",
            ":3: servers.t.transport:",
        ),
        (
            "servers:\n  t:\n    command: x\n    colour: red\n",
            ":4: servers.t.colour: Extra inputs are not permitted",
        ),
        ("servers:\n  h:\n    transport: sse\n", "servers.h: transport 'sse' needs 'url'"),
        ("servers:\n  h:\n    transport: sse\n    url: ftp://x\n", "'url' must start with http://"),
        ("roles:\n  coder:\n    allow: time/*\n", ":3: roles.coder.allow:"),
        ("default_role: boss\nroles: {}\n", "default_role 'boss' is not one of the roles"),
        ("servers: [1, 2]\n", ":1: servers:"),
        ("servers:\n  t: {command: x\n", "not valid YAML"),
    ],
)
def test_errors_name_the_line_and_field(text: str, expected: str) -> None:
    with pytest.raises(ConfigError) as exc:
        parse_config(text, "broker.yaml")
    assert expected in str(exc.value)


def test_env_references_expand_only_at_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = parse_config("servers:\n  t:\n    command: x\n    env: {TOKEN: '${MY_TOKEN}'}\n")
    assert cfg.servers["t"].env["TOKEN"] == "${MY_TOKEN}"  # the secret is not in the config
    monkeypatch.setenv("MY_TOKEN", "s3cret")
    assert cfg.servers["t"].expanded_env() == {"TOKEN": "s3cret"}
    monkeypatch.delenv("MY_TOKEN")
    with pytest.raises(ConfigError, match="MY_TOKEN is not set"):
        cfg.servers["t"].expanded_env()
    assert expand_env("${NOPE_X:-fallback}") == "fallback"


def test_check_command(write_config, home) -> None:
    good = write_config(
        {"servers": {"time": time_server()}, "roles": {"coder": {"allow": ["time/*"]}}}
    )
    r = cli("broker", "check", "--config", str(good))
    assert r.returncode == 0 and "1 server (time)" in r.stdout
    # base_config's roles name servers most tests do not configure: a rule on a server that
    # is not there is an error in `check` (issue 18 item 2), with its line
    r = cli("broker", "check", "--config", str(write_config(base_config(), "stale.yaml")))
    assert r.returncode == 2
    assert "stale.yaml:17: roles.coder.allow: 'slow/*': no server named 'slow'" in r.stderr
    bad = home / "bad.yaml"
    bad.write_text("servers:\n  t:\n    transport: stdio\n")
    r = cli("broker", "check", "--config", str(bad))
    assert r.returncode == 2
    assert "bad.yaml:3: servers.t: transport 'stdio' needs 'command'" in r.stderr


def test_add_and_remove_persist_and_bad_entry_changes_nothing(write_config, home) -> None:
    path = write_config(base_config())

    def run(cmd: str, *a: str) -> CliResult:
        return cli("broker", cmd, "--config", str(path), *a)

    r = run("add", "git", "--summary", "git repo tools", "--", "python3", "-m", "mcp_server_git")
    assert r.returncode == 0, r.stderr
    cfg = load_config(path)
    assert cfg.servers["git"].command == "python3"
    assert cfg.servers["git"].args == ["-m", "mcp_server_git"]
    assert cfg.servers["git"].summary == "git repo tools"

    r = run("add", "web", "--url", "http://127.0.0.1:9/mcp")
    assert r.returncode == 0 and load_config(path).servers["web"].transport == "streamable_http"

    before = path.read_text()
    r = run("add", "bad", "--url", "ftp://nowhere")
    assert r.returncode == 2 and "'url' must start with http://" in r.stderr
    r = run("add", "git", "--", "other")
    assert r.returncode == 2 and "already exists" in r.stderr
    r = run("add", "bad name!", "--", "x")
    assert r.returncode == 2 and "name 'bad name!'" in r.stderr
    assert path.read_text() == before

    r = run("remove", "git")
    assert r.returncode == 0 and "git" not in load_config(path).servers
    r = run("remove", "git")
    assert r.returncode == 2 and "no server named 'git'" in r.stderr


def test_first_class_servers_are_not_brokered() -> None:
    cfg = parse_config(
        "servers:\n  mem:\n    command: x\n    first_class: true\n  t:\n    command: y\n"
    )
    assert list(cfg.brokered()) == ["t"]
    assert time_server()["command"]


def test_role_tokens_are_added_listed_and_removed_and_only_their_hash_is_kept(write_config) -> None:
    from neuralgentics.broker.config import load_config
    from neuralgentics.broker.role_tokens import principal_of

    path = write_config(base_config())
    r = cli("broker", "token", "add", "--role", "coder", "--label", "ci", "--config", str(path))
    assert r.returncode == 0, r.stderr
    token = r.stdout.strip()
    assert len(token) >= 40 and token not in path.read_text()
    assert "shown only now" in r.stderr
    cfg = load_config(path)
    assert principal_of(cfg, token).role == "coder" and principal_of(cfg, token).label == "token:ci"
    assert principal_of(cfg, token + "x") is None
    assert cli("broker", "token", "list", "--config", str(path)).stdout.split() == ["ci", "coder"]
    for args, words in [
        (["--role", "boss", "--label", "x"], "not one of the roles"),
        (["--role", "coder", "--label", "ci"], "already exists"),
    ]:
        r = cli("broker", "token", "add", *args, "--config", str(path))
        assert r.returncode != 0 and words in r.stderr, r.stderr
    assert cli("broker", "token", "remove", "ci", "--config", str(path)).returncode == 0
    assert load_config(path).tokens == []
    assert cli("broker", "token", "remove", "ci", "--config", str(path)).returncode != 0


def test_a_token_bound_to_a_missing_role_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="bound to role 'ghost'"):
        parse_config(
            "roles: {coder: {allow: ['*']}}\ntokens:\n  - {label: x, role: ghost, hash: 'sha256:"
            + "0" * 64
            + "'}\n"
        )
