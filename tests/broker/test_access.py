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
