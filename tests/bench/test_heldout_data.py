"""The held-out evaluation parts heldout4 .. heldout7 (bench/data/gen_heldout4.py ..
gen_heldout7.py) are fresh, share no name and no sentence with the other parts (heldout5 ..
heldout7 no attribute kind either), have the shape the benches read, and are never pulled in by
`--split all` or an earlier held-out split. Only shapes and counts are checked here: no detector runs on
a held-out part in tests."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "bench" / "data"
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(DATA))

import gen_heldout3
import gen_heldout4
import gen_heldout5
import gen_heldout6
import gen_heldout7

STREAMS = ("parallel", "events", "people", "mixed")
PARTS = {
    "heldout4": gen_heldout4,
    "heldout5": gen_heldout5,
    "heldout6": gen_heldout6,
    "heldout7": gen_heldout7,
}
# people and their real updates; mixed real updates (components and people), at least
PEOPLE_SIZES = {"heldout4": (8, 6), "heldout5": (8, 6), "heldout6": (12, 12), "heldout7": (12, 12)}
MIXED_UPDATES = {"heldout4": 21, "heldout5": 21, "heldout6": 30, "heldout7": 30}
SPLITS = pytest.mark.parametrize("split", list(PARTS))


def lines(name: str) -> list[dict]:
    return [json.loads(x) for x in (DATA / f"{name}.jsonl").read_text().splitlines() if x]


@SPLITS
def test_committed_files_are_what_the_generator_writes_and_share_no_name(split: str) -> None:
    gen = PARTS[split]
    done = subprocess.run(
        [sys.executable, str(DATA / f"gen_{split}.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # its own check and every other generator's (which read the newer files too) find nothing
    assert all(g.leaks() == [] for g in (gen_heldout3, *PARTS.values()))
    built = gen.build()
    assert sorted(built) == sorted(
        [f"streams_{s}_{split}" for s in STREAMS] + [f"memory_updates_{split}"]
    )
    for name, rows in built.items():
        assert lines(name) == rows


@SPLITS
def test_no_sentence_or_question_is_taken_from_another_part(split: str) -> None:
    others: set[str] = set()
    for path in DATA.glob("*.jsonl"):
        if split in path.name:
            continue
        for r in map(json.loads, path.read_text(encoding="utf-8").splitlines()):
            others.update(v for k, v in r.items() if k in ("text", "old", "new", "question"))
            others.update(
                q if isinstance(q, str) else q["question"] for q in r.get("questions", [])
            )
    ours = [t for s in STREAMS for r in lines(f"streams_{s}_{split}") for t in [r["text"]]]
    ours += [q for s in STREAMS for r in lines(f"streams_{s}_{split}") for q in r["questions"]]
    for r in lines(f"memory_updates_{split}"):
        ours += [r["old"], r["new"], *(q["question"] for q in r.get("questions", []))]
        ours += [r["question"]] if "question" in r else []
    assert [t for t in ours if t in others] == []


@SPLITS
def test_no_question_copies_its_fact(split: str) -> None:
    done = subprocess.run([sys.executable, str(DATA / "check.py")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:]
    for name in STREAMS:
        assert f"streams_{name}_{split}.jsonl" in done.stdout
    assert f"memory_updates_{split}.jsonl" in done.stdout


@SPLITS
def test_stream_files_have_the_stream_shape_and_sizes(split: str) -> None:
    keys = [
        "id", "set", "split", "scope", "seq", "kind", "entity", "attribute", "text",
        "questions", "replaces", "restates",
    ]  # fmt: skip
    for name in STREAMS:
        rows = lines(f"streams_{name}_{split}")
        assert all(list(r) == keys and r["split"] == split for r in rows)
        ids = {r["id"]: r for r in rows}
        for r in rows:
            for ref in (r["replaces"], r["restates"]):
                if ref:  # an update or restatement is about the same entity and attribute
                    old = ids[ref]
                    assert old["scope"] == r["scope"] and old["seq"] < r["seq"]
                    assert (old["entity"], old["attribute"]) == (r["entity"], r["attribute"])
                    assert old["text"] != r["text"]
            if r["replaces"]:  # a replaced fact is asked about through its update only
                assert r["kind"] == "update" and ids[r["replaces"]]["questions"] == []
            assert all(q.strip().endswith("?") for q in r["questions"])
    parallel = lines(f"streams_parallel_{split}")
    assert len(parallel) == 126 and all(len(r["questions"]) == 1 for r in parallel)
    assert len({r["entity"] for r in parallel}) == 14
    assert len({r["attribute"] for r in parallel}) == 9
    assert len(lines(f"streams_events_{split}")) == 23
    people = lines(f"streams_people_{split}")
    facts = [r for r in people if r["kind"] == "fact"]
    n_people, n_moved = PEOPLE_SIZES[split]
    assert len({r["entity"] for r in facts}) == n_people
    assert len({r["attribute"] for r in facts}) == 8
    moved = [r for r in people if r["kind"] == "update"]
    assert len(moved) == n_moved and len({r["entity"] for r in moved}) == n_moved
    for r in moved:  # the person's other attributes stay live and asked about
        rest = [f for f in facts if f["entity"] == r["entity"] and f["id"] != r["replaces"]]
        assert len(rest) == 7 and all(f["questions"] for f in rest)
    mixed = lines(f"streams_mixed_{split}")
    kinds = Counter(r["kind"] for r in mixed)
    total = sum(kinds.values())
    assert 0.55 <= kinds["fact"] / total <= 0.65 and 0.10 <= kinds["update"] / total <= 0.14
    assert 0.08 <= kinds["restatement"] / total <= 0.12 and kinds["event"] >= 0.15 * total
    assert kinds["update"] >= MIXED_UPDATES[split]
    assert len({r["scope"] for r in mixed}) == 3
    for scope in {r["scope"] for r in mixed}:  # each project's person changes one attribute
        person = PARTS[split].MIXED_PROJECTS[scope.rsplit("-", 1)[1]][1]
        mine = [r for r in mixed if r["scope"] == scope and r["entity"] == person]
        assert [r["kind"] for r in mine].count("update") == 1 and len(mine) >= 5


@SPLITS
def test_pairs_file_has_memory_updates_schema_and_sizes(split: str) -> None:
    rows = lines(f"memory_updates_{split}")
    kinds = Counter(r["kind"] for r in rows)
    assert (kinds["update"], kinds["non_update"], kinds["contradiction"]) == (42, 42, 12)
    assert len({r["project"] for r in rows}) == 8
    assert {r["style"] for r in rows if r["kind"] == "update"} == {"cue", "plain", "value_only"}
    assert len({r["id"] for r in rows}) == len(rows)
    for r in rows:
        assert r["split"] == split and r["context"] and r["old"] and r["new"]
        assert (
            r["old"] != r["new"] and r["old"] not in r["context"] and r["new"] not in r["context"]
        )
        if r["kind"] == "non_update":
            assert sorted(q["answer"] for q in r["questions"]) == ["new", "old"]
        else:
            assert r["question"] and r["answer"] in ("new", "both")


@SPLITS
def test_split_all_and_earlier_held_out_splits_never_read_it(split: str) -> None:
    import memory_streams

    earlier = [s for s in ("heldout3", *PARTS) if s < split]
    for name in (*memory_streams.STREAM_SETS, "updates"):
        for other in ("all", *earlier):
            assert not any(r.split == split for r in memory_streams.load_rows(name, [other]))
        ours = memory_streams.load_rows(name, [split])
        assert ours and all(r.split == split for r in ours)


def test_the_leak_check_catches_a_shared_name_attribute_or_sentence(monkeypatch) -> None:
    """--check is what keeps heldout5 apart; it must notice each kind of overlap."""
    heldout4_entity = gen_heldout4.ENTITIES[0]
    monkeypatch.setattr(gen_heldout5, "ENTITIES", [*gen_heldout5.ENTITIES, heldout4_entity])
    attrs = dict(gen_heldout5.ATTRS)
    attrs["retries"] = gen_heldout4.ATTRS["retries"]  # an attribute kind heldout4 has
    monkeypatch.setattr(gen_heldout5, "ATTRS", attrs)
    copied = gen_heldout4.CONTRADICTION_ITEMS[0][2]  # a sentence of heldout4's pairs file
    item = ("aerocrew", "copied", copied, "The crew wiki says otherwise.", "Which is right?")
    monkeypatch.setattr(
        gen_heldout5, "CONTRADICTION_ITEMS", [*gen_heldout5.CONTRADICTION_ITEMS, item]
    )
    found = gen_heldout5.leaks()
    assert heldout4_entity in found
    assert "attribute 'retries'" in found
    assert f"sentence {copied!r}" in found


def test_the_heldout6_leak_check_catches_a_shared_name_attribute_or_sentence(monkeypatch) -> None:
    """--check is what keeps heldout6 apart; it must notice each kind of overlap."""
    heldout5_person = gen_heldout5.PEOPLE[0]
    monkeypatch.setattr(gen_heldout6, "PEOPLE", [*gen_heldout6.PEOPLE[:-1], heldout5_person])
    attrs = dict(gen_heldout6.ATTRS)
    attrs["node_pool"] = gen_heldout5.ATTRS["node_pool"]  # an attribute kind heldout5 has
    monkeypatch.setattr(gen_heldout6, "ATTRS", attrs)
    copied = gen_heldout5.NON_UPDATE_ITEMS[0][2]  # a sentence of heldout5's pairs file
    item = ("vialcare", "copied", copied, "The ward wiki says otherwise.", "Which is right?")
    monkeypatch.setattr(
        gen_heldout6, "CONTRADICTION_ITEMS", [*gen_heldout6.CONTRADICTION_ITEMS, item]
    )
    found = gen_heldout6.leaks()
    assert heldout5_person in found and heldout5_person.split(" ")[0] in found
    assert "attribute 'node_pool'" in found
    assert f"sentence {copied!r}" in found


def test_the_heldout7_leak_check_catches_a_shared_name_attribute_or_sentence(monkeypatch) -> None:
    """--check is what keeps heldout7 apart; it must notice each kind of overlap, a person of
    another part named as a value (an on-call engineer) included."""
    heldout6_person = gen_heldout6.PEOPLE[0]
    monkeypatch.setattr(gen_heldout7, "PEOPLE", [*gen_heldout7.PEOPLE[:-1], heldout6_person])
    attrs = dict(gen_heldout7.ATTRS)
    attrs["heartbeat"] = gen_heldout6.ATTRS["heartbeat"]  # an attribute kind heldout6 has
    pager = dict(attrs["fallback_pager"])
    owner = gen_heldout6.ATTRS["steward"]["values"][0]  # an owner heldout6 names as a value
    pager["values"] = [*pager["values"][:-1], owner]
    attrs["fallback_pager"] = pager
    monkeypatch.setattr(gen_heldout7, "ATTRS", attrs)
    copied = gen_heldout6.UPDATE_ITEMS[0][3]  # a sentence of heldout6's pairs file
    item = ("swipecore", "copied", copied, "The scheme portal says otherwise.", "Which is right?")
    monkeypatch.setattr(
        gen_heldout7, "CONTRADICTION_ITEMS", [*gen_heldout7.CONTRADICTION_ITEMS, item]
    )
    found = gen_heldout7.leaks()
    assert heldout6_person in found and heldout6_person.split(" ")[0] in found
    assert owner in found and owner.split(" ")[0] in found
    assert "attribute 'heartbeat'" in found
    assert f"sentence {copied!r}" in found


@pytest.mark.parametrize("split", ["heldout5", "heldout6", "heldout7"])
def test_the_benches_accept_the_split(split: str) -> None:
    for bench in ("memory_quality.py", "memory_updates.py"):
        done = subprocess.run(
            [sys.executable, str(ROOT / "bench" / bench), "--help"], capture_output=True, text=True
        )
        assert done.returncode == 0 and split in done.stdout, done.stderr[-2000:]
