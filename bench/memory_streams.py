"""Does memory keep every true fact? One evaluation over every set (issue 27), shared by
bench/memory_quality.py and bench/memory_updates.py.

Every set is read as a stream of memories added one by one in their order (plain adds, as
`memory_save` makes them), each with what it is: a `fact` or `event` (true, must stay
visible), an `update` (replaces an earlier memory: that one may, and should, be hidden), a
`restatement` (says an earlier one again: either may hide the other, nothing is lost), or a
`contradiction` (two sources disagree: a CONTRADICTS link between the two is expected).
The sets: the four stream sets of bench/data/gen_streams.py (parallel, events, people, mixed;
tune and held-out in separate files) and the three older sets (memory_updates, paraphrase,
keyword) turned into the same shape.

Figures per set and split:
- hidden: true memories superseded at the end of the stream (neither replaced by an update
  nor restated) — the target is 0;
- false contradictions: adds that linked CONTRADICTS to anything but an expected partner;
- likely-update rate: adds (updates left out) that reported at least one likely update;
- recall@1/@5 of every question (answer: its memory, or a restatement of it), for our default
  query, plain cosine over the same vectors (superseded memories included: it knows no
  supersession) and mem0 (`infer=False`); "own fact first" is our recall@1;
- real updates: the new memory first for its question, the old one hidden (superseded, or not
  in the top 5);
- detection's own time per add (detect.detect on the store after the add, p50/p99).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from memory_evalkit import (
    DATA,
    OWN_PARTS,
    Embedder,
    K,
    OurMemory,
    Scores,
    load_set,
    pct,
    rank_of,
)

from neuralgentics.memini.updates import detect  # noqa: E402  (memory_evalkit: src/ on the path)

STREAM_SETS = ("parallel", "events", "people", "mixed")
OLD_SETS = ("updates", "paraphrase", "keyword")
ALL_SETS = (*STREAM_SETS, *OLD_SETS)
TOP = 5


@dataclass
class Row:
    id: str
    scope: str
    split: str
    kind: str  # fact | event | update | restatement | contradiction
    text: str
    questions: list[str] = field(default_factory=list)
    replaces: str | None = None
    restates: str | None = None
    contradicts: str | None = None


def _stream(name: str, split: str) -> list[Row]:
    out = []
    for r in load_set(f"streams_{name}_{split}"):
        out.append(
            Row(
                r["id"],
                r["scope"],
                r["split"],
                r["kind"],
                r["text"],
                list(r["questions"]),
                r.get("replaces"),
                r.get("restates"),
            )
        )
    return out


def _updates(file: str = "memory_updates") -> list[Row]:
    out = []
    for r in load_set(file):
        scope, split = r["id"], r["split"]
        for i, text in enumerate(r["context"]):
            out.append(Row(f"{scope}/ctx{i}", scope, split, "fact", text))
        old, new = f"{scope}/old", f"{scope}/new"
        if r["kind"] == "update":
            out.append(Row(old, scope, split, "fact", r["old"]))
            out.append(Row(new, scope, split, "update", r["new"], [r["question"]], replaces=old))
        elif r["kind"] == "non_update":
            asked = {q["answer"]: [q["question"]] for q in r["questions"]}
            out.append(Row(old, scope, split, "fact", r["old"], asked.get("old", [])))
            out.append(Row(new, scope, split, "fact", r["new"], asked.get("new", [])))
        else:
            out.append(Row(old, scope, split, "fact", r["old"]))
            out.append(Row(new, scope, split, "contradiction", r["new"], contradicts=old))
    return out


def _flat(name: str, scope: str) -> list[Row]:
    return [
        Row(r["id"], scope, r["split"], "fact", r["fact"], list(r.get("questions", [])))
        for r in load_set(f"memory_{name}")
    ]


def load_rows(name: str, splits: list[str]) -> list[Row]:
    """The memories of a set, in the order they are added. Stream sets: only the files of the
    splits asked for (tune and held-out are separate projects). Older sets: the whole set (its
    corpus is shared), questions filtered later. `heldout3` .. `heldout7` are read
    only when asked for by name:
    `all` never includes it, so no tuning run sees it by accident."""
    if name in STREAM_SETS:
        wanted = ("tune", "heldout", "heldout2") if "all" in splits else splits
        return [row for split in wanted for row in _stream(name, split)]
    if name == "updates":
        # heldout3 .. heldout7 have their own pairs files (bench/data/gen_heldout3.py ..
        # gen_heldout7.py); 'all' leaves them out
        for own in OWN_PARTS:
            if own in splits:
                return _updates(f"memory_updates_{own}")
        return _updates("memory_updates")
    if name in ("paraphrase", "keyword"):
        return _flat(name, name)
    raise ValueError(f"unknown set {name!r}; choose from {', '.join(ALL_SETS)}")


def stream_files() -> list[str]:
    return sorted(p.name for p in DATA.glob("streams_*.jsonl"))


@dataclass
class Counts:
    adds: int = 0
    live: int = 0
    hidden: int = 0
    non_update_adds: int = 0
    likely_adds: int = 0
    false_contradictions: int = 0
    updates: int = 0
    update_superseded: int = 0
    hidden_examples: list[str] = field(default_factory=list)
    contradiction_examples: list[str] = field(default_factory=list)
    likely_examples: list[str] = field(default_factory=list)
    scores: dict[str, Scores] = field(default_factory=dict)
    new_first: dict[str, int] = field(default_factory=dict)
    old_hidden: dict[str, int] = field(default_factory=dict)
    detect_ms: list[float] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "adds": self.adds,
            "live": self.live,
            "hidden": self.hidden,
            "non_update_adds": self.non_update_adds,
            "likely_adds": self.likely_adds,
            "likely_rate": round(self.likely_adds / max(1, self.non_update_adds), 4),
            "false_contradictions": self.false_contradictions,
            "contradiction_rate": round(self.false_contradictions / max(1, self.adds), 4),
            "updates": self.updates,
            "update_superseded": self.update_superseded,
            "new_first": self.new_first,
            "old_hidden": self.old_hidden,
            "scores": {m: s.as_dict() for m, s in self.scores.items()},
            "detect_p50_ms": round(pct(self.detect_ms, 50), 3) if self.detect_ms else None,
            "detect_p99_ms": round(pct(self.detect_ms, 99), 3) if self.detect_ms else None,
            "hidden_examples": self.hidden_examples[:8],
            "contradiction_examples": self.contradiction_examples[:8],
            "likely_examples": self.likely_examples[:8],
        }


def evaluate(
    name: str,
    embedder: Embedder,
    mem0,
    splits: list[str],
    detection: str = "auto",
) -> dict[str, dict]:
    """Run one set through a fresh memini-core (and mem0 when given); figures per split."""
    rows = load_rows(name, splits)
    by_id = {r.id: r for r in rows}
    counts: dict[str, Counts] = {}

    def tally(split: str) -> list[Counts]:
        return [counts.setdefault(s, Counts()) for s in (split, "all")]

    # who may hide whom without losing a fact: an update its old memory, restatements each other
    allowed: dict[str, set[str]] = {}
    for r in rows:
        if r.replaces:
            allowed.setdefault(r.replaces, set()).add(r.id)
        if r.restates:
            allowed.setdefault(r.restates, set()).add(r.id)
            allowed.setdefault(r.id, set()).add(r.restates)
    expected_links = {frozenset((r.id, r.contradicts)) for r in rows if r.contradicts}

    def accepted(r: Row) -> set[str]:
        ok = {r.id}
        if r.restates:
            ok.add(r.restates)
        ok |= {x.id for x in rows if x.restates == r.id}
        return ok

    asked = [r for r in rows if r.questions and ("all" in splits or r.split in splits)]
    with OurMemory(embedder) as ours:
        ours.settings.update_detection = detection
        mid: dict[str, str] = {}
        key: dict[str, str] = {}
        for r in rows:
            added, _ = ours.add(r.scope, r.text)
            mid[r.id] = added.memory.id
            key[added.memory.id] = r.id
            if detection != "off":
                vector = ours.store.get_embedding(added.memory.id)
                start = time.perf_counter()
                detect.detect(ours.store, r.text, vector, r.scope, mode="report")
                ms = (time.perf_counter() - start) * 1000
            for c in tally(r.split):
                c.adds += 1
                if detection != "off":
                    c.detect_ms.append(ms)
                if r.kind != "update":
                    c.non_update_adds += 1
                    if added.likely_updates:
                        c.likely_adds += 1
                        f = added.likely_updates[0]
                        c.likely_examples.append(f"{r.text!r} ~ {f.memory.content!r} ({f.reason})")
                bad = [
                    f
                    for f in added.contradicts
                    if frozenset((r.id, key.get(f.memory.id, ""))) not in expected_links
                ]
                if bad:
                    c.false_contradictions += 1
                    c.contradiction_examples.append(
                        f"{r.text!r} x {bad[0].memory.content!r} ({bad[0].reason})"
                    )
        stored = ours.store.get_memories(list(mid.values()))
        for r in rows:
            memory = stored[mid[r.id]]
            replaced = any(x.replaces == r.id for x in rows)
            for c in tally(r.split):
                if r.kind == "update":
                    c.updates += 1
                    old = stored[mid[r.replaces]]  # type: ignore[index]
                    c.update_superseded += old.superseded_by is not None
                if replaced:
                    continue
                c.live += 1
                if memory.superseded_by is None:
                    continue
                by = key.get(memory.superseded_by, "")
                if by in allowed.get(r.id, set()):
                    continue
                c.hidden += 1
                hider = by_id[by].text if by in by_id else memory.superseded_by
                c.hidden_examples.append(f"{r.text!r} hidden by {hider!r}")
        for scope in {r.scope for r in asked}:
            ours.scope_vectors(scope)
        for r in asked:
            ok = {mid[x] for x in accepted(r)}
            for q in r.questions:
                for method in ("default", "vector"):
                    embedder.cache_clear()
                    ranked, ms = getattr(ours, method)(r.scope, q, K)
                    rank = min((rank_of(x, ranked) or 10**6 for x in ok), default=10**6)
                    for c in tally(r.split):
                        c.scores.setdefault(method, Scores()).add(rank if rank <= K else None, ms)
                        if r.kind == "update":
                            r_old = rank_of(mid[r.replaces], ranked)  # type: ignore[index]
                            c.new_first[method] = c.new_first.get(method, 0) + (rank == 1)
                            gone = r_old is None or r_old > TOP
                            c.old_hidden[method] = c.old_hidden.get(method, 0) + gone
    if mem0 is not None:
        mem0.fresh()
        m_ids: list[str] = []
        for i in range(0, len(rows), 200):
            ids, _ = mem0.add([(r.scope, r.text) for r in rows[i : i + 200]])
            m_ids += ids
        m_key = {r.id: m for r, m in zip(rows, m_ids)}
        pairs = [(r, q) for r in asked for q in r.questions]
        for i in range(0, len(pairs), 100):
            chunk = pairs[i : i + 100]
            out = mem0.search([(r.scope, q) for r, q in chunk], K)
            for (r, _), hits, ms in zip(chunk, out["hits"], out["ms"]):
                ok = {m_key[x] for x in accepted(r)}
                rank = min((rank_of(x, hits) or 10**6 for x in ok), default=10**6)
                for c in tally(r.split):
                    c.scores.setdefault("mem0", Scores()).add(rank if rank <= K else None, ms)
                    if r.kind == "update":
                        r_old = rank_of(m_key[r.replaces], hits)  # type: ignore[index]
                        c.new_first["mem0"] = c.new_first.get("mem0", 0) + (rank == 1)
                        gone = r_old is None or r_old > TOP
                        c.old_hidden["mem0"] = c.old_hidden.get("mem0", 0) + gone
    wanted = ["tune", "heldout", "heldout2", "all"] if "all" in splits else splits
    return {s: counts[s].as_dict() for s in wanted if s in counts}


def print_truth(name: str, res: dict[str, dict]) -> None:
    """The truth table of one set: one line per split, then failures' examples (tune only:
    held-out failures are counted, not read to tune on)."""
    print(f"\n== {name}: does memory keep every true fact?")
    head = (
        f"   {'split':<8} {'adds':>5} {'hidden':>9} {'contra':>6} {'likely':>13}"
        f" {'R@1 ours/cos/mem0':>20} {'R@5 ours/cos/mem0':>20} {'upd new1st/oldhid':>18}"
        f" {'detect p50':>10}"
    )
    print(head)
    for split, c in res.items():
        s = c["scores"]

        def r(k: int, m: str, s=s) -> str:
            return f"{s[m][f'recall@{k}']:.3f}" if m in s else "  -  "

        upd = "-"
        if c["updates"]:
            n = c["updates"]
            upd = f"{c['new_first'].get('default', 0)}/{n} {c['old_hidden'].get('default', 0)}/{n}"
        det = f"{c['detect_p50_ms']:.2f} ms" if c["detect_p50_ms"] is not None else "-"
        print(
            f"   {split:<8} {c['adds']:>5} {c['hidden']:>4}/{c['live']:<4}"
            f" {c['false_contradictions']:>6}"
            f" {c['likely_adds']:>4} ({100 * c['likely_rate']:4.1f}%)"
            f" {r(1, 'default')}/{r(1, 'vector')}/{r(1, 'mem0'):>5}  "
            f" {r(5, 'default')}/{r(5, 'vector')}/{r(5, 'mem0'):>5}  "
            f" {upd:>18} {det:>10}"
        )
    tune = res.get("tune")
    if tune:
        for label, k in (
            ("hidden", "hidden_examples"),
            ("contradiction", "contradiction_examples"),
            ("likely", "likely_examples"),
        ):
            for ex in tune[k][:3]:
                print(f"     tune {label}: {ex}")
