"""Roles without hand-edited YAML (issue 18, item 2): `broker role …` on the file, `/roles` on a
running broker (owner only, applied at once, audited), and rules checked against the servers
and tools that exist — on a real `broker serve` with mcp-server-time."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import yaml

from neuralgentics.broker.config import load_config
from tests.broker.conftest import audit_lines, base_config, cli, time_server
from tests.broker.test_http_front import auth, serve


def _time_only(write_config) -> Path:
    return write_config({"servers": {"time": time_server()}, "roles": {}})


def test_role_commands_edit_the_file_and_refuse_what_names_nothing(write_config) -> None:
    path = _time_only(write_config)
    c = ("--config", str(path))

    r = cli("broker", "role", "add", "coder", "--allow", "time/*", *c)
    assert r.returncode == 0, r.stderr
    assert load_config(path).roles["coder"].allow == ["time/*"]

    # a rule naming a server that is not configured: refused, the file untouched
    before = path.read_bytes()
    r = cli("broker", "role", "add", "ops", "--allow", "git/*", *c)
    assert r.returncode == 2
    assert "no server named 'git'" in r.stderr and "servers: time" in r.stderr
    assert path.read_bytes() == before
    r = cli("broker", "role", "grant", "nobody", "time/*", *c)
    assert r.returncode == 2 and "no role named 'nobody'" in r.stderr and "coder" in r.stderr
    r = cli("broker", "role", "add", "coder", *c)
    assert r.returncode == 2 and "already exists" in r.stderr

    # a glob server part may name servers still to come: accepted, with a note
    r = cli("broker", "role", "grant", "coder", "git*/git_status", *c)
    assert r.returncode == 0 and "matches no server yet" in r.stderr

    # once the server's tools are listed, a tool name is checked too
    r = cli("broker", "role", "grant", "coder", "time/get_tiem", *c)
    assert r.returncode == 0 and "not listed yet" in r.stderr  # accepted unchecked, and said
    assert cli("broker", "role", "revoke", "coder", "time/get_tiem", *c).returncode == 0
    assert cli("broker", "refresh", *c).returncode == 0
    r = cli("broker", "role", "grant", "coder", "time/get_tiem", *c)
    assert r.returncode == 2
    assert "has no tool matching 'get_tiem'" in r.stderr and "get_current_time" in r.stderr

    r = cli("broker", "role", "grant", "coder", "--deny", "time/convert_time", *c)
    assert r.returncode == 0, r.stderr
    shown = json.loads(cli("broker", "role", "show", "coder", "--json", *c).stdout)
    assert shown["allow"] == ["time/*", "git*/git_status"]
    assert shown["deny"] == ["time/convert_time"]
    assert shown["may_use"] == {"time": ["get_current_time"]}

    # revoking one tool a glob allows: refused, and told how to deny it instead
    r = cli("broker", "role", "revoke", "coder", "time/get_current_time", *c)
    assert r.returncode == 2 and "role grant coder --deny time/get_current_time" in r.stderr
    assert (
        cli("broker", "role", "revoke", "coder", "--deny", "time/convert_time", *c).returncode == 0
    )
    assert load_config(path).roles["coder"].deny == []

    # a role a token is bound to, or the default role, is not removed from under them
    assert cli("broker", "token", "add", "--role", "coder", "--label", "ci", *c).returncode == 0
    assert cli("broker", "role", "default", "coder", *c).returncode == 0
    r = cli("broker", "role", "remove", "coder", *c)
    assert r.returncode == 2 and "token(s) ci" in r.stderr
    assert cli("broker", "token", "remove", "ci", *c).returncode == 0
    r = cli("broker", "role", "remove", "coder", *c)
    assert r.returncode == 2 and "default_role" in r.stderr
    assert cli("broker", "role", "default", "--unset", *c).returncode == 0
    assert cli("broker", "role", "remove", "coder", *c).returncode == 0
    assert load_config(path).roles == {}
    assert "no roles" in cli("broker", "role", "list", *c).stdout


def test_check_fails_on_a_rule_naming_a_missing_server_and_remove_says_what_it_leaves(
    write_config,
) -> None:
    path = write_config(
        {
            "servers": {"time": time_server()},
            "roles": {"coder": {"allow": ["time/*", "git/*"]}},
        }
    )
    r = cli("broker", "check", "--config", str(path))
    assert r.returncode == 2
    assert "roles.coder.allow: 'git/*': no server named 'git'" in r.stderr

    fixed = write_config(
        {"servers": {"time": time_server()}, "roles": {"coder": {"allow": ["time"]}}}
    )
    assert cli("broker", "check", "--config", str(fixed)).returncode == 0
    r = cli("broker", "remove", "time", "--config", str(fixed))
    assert r.returncode == 0 and "roles.coder.allow: 'time'" in r.stderr
    assert cli("broker", "check", "--config", str(fixed)).returncode == 2


def test_resource_and_prompt_rules_are_rules_to_role_edits_and_check(write_config) -> None:
    """The access patterns for resources and prompts (docs/broker.md) pass `role grant` and
    `broker check`; their server part is checked like a tool rule's."""
    path = _time_only(write_config)
    c = ("--config", str(path))
    assert cli("broker", "role", "add", "reader", *c).returncode == 0
    for rule in ("time:prompt:*", "time:resource:file:///srv/*", "time:tool:get_*"):
        r = cli("broker", "role", "grant", "reader", rule, *c)
        assert r.returncode == 0, (rule, r.stderr)
    assert load_config(path).roles["reader"].allow == [
        "time:prompt:*",
        "time:resource:file:///srv/*",
        "time:tool:get_*",
    ]
    assert cli("broker", "check", *c).returncode == 0
    before = path.read_bytes()
    for rule, said in (
        ("git:prompt:*", "no server named 'git'"),
        ("time:zzz:x", "unknown kind 'zzz'"),
    ):
        r = cli("broker", "role", "grant", "reader", rule, *c)
        assert r.returncode == 2 and said in r.stderr, (rule, r.stderr)
    assert path.read_bytes() == before


def test_roles_over_rest_need_the_owner_take_effect_at_once_and_are_audited(
    write_config, home
) -> None:
    config = write_config(base_config(time=time_server()))
    assert (
        cli(
            "broker", "token", "add", "--role", "reviewer", "--label", "rv", "--config", str(config)
        ).returncode
        == 0
    )
    bot = yaml.safe_load(config.read_text())["tokens"][0]["label"]
    assert bot == "rv"
    call = {
        "server": "time",
        "tool": "convert_time",
        "arguments": {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
    }
    with serve(config, home) as (base, _):
        as_reviewer = auth(base, **{"X-Neuralgentics-Role": "reviewer"})
        r = httpx.post(base + "/call", headers=as_reviewer, json=call, timeout=60)
        assert r.status_code == 403
        now = {"server": "time", "tool": "get_current_time", "arguments": {"timezone": "UTC"}}
        r = httpx.post(base + "/call", headers=as_reviewer, json=now, timeout=60)
        assert r.status_code == 200  # and the server's tools are listed now

        # a role token may not administer roles: refused, recorded, nothing written
        token = cli(
            "broker",
            "token",
            "add",
            "--role",
            "reviewer",
            "--label",
            "rv2",
            "--config",
            str(config),
        ).stdout.strip()
        httpx.post(base + "/reload", headers=auth(base), timeout=30).raise_for_status()
        before = config.read_bytes()
        r = httpx.post(
            base + "/roles/reviewer/grant",
            headers={"Authorization": f"Bearer {token}"},
            json={"rules": ["time/*"]},
            timeout=30,
        )
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
        assert config.read_bytes() == before

        # the owner grants: the next call is allowed, no reload needed; the file has it
        r = httpx.post(
            base + "/roles/reviewer/grant",
            headers=auth(base),
            json={"rules": ["time/convert_time"]},
            timeout=30,
        )
        assert r.status_code == 200, r.text
        assert r.json()["role"]["may_use"]["time"] == ["get_current_time", "convert_time"]
        r = httpx.post(base + "/call", headers=as_reviewer, json=call, timeout=60)
        assert r.status_code == 200 and "Asia/Tokyo" in r.text
        assert "time/convert_time" in load_config(config).roles["reviewer"].allow

        # bad edits: named, nothing written
        before = config.read_bytes()
        bad = [
            ("POST", "/roles/reviewer/grant", {"rules": ["git/*"]}, 400, "no server named 'git'"),
            (
                "POST",
                "/roles/reviewer/grant",
                {"rules": ["time/nope"]},
                400,
                "no tool matching 'nope'",
            ),
            ("POST", "/roles/nobody/grant", {"rules": ["time/*"]}, 404, "no role named 'nobody'"),
            ("POST", "/roles", {"name": "reviewer"}, 409, "already exists"),
            ("DELETE", "/roles/reviewer", None, 400, "token(s) rv, rv2"),
            ("POST", "/roles/reviewer/revoke", {"rules": ["time/*"]}, 400, "has no rule 'time/*'"),
            ("GET", "/roles/nobody", None, 404, "no role named"),
        ]
        for method, route, body, status, words in bad:
            r = httpx.request(method, base + route, headers=auth(base), json=body, timeout=30)
            assert r.status_code == status, (route, r.text)
            assert words in r.json()["error"]["message"], (route, r.text)
        assert config.read_bytes() == before

        r = httpx.post(
            base + "/roles",
            headers=auth(base),
            json={"name": "ops", "allow": ["time"], "deny": ["time/convert_time"]},
            timeout=30,
        )
        assert r.status_code == 201 and r.json()["role"]["may_use"] == {
            "time": ["get_current_time"]
        }
        listed = httpx.get(base + "/roles", headers=auth(base), timeout=30).json()
        assert {v["name"] for v in listed["roles"]} == {"coder", "reviewer", "ops"}
        r = httpx.put(base + "/default_role", headers=auth(base), json={"role": "ops"}, timeout=30)
        assert r.status_code == 200 and load_config(config).default_role == "ops"
        assert httpx.delete(base + "/roles/ops", headers=auth(base), timeout=30).status_code == 400
        httpx.put(base + "/default_role", headers=auth(base), json={"role": None}, timeout=30)
        assert httpx.delete(base + "/roles/ops", headers=auth(base), timeout=30).status_code == 200
        assert "ops" not in load_config(config).roles

    admin = [
        r for r in audit_lines(home) if r["kind"] == "admin" and r["tool"].startswith("roles.")
    ]
    refused = [r for r in admin if r["credential"] == "token:rv2"]
    assert [(r["tool"], r["outcome"]) for r in refused] == [("roles.grant", "denied")]
    granted = next(r for r in admin if r["tool"] == "roles.grant" and r["outcome"] == "ok")
    assert granted["server"] == "reviewer" and granted["credential"] == "owner"
    assert granted["args"]["before"] == {
        "allow": ["time/get_current_time"],
        "deny": ["everything/*"],
    }
    assert "time/convert_time" in granted["args"]["after"]["allow"]
    # the six bad edits (not the GET) and removing the default role
    assert sum(r["outcome"] == "invalid" for r in admin) == 7
