"""Access control: role -> server/tool globs, deny wins, unknown roles denied."""

from __future__ import annotations

from neuralgentics.broker.access import AccessPolicy
from neuralgentics.broker.config import RoleConfig

POLICY = AccessPolicy(
    {
        "coder": RoleConfig(allow=["time/*", "everything/echo", "git"], deny=["git/git_reset"]),
        "reviewer": RoleConfig(allow=["*/get_*", "*/read_*"], deny=["everything/*"]),
        "nobody": RoleConfig(),
    }
)


def test_allow_globs_and_whole_server_patterns() -> None:
    assert POLICY.may_call("coder", "time", "convert_time")
    assert POLICY.may_call("coder", "everything", "echo")
    assert not POLICY.may_call("coder", "everything", "get-env")
    assert POLICY.may_call("coder", "git", "git_status")  # "git" means every tool of git


def test_deny_wins_and_names_the_rule() -> None:
    d = POLICY.check("coder", "git", "git_reset")
    assert not d.allowed and d.rule == "roles.coder.deny: 'git/git_reset'"
    d = POLICY.check("reviewer", "everything", "get_env")
    assert not d.allowed and "roles.reviewer.deny: 'everything/*'" == d.rule
    assert POLICY.may_call("reviewer", "time", "get_current_time")


def test_default_deny() -> None:
    assert "unknown role 'intruder'" in POLICY.check("intruder", "time", "x").rule
    assert not POLICY.may_call(None, "time", "get_current_time")
    assert not POLICY.may_call("nobody", "time", "get_current_time")
    assert "no pattern in roles.nobody.allow" in POLICY.check("nobody", "time", "t").rule


def test_server_visibility() -> None:
    assert POLICY.may_see_server("coder", "git")
    assert not POLICY.may_see_server("reviewer", "everything")
    assert POLICY.may_see_server("reviewer", "time")
    assert not POLICY.may_see_server("intruder", "time")


KINDS = AccessPolicy(
    {
        "reader": RoleConfig(
            allow=["everything:resource:demo://resource/static/*", "everything:prompt:simple-*"],
        ),
        "all": RoleConfig(allow=["everything"], deny=["everything:resource:*/secret*"]),
        "tools_only": RoleConfig(allow=["everything/*"]),
        "no_tools": RoleConfig(allow=["everything"], deny=["everything/*"]),
    }
)


def test_resource_and_prompt_patterns() -> None:
    doc = "demo://resource/static/document/a.md"
    assert KINDS.check_kind("reader", "resource", "everything", doc).allowed
    d = KINDS.check_kind("reader", "resource", "everything", "demo://resource/dynamic/text/1")
    assert not d.allowed
    assert d.rule == (
        "no pattern in roles.reader.allow matches everything:resource:demo://resource/dynamic/text/1"
    )
    assert KINDS.check_kind("reader", "prompt", "everything", "simple-prompt").allowed
    assert not KINDS.check_kind("reader", "prompt", "everything", "args-prompt").allowed
    assert not KINDS.may_call("reader", "everything", "echo")  # resources are not tools
    # A server alone grants all it offers; a deny of one kind's names takes just those.
    assert KINDS.may_call("all", "everything", "echo")
    assert KINDS.check_kind("all", "prompt", "everything", "args-prompt").allowed
    d = KINDS.check_kind("all", "resource", "everything", "demo://x/secret.txt")
    assert not d.allowed and d.rule == "roles.all.deny: 'everything:resource:*/secret*'"
    # server/* is about tools only, either way round.
    assert not KINDS.check_kind("tools_only", "resource", "everything", doc).allowed
    assert not KINDS.may_call("no_tools", "everything", "echo")
    assert KINDS.check_kind("no_tools", "resource", "everything", doc).allowed
    assert KINDS.may_see("no_tools", "everything", "prompt")
    assert not KINDS.may_see("no_tools", "everything", "tool")
    assert not KINDS.may_see("tools_only", "everything", "resource")


def test_malformed_patterns_are_config_errors() -> None:
    import pytest

    from neuralgentics.broker.config import ConfigError, parse_config

    for bad, says in [
        ("everything:resources:*", "unknown kind 'resources'"),
        ("a:b", "a server name has no ':'"),
    ]:
        with pytest.raises(ConfigError, match=says):
            parse_config(f"roles:\n  r:\n    allow: ['{bad}']\n")
    with pytest.raises(ConfigError, match="non-empty"):
        parse_config("roles:\n  r:\n    deny: ['']\n")
