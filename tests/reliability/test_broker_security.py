"""Broker security on a real `neuralgentics broker serve`: downstreams get only the environment
their config names; secrets never reach the audit or the logs; a role never sees or calls what
it is not allowed (property over random roles); Host-header checks on both fronts."""

from __future__ import annotations

import json
import os
import signal
from fnmatch import fnmatchcase
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reliability import loopback
from reliability.broker_proc import owner, probe, serving, time_server, write_config

EXAMPLES = int(os.environ.get("NEURALGENTICS_PROPERTY_EXAMPLES", "15"))
CODER = {"X-Neuralgentics-Role": "coder"}
PARENT_SECRET = "parent-only-s3cret-d41d8cd98f00"
CONFIG_SECRET = "sk-live-0123456789abcdefABCDEF"
ARG_SECRETS = {"api_key": "ak-9f8e7d6c5b4a39281706", "password": "hunter2-correct-horse-battery"}


def _text(r: httpx.Response) -> str:
    return "".join(c.get("text", "") for c in r.json().get("content", []))


def test_downstreams_get_only_their_named_environment_and_secrets_stay_out_of_every_sink(
    tmp_path: Path,
) -> None:
    config = write_config(
        tmp_path / "broker.yaml",
        {
            "probe": probe(env={"PROBE_MODE": "strict", "PROBE_TOKEN": "${CONFIG_SECRET_VAR}"}),
        },
    )
    extra = {
        "PARENT_SECRET_VAR": PARENT_SECRET,
        "CONFIG_SECRET_VAR": CONFIG_SECRET,
        "NEURALGENTICS_TOKEN": "broker-bearer-7b7b7b7b7b7b",
    }
    with serving(config, tmp_path, extra) as (base, proc):
        auth = {**CODER, "authorization": "Bearer broker-bearer-7b7b7b7b7b7b"}
        r = loopback.post(
            base + "/call",
            headers=auth,
            timeout=60,
            json={"server": "probe", "tool": "env", "arguments": {}},
        )
        env = json.loads(_text(r))
        assert env["PROBE_MODE"] == "strict" and env["PROBE_TOKEN"] == CONFIG_SECRET
        leaked = sorted(k for k in env if k in extra or k.startswith("NEURALGENTICS_"))
        assert not leaked, f"the broker's own environment reached a downstream: {leaked}"
        assert PARENT_SECRET not in json.dumps(env)
        # calls carrying secrets: as named arguments, and as a value that looks like a key
        for args in ({"text": "plain", **ARG_SECRETS}, {"text": CONFIG_SECRET}):
            r = loopback.post(
                base + "/call",
                headers=auth,
                timeout=60,
                json={"server": "probe", "tool": "echo", "arguments": args},
            )
            assert r.status_code == 200, r.text
        r = loopback.post(
            base + "/call",
            headers={**auth, "X-Neuralgentics-Role": "nobody"},
            timeout=60,
            json={"server": "probe", "tool": "echo", "arguments": {"text": "x", **ARG_SECRETS}},
        )
        assert r.status_code == 403  # denied calls are audited too
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(20)
    sinks = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "broker.yaml"]
    audit = [p for p in sinks if p.name.startswith("audit")]
    assert audit and sum(len(p.read_text().splitlines()) for p in audit) >= 4
    for secret in (
        PARENT_SECRET,
        CONFIG_SECRET,
        *ARG_SECRETS.values(),
        "broker-bearer-7b7b7b7b7b7b",
    ):
        holders = [str(p.relative_to(tmp_path)) for p in sinks if secret.encode() in p.read_bytes()]
        assert not holders, f"{secret[:8]}… written to {holders}"


TOOLS = {
    "time": ["get_current_time", "convert_time"],
    "probe": ["echo", "pid", "env", "wait", "garbage", "flood", "fail"],
}
PATTERNS = [
    "*",
    "time",
    "probe",
    "probe/*",
    "time/*",
    "*/e*",
    "probe/echo",
    "time/get_*",
    "*/pid",
    "nomatch/*",
    "?ime/*",
    "*/*_time",
    "probe/[ep]*",
    "time/convert_time",
]


def _allowed(allow: list[str], deny: list[str], server: str, tool: str) -> bool:
    """The documented rule, written out: deny wins; `server` alone means every tool of it."""

    def hit(p: str) -> bool:
        s, sep, t = p.partition("/")
        return fnmatchcase(server, s) and fnmatchcase(tool, t if sep else "*")

    return not any(map(hit, deny)) and any(map(hit, allow))


@pytest.fixture(scope="module")
def policy_broker(tmp_path_factory):
    home = tmp_path_factory.mktemp("roles")
    config = write_config(home / "broker.yaml", {"time": time_server(), "probe": probe()})
    with serving(config, home) as (base, _):
        yield base, config


roles = st.dictionaries(
    st.sampled_from(["coder", "reviewer", "ops", "guest"]),
    st.fixed_dictionaries(
        {
            "allow": st.lists(st.sampled_from(PATTERNS), max_size=3),
            "deny": st.lists(st.sampled_from(PATTERNS), max_size=2),
        }
    ),
    min_size=1,
    max_size=3,
)


@given(roles=roles, asker=st.sampled_from(["coder", "reviewer", "ops", "guest", "root"]))
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_a_role_sees_and_calls_exactly_what_its_patterns_allow(policy_broker, roles, asker) -> None:
    base, config = policy_broker
    write_config(config, {"time": time_server(), "probe": probe()}, roles)
    assert loopback.post(base + "/reload", headers=owner(base), timeout=30).status_code == 200
    spec = roles.get(asker, {"allow": [], "deny": []})
    listed = loopback.get(
        base + "/tools", headers=owner(base, **{"X-Neuralgentics-Role": asker}), timeout=60
    ).json()
    seen = {(s, t["name"]) for s, v in listed.get("servers", {}).items() for t in v["tools"]}
    expected = {
        (s, t) for s, ts in TOOLS.items() for t in ts if _allowed(spec["allow"], spec["deny"], s, t)
    }
    assert seen == expected
    for server, tool in [("time", "convert_time"), ("probe", "pid"), ("probe", "env")]:
        if (server, tool) not in expected:
            r = loopback.post(
                base + "/call",
                headers=owner(base, **{"X-Neuralgentics-Role": asker}),
                timeout=60,
                json={"server": server, "tool": tool, "arguments": {}},
            )
            assert r.status_code == 403, (server, tool, r.text)


def test_mcp_front_refuses_a_foreign_host(policy_broker) -> None:
    base, _ = policy_broker
    h = owner(
        base,
        **{
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "Host": "evil.example",
        },
    )
    r = loopback.post(base + "/mcp", headers=h, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert r.status_code == 421


def test_rest_front_refuses_a_foreign_host(policy_broker) -> None:
    base, _ = policy_broker
    assert (
        loopback.get(base + "/tools", headers=owner(base, **CODER, Host="evil.example")).status_code
        == 421
    )
