"""Replay update detection's decision on every pair of every stream and pair set (issue 27).

For each scope of each set, every memory is judged against every memory added before it (not
only the 12 candidates the store would pick: a pair that never met in a bench run may meet in a
user's project), with `detect.decide` on the pair alone and the pair's real cosine. Each pair's
outcome is one of `supersede`, `contradict`, `likely` or `-`, beside what the data says it is
(`update`, `restatement`, `contradiction` or `other`). Two runs (before and after a change)
compared with `--diff` show every pair whose outcome changed, so a rule can be shown to make no
non-update start acting.

    .venv/bin/python bench/update_replay.py --out /tmp/before.json     # on the old code
    .venv/bin/python bench/update_replay.py --out /tmp/after.json --diff /tmp/before.json

Splits: tune, heldout, heldout2 … heldout7 (development data); nothing else is read.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import time
from collections import Counter
from pathlib import Path

from memory_evalkit import Embedder
from memory_streams import load_rows

from neuralgentics.memini.store.base import Memory
from neuralgentics.memini.updates import detect

# (listed, not OWN_PARTS: a part written later is held out until its one run)
SPLITS = ("tune", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7")
SETS = ("parallel", "events", "people", "mixed", "updates", "paraphrase", "keyword")


def _memory(text: str) -> Memory:
    from datetime import UTC, datetime

    now = datetime.now(UTC)
    return Memory("old", text, 0.5, None, "p", [], {}, "", now, now)


def rows_of(name: str, split: str) -> list:
    if name == "updates" and split == "heldout2":
        return []  # heldout2 has no pairs file
    rows = load_rows(name, [split])
    if name in ("paraphrase", "keyword"):
        # one corpus in one scope, whatever the questions' split: replayed once, under "tune"
        return rows if split == "tune" else []
    return [r for r in rows if r.split == split]


def label(new, old) -> str:
    if new.replaces == old.id:
        return "update"
    if new.restates == old.id or old.restates == new.id:
        return "restatement"
    if new.contradicts == old.id:
        return "contradiction"
    return "other"


def replay(sets: tuple[str, ...], splits: tuple[str, ...]) -> dict[str, dict]:
    embedder = Embedder()
    # the sentences' meaning, as the service gives it (issue 27, eighth pass), when this
    # code's detector takes it (an older one does not)
    extra = {}
    if "meaning" in inspect.signature(detect.decide).parameters:
        extra["meaning"] = detect.meaning_of(embedder.embed)
    out: dict[str, dict] = {}
    for name in sets:
        for split in splits:
            rows = rows_of(name, split)
            if not rows:
                continue
            vectors = embedder.embed([r.text for r in rows])
            index = {r.id: i for i, r in enumerate(rows)}
            by_scope: dict[str, list] = {}
            for r in rows:
                by_scope.setdefault(r.scope, []).append(r)
            for scope_rows in by_scope.values():
                for j, new in enumerate(scope_rows):
                    for old in scope_rows[:j]:
                        if old.text == new.text:
                            continue
                        cos = float(vectors[index[new.id]] @ vectors[index[old.id]])
                        d = detect.decide(
                            new.text, [(_memory(old.text), cos)], mode="auto", **extra
                        )
                        if d.act:
                            f = d.act[0]
                            what = "supersede" if f.relation == "SUPERSEDES" else "contradict"
                            reason = f.reason
                        elif d.likely:
                            what, reason = "likely", d.likely[0].reason
                        else:
                            what, reason = "-", ""
                        out[f"{name}|{split}|{new.id}|{old.id}"] = {
                            "label": label(new, old),
                            "outcome": what,
                            "new": new.text,
                            "old": old.text,
                            "reason": reason,
                        }
    return out


def summary(res: dict[str, dict]) -> Counter:
    c: Counter = Counter()
    for key, v in res.items():
        name, split = key.split("|")[:2]
        c[(name, split, v["label"], v["outcome"])] += 1
    return c


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--diff", type=Path, help="an earlier --out to compare with")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--splits", default=",".join(SPLITS))
    args = ap.parse_args()
    start = time.perf_counter()
    res = replay(tuple(args.sets.split(",")), tuple(args.splits.split(",")))
    args.out.write_text(json.dumps(res, indent=0), encoding="utf-8")
    print(f"{len(res)} pairs in {time.perf_counter() - start:.0f} s -> {args.out}")
    counts = summary(res)
    for label_ in ("update", "restatement", "contradiction", "other"):
        row = Counter()
        for (_, _, lab, outcome), n in counts.items():
            if lab == label_:
                row[outcome] += n
        print(f"  {label_:<13} " + "  ".join(f"{k} {row[k]}" for k in sorted(row)))
    if args.diff:
        before = json.loads(args.diff.read_text(encoding="utf-8"))
        changed = Counter()
        for key, v in res.items():
            b = before.get(key)
            if b is None or b["outcome"] == v["outcome"]:
                continue
            changed[(v["label"], b["outcome"], v["outcome"])] += 1
            print(
                f"  {v['label']}: {b['outcome']} -> {v['outcome']}  {key.split('|')[0]}"
                f"/{key.split('|')[1]}\n      new: {v['new']}\n      old: {v['old']}"
                f"\n      why: {v['reason']}"
            )
        for (lab, b, a), n in sorted(changed.items()):
            print(f"  changed: {lab:<13} {b:>10} -> {a:<10} {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
