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


def test_resource_uris_are_matched_as_the_server_reads_them() -> None:
    """Issue 29, item 6: `file:///srv/*` allowed `file:///srv/../etc/passwd` (a raw glob)."""
    policy = AccessPolicy(
        {
            "reader": RoleConfig(
                allow=["fs:resource:file:///srv/*"], deny=["fs:resource:file:///srv/secret/*"]
            )
        }
    )

    def may_read(uri: str) -> bool:
        return policy.check_kind("reader", "resource", "fs", uri).allowed

    assert may_read("file:///srv/notes.md") and may_read("file:///srv/a/./b/../c.md")
    for escape in (
        "file:///srv/../etc/passwd",
        "file:///srv/%2e%2e/etc/passwd",
        "file:///srv/%2E%2E%2Fetc/passwd",
        "file:///srv//../etc/passwd",
        "file:///srv/a/../../etc/passwd",
        "file:///srv/..\\etc\\passwd",
    ):
        assert not may_read(escape), escape
    # A deny pattern takes the URI as sent and as read.
    assert not may_read("file:///srv/x/../secret/key")
    assert not may_read("file:///srv/secret/../secret/key")
