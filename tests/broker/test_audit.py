"""Audit records: secrets redacted, JSONL durable and rotated, readable by `broker audit`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from neuralgentics.broker.audit import JsonlAuditSink, argument_digest, query, redact
from neuralgentics.broker.audit.record import AuditRecord
from neuralgentics.config import Settings
from tests.broker.conftest import base_config, cli


def test_secret_keys_and_values_are_redacted() -> None:
    args = {
        "path": "/tmp/x",
        "api_key": "abc",
        "headers": {"Authorization": "Bearer abc.def", "X-Trace": "1"},
        "password": "hunter2",
        "db_password": "x",
        "githubToken": "t",
        "note": "ghp_" + "a" * 36,
        "items": [{"secret": "s"}, "plain"],
        "keyword": "kept",
    }
    red = redact(args)
    assert red["path"] == "/tmp/x" and red["keyword"] == "kept" and red["headers"]["X-Trace"] == "1"
    for k in ("api_key", "password", "db_password", "githubToken", "note"):
        assert red[k] == "[REDACTED]", k
    assert red["headers"]["Authorization"] == "[REDACTED]"
    assert red["items"] == [{"secret": "[REDACTED]"}, "plain"]
    _, digest = argument_digest(args)
    _, digest2 = argument_digest({**args, "password": "other"})
    assert digest == digest2  # the digest cannot confirm a guessed secret


def test_long_values_are_cut() -> None:
    assert len(redact({"text": "x" * 5000})["text"]) < 300


@pytest.mark.parametrize("fsync", ["batch", "always"])
async def test_jsonl_durability_and_rotation(tmp_path: Path, fsync: str) -> None:
    sink = JsonlAuditSink(tmp_path / "audit.jsonl", max_bytes=2000, keep=3, fsync=fsync)  # type: ignore[arg-type]
    try:
        recs = [
            AuditRecord.for_call(
                role="coder", server="s", tool=f"t{i}", arguments={"i": i}, outcome="ok"
            )
            for i in range(40)
        ]
        for r in recs[:30]:
            await sink.write(r)
        await asyncio.gather(*(sink.write(r) for r in recs[30:]))  # concurrent: group-committed
        # Acknowledged means in the file already (a crash now would lose nothing).
        assert [r.tool for r in sink.read()][-1] == "t39"
    finally:
        sink.close()
    files = sink.files()
    assert len(files) == 4  # rotated; never more than `keep` old files
    got = [r.tool for r in sink.read()]
    assert got == [f"t{i}" for i in range(40 - len(got), 40)]  # the oldest went, in order
    for f in files:
        for line in f.read_text().splitlines():
            json.loads(line)


def test_audit_command_filters(home, write_config) -> None:
    cfg = base_config()
    cfg["audit"] = {"path": str(home / "a.jsonl")}
    path = write_config(cfg)
    sink = JsonlAuditSink(home / "a.jsonl")
    sink.write_sync(
        AuditRecord.for_call(role="coder", server="time", tool="t", arguments={}, outcome="ok")
    )
    sink.write_sync(
        AuditRecord.for_call(
            role="reviewer",
            server="git",
            tool="g",
            arguments={},
            outcome="denied",
            error="denied by x",
        )
    )
    r = cli("broker", "audit", "--config", str(path), "--role", "reviewer", "--json")
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [(x["server"], x["outcome"]) for x in lines] == [("git", "denied")]
    r = cli("broker", "audit", "--config", str(path), "--since", "1h")
    assert "time/t" in r.stdout and "git/g" in r.stdout
    assert len(query(sink.read(), server="time")) == 1


@pytest.mark.postgres
async def test_postgres_sink_through_a_broker_call(
    home, write_config, request, tmp_path_factory
) -> None:
    from support.postgres import drop_database, fresh_database, postgres_url

    from neuralgentics.broker.errors import AccessDenied
    from neuralgentics.broker.service import Broker
    from tests.broker.conftest import slow_server

    url = fresh_database(postgres_url(tmp_path_factory, request.config))
    try:
        cfg = base_config(slow=slow_server())
        cfg["audit"] = {"sink": "postgres", "database_url": url}
        async with Broker.open(write_config(cfg), settings=Settings()) as broker:
            await broker.call(
                role="coder",
                server="slow",
                tool="pid",
                arguments={"token": "t0p"},
                session_id="s-1",
                connection="stdio-abc",
            )
            with pytest.raises(AccessDenied):
                await broker.call(role="reviewer", server="slow", tool="pid", arguments={})
            rows = list(broker.audit.read())
        assert [(r.role, r.outcome) for r in rows] == [("coder", "ok"), ("reviewer", "denied")]
        assert rows[0].args == {"token": "[REDACTED]"} and rows[0].session_id == "s-1"
        assert rows[0].connection == "stdio-abc"  # migration 0002
        assert "no pattern in roles.reviewer.allow" in (rows[1].rule or "")
    finally:
        drop_database(url)


def test_every_field_of_a_record_is_bounded_whatever_the_caller_sent() -> None:
    from neuralgentics.broker.audit.record import FIELD_LIMITS, MAX_RECORD_BYTES

    deep: dict = {"leaf": "x"}
    for _ in range(5000):
        deep = {"d": deep}
    rec = AuditRecord.for_call(
        role="r" * 1_000_000,
        server="s\n" * 1_000_000,
        tool="t" * 4_000_000,
        outcome="invalid",
        arguments={
            "k" * 10_000: "v" * 1_000_000,
            "deep": deep,
            "many": list(range(100_000)),
            **{f"key{i}": i for i in range(1000)},
        },
        session_id="i" * 100_000,
        front="rest",
        error="e" * 10_000_000,
        rule="u" * 1_000_000,
    )
    line = rec.to_json()
    assert len(line) <= MAX_RECORD_BYTES, len(line)
    data = json.loads(line)
    for name, limit in FIELD_LIMITS.items():
        if data.get(name) is not None:
            assert len(data[name]) <= limit + 40, name  # + the "…(+N chars)" note
    assert "\n" not in data["server"] and data["server"].startswith("s\\ns\\n")
    assert "(+" in data["tool"] and data["tool"].startswith("t" * 100)


def test_the_flood_gate_counts_refusals_past_the_budget_in_summaries() -> None:
    from neuralgentics.broker.audit.gate import SUMMARY_EVERY, FloodGate

    now = [0.0]
    gate = FloodGate(burst=5, per_second=1.0, clock=lambda: now[0])

    def rec(outcome: str, credential: str = "token:bot", tool: str = "t") -> AuditRecord:
        return AuditRecord.for_call(
            role="coder",
            server="s",
            tool=tool,
            arguments={},
            outcome=outcome,
            credential=credential,
        )

    written = [r for _ in range(100) for r in gate.admit(rec("denied"))]
    assert len(written) == 5  # the burst, one by one
    # real calls are never held back, and another credential has its own budget
    assert len(gate.admit(rec("ok"))) == 1 and len(gate.admit(rec("denied", "owner"))) == 1
    now[0] = SUMMARY_EVERY + 0.5
    out = gate.admit(rec("invalid", tool="u"))
    summary, last = out
    assert summary.kind == "summary" and summary.outcome == "suppressed"
    assert summary.args["suppressed"] == 95 and summary.args["by_outcome"] == {"denied": 95}
    assert summary.args["top_targets"] == {"s/t": 95} and summary.credential == "token:bot"
    assert last.tool == "u"  # the bucket refilled over those seconds
    for _ in range(50):
        gate.admit(rec("denied"))
    flushed = gate.flush()
    assert (
        sum(r.args["suppressed"] for r in flushed) == 50 - 4
    )  # the refilled bucket (5) paid for "u" and 4 more
    assert gate.flush() == []


def test_a_record_settled_later_is_the_record_built_at_once() -> None:
    """The direct path redacts a call's arguments while the server works on it
    (`AuditRecord.pending_call`): what is written is what `for_call` writes, secrets scrubbed
    from every field, and a record nobody settled is settled when written."""
    args = {"api_key": "sk-" + "z" * 40, "path": "/tmp/x", "nested": {"password": "hunter2"}}
    kw = {"role": "coder", "server": "time", "tool": "t", "outcome": "ok", "front": "http"}
    at_once = AuditRecord.for_call(arguments=args, **kw)
    later = AuditRecord.pending_call(arguments=args, **kw)
    for rec in (at_once, later):
        rec.error = f"the server echoed {args['api_key']} and hunter2"
        rec.time = "2026-12-02T00:00:00.000+00:00"
    line = later.to_json()  # never settled by hand
    assert line == at_once.to_json()
    assert b"hunter2" not in line and b"z" * 40 not in line
    assert json.loads(line)["args"]["path"] == "/tmp/x"
