"""Issue 13, finding 3: no caller can flush the audit history.

A real `neuralgentics broker serve` with a small audit budget (1 MB per file, 2 kept), a trail
of legitimate calls, then 100 hostile calls of every kind the issue found (multi-MB tool and
server names, refused calls, deep and huge arguments, non-JSON bodies, huge downstream errors).
Every earlier record is still there afterwards, every line is bounded, and every hostile call
is accounted for: one record each, or counted in a flood summary.

10 calls of each kind carry about 110 MB: unbounded records would rotate the 2 MB history away
55 times over (the issue's attack did it with 40 calls; 300 calls, 330 MB, tested nothing more
and cost 15-20 s). The flood gate lets 10 refusals through at once and then 1 a second here
(100 and 10 by default), so that the 80 refused calls outrun it unless the flood took over 70 s
(it takes 3-7 s), and the summary path is certainly taken; with 1,000 calls and the default
budget it was taken only because the flood was fast enough (1,000 calls cost 20-37 s of the
suite)."""

from __future__ import annotations

import json
import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from neuralgentics.broker.audit.record import MAX_RECORD_BYTES
from reliability import loopback
from reliability.broker_proc import owner, probe, serving, time_server, write_config

pytestmark = pytest.mark.slow

LEGIT = 30
HOSTILE = 100
MAX_BYTES = 1_000_000
BURST, PER_SECOND = 10, 1.0


def _hostile(i: int) -> tuple[dict, bytes | dict]:
    """(headers, body) of hostile call i: ten kinds, HOSTILE / 10 of each."""
    kind = i % 10
    role = {"X-Neuralgentics-Role": "reviewer" if kind in (2, 3) else "coder"}
    if kind == 0:  # the attack: a ~4 MB tool name (the body limit is 4 MiB)
        return role, {"server": "time", "tool": "t" * 4_000_000}
    if kind == 1:
        return role, {"server": "s" * 1_000_000, "tool": "x"}
    if kind == 2:  # denied: reviewer may not convert
        return role, {
            "server": "time",
            "tool": "convert_time",
            "arguments": {"note": "n" * 100_000},
        }
    if kind == 3:
        return role, {"server": "nope", "tool": "nothing"}
    if kind == 4:  # unknown tool of a known server
        return role, {"server": "time", "tool": "no_such_tool_" + "z" * 100}
    if kind == 5:  # nested past the depth limit
        deep: dict = {"v": 1}
        for _ in range(300):
            deep = {"d": deep}
        return role, {"server": "time", "tool": "get_current_time", "arguments": deep}
    if kind == 6:
        return role, b"{" * 2_000_000
    if kind == 7:  # 3 MB of argument to an allowed tool: a real call, its record bounded
        return role, {"server": "probe", "tool": "echo", "arguments": {"text": "e" * 3_000_000}}
    if kind == 8:  # a downstream error quoting 1 MB back
        return role, {"server": "probe", "tool": "fail", "arguments": {"message": "f" * 1_000_000}}
    return role, {"server": "time\n", "tool": "get_current_time"}  # name with a newline


def test_hostile_calls_of_every_kind_leave_every_earlier_record_in_place(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "broker.yaml",
        {"time": time_server(), "probe": probe()},
        {
            "coder": {"allow": ["time/*", "probe/*"]},
            "reviewer": {"allow": ["time/get_current_time"]},
        },
        audit={
            "max_bytes": MAX_BYTES,
            "keep": 2,
            "flood_burst": BURST,
            "flood_per_second": PER_SECOND,
        },
    )
    audit_dir = tmp_path / "home" / "broker"
    with serving(config, tmp_path) as (base, proc):
        for i in range(LEGIT):
            r = loopback.post(
                base + "/call",
                timeout=60,
                headers=owner(
                    base,
                    **{"X-Neuralgentics-Role": "coder", "X-Neuralgentics-Session": f"legit-{i}"},
                ),
                json={
                    "server": "time",
                    "tool": "get_current_time",
                    "arguments": {"timezone": "UTC"},
                },
            )
            assert r.status_code == 200
        size_before = sum(p.stat().st_size for p in audit_dir.glob("audit.jsonl*"))

        def hostile(i: int) -> int:
            headers, body = _hostile(i)
            headers = owner(base, **headers, **{"X-Neuralgentics-Session": f"hostile-{i}"})
            kw = (
                {"content": body, "headers": {**headers, "content-type": "application/json"}}
                if isinstance(body, bytes)
                else {"json": body, "headers": headers}
            )
            return loopback.post(base + "/call", timeout=120, **kw).status_code

        t0 = time.perf_counter()
        with ThreadPoolExecutor(8) as pool:
            statuses = list(pool.map(hostile, range(HOSTILE)))
        flood_s = time.perf_counter() - t0
        assert all(s < 500 for s in statuses), sorted(set(statuses))
        os.kill(proc.pid, signal.SIGTERM)  # a clean stop writes the last flood summary
        proc.wait(30)

    files = sorted(audit_dir.glob("audit.jsonl*"))
    lines = [line for p in files for line in p.read_bytes().splitlines()]
    assert max(len(x) for x in lines) <= MAX_RECORD_BYTES
    records = [json.loads(x) for x in lines]
    legit = {r["session_id"] for r in records if (r.get("session_id") or "").startswith("legit-")}
    assert legit == {f"legit-{i}" for i in range(LEGIT)}, (
        f"{LEGIT - len(legit)} earlier records were pushed out"
    )
    individual = sum(1 for r in records if (r.get("session_id") or "").startswith("hostile-"))
    summaries = [r for r in records if r["kind"] == "summary"]
    suppressed = sum(r["args"]["suppressed"] for r in summaries)
    assert individual + suppressed == HOSTILE, (individual, suppressed)
    assert suppressed > 0 and summaries, "the refused calls never outran the flood gate"
    assert len(files) == 1, [p.name for p in files]  # nothing rotated: the history is whole
    size_after = sum(p.stat().st_size for p in files)
    print(
        "audit-flood",
        {
            "hostile_calls": HOSTILE,
            "seconds": round(flood_s, 1),
            "records_written": individual,
            "suppressed_in_summaries": suppressed,
            "summary_records": len(summaries),
            "bytes_written": size_after - size_before,
            "largest_line": max(len(x) for x in lines),
            "statuses": {s: statuses.count(s) for s in sorted(set(statuses))},
        },
    )
