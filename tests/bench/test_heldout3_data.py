"""The heldout3 evaluation part (bench/data/gen_heldout3.py) is fresh, shares no name with
the other parts, has the shape the benches read, and is never pulled in by `--split all`.
Only shapes and counts are checked here: no detector runs on heldout3 in tests."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "bench" / "data"
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(DATA))

import gen_heldout3


def lines(name: str) -> list[dict]:
    return [json.loads(x) for x in (DATA / f"{name}.jsonl").read_text().splitlines() if x]


def test_committed_files_are_fresh_and_share_no_name() -> None:
    done = subprocess.run(
        [sys.executable, str(DATA / "gen_heldout3.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert gen_heldout3.leaks() == []


def test_no_question_copies_its_fact() -> None:
    done = subprocess.run([sys.executable, str(DATA / "check.py")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "streams_parallel_heldout3.jsonl" in done.stdout


def test_stream_files_have_the_stream_shape_and_sizes() -> None:
    keys = [
        "id", "set", "split", "scope", "seq", "kind", "entity", "attribute", "text",
        "questions", "replaces", "restates",
    ]  # fmt: skip
    for name in ("parallel", "events", "people", "mixed"):
        rows = lines(f"streams_{name}_heldout3")
        assert all(list(r) == keys and r["split"] == "heldout3" for r in rows)
        ids = {r["id"]: r for r in rows}
        for r in rows:
            for ref in (r["replaces"], r["restates"]):
                if ref:
                    assert ids[ref]["scope"] == r["scope"] and ids[ref]["seq"] < r["seq"]
            if r["replaces"]:
                assert ids[r["replaces"]]["questions"] == []
    parallel = lines("streams_parallel_heldout3")
    assert len({r["entity"] for r in parallel}) >= 12
    assert len({r["attribute"] for r in parallel}) >= 8
    people = lines("streams_people_heldout3")
    assert len({r["entity"] for r in people}) >= 8 and len({r["attribute"] for r in people}) >= 8
    kinds = Counter(r["kind"] for r in lines("streams_mixed_heldout3"))
    total = sum(kinds.values())
    assert 0.55 <= kinds["fact"] / total <= 0.65 and 0.10 <= kinds["update"] / total <= 0.14
    assert len({r["scope"] for r in lines("streams_mixed_heldout3")}) >= 2


def test_pairs_file_has_memory_updates_schema_and_sizes() -> None:
    rows = lines("memory_updates_heldout3")
    kinds = Counter(r["kind"] for r in rows)
    assert kinds["update"] >= 40 and kinds["non_update"] >= 40 and kinds["contradiction"] >= 10
    assert len({r["project"] for r in rows}) >= 8
    assert {r["style"] for r in rows if r["kind"] == "update"} == {"cue", "plain", "value_only"}
    for r in rows:
        assert r["split"] == "heldout3" and r["context"] and r["old"] and r["new"]
        if r["kind"] == "non_update":
            assert sorted(q["answer"] for q in r["questions"]) == ["new", "old"]
        else:
            assert r["question"] and r["answer"] in ("new", "both")


def test_split_all_never_reads_heldout3() -> None:
    import memory_streams

    for name in (*memory_streams.STREAM_SETS, "updates"):
        assert not any(r.split == "heldout3" for r in memory_streams.load_rows(name, ["all"]))
        assert all(r.split == "heldout3" for r in memory_streams.load_rows(name, ["heldout3"]))
