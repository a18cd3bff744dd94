"""Check the evaluation sets: shape of every line, counts per split, and how many words each
question shares with the fact it asks for (so no question is a near-copy of its fact).

    python bench/data/check.py            # summary; exits 1 on a malformed line or a near-copy
    python bench/data/check.py --list 10  # also print the 10 most overlapping questions per set

Overlap is measured on content words (lower-cased, stop words dropped, a trailing plural "s"
removed): `share` = the part of the question's content words that also occur in the fact (a short
question naming its subject scores 1.0 here, so this alone is not a copy), `cover` = the part of
the fact's content words that the question repeats, and `jaccard` = shared / union. A question
whose cover >= NEAR_COPY_COVER or whose jaccard >= NEAR_COPY_JACCARD restates its fact, answer
included: it is reported as a near-copy and fails the check. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent
NEAR_COPY_COVER = 0.75
NEAR_COPY_JACCARD = 0.6
STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "by",
        "can",
        "do",
        "does",
        "did",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "you",
        "your",
        "after",
        "before",
        "about",
        "up",
        "down",
        "out",
        "over",
        "under",
        "than",
        "too",
        "very",
        "just",
        "also",
        "any",
        "all",
        "each",
        "every",
        "some",
        "most",
        "more",
        "much",
        "many",
        "should",
        "would",
        "could",
        "must",
        "may",
        "might",
        "get",
        "got",
        "gets",
        "being",
        "am",
        "not",
        "no",
        "s",
    ]
)
_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> set[str]:
    out = set()
    for w in _WORD.findall(text.lower()):
        if w in STOP:
            continue
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.add(w)
    return out


def overlap(question: str, fact: str) -> tuple[float, float, float]:
    """(share, cover, jaccard)"""
    q, f = words(question), words(fact)
    if not q or not f:
        return 1.0, 1.0, 1.0
    shared = q & f
    return len(shared) / len(q), len(shared) / len(f), len(shared) / len(q | f)


def load(name: str) -> list[dict]:
    rows = []
    for lineno, line in enumerate((DATA / name).read_text(encoding="utf-8").splitlines(), 1):
        row = json.loads(line)
        for key in ("id", "set", "kind", "split"):
            if not row.get(key):
                raise SystemExit(f"{name}:{lineno}: missing {key!r}")
        if row["split"] not in (
            "tune",
            "heldout",
            "heldout3",
            "heldout4",
            "heldout5",
            "heldout6",
            "heldout7",
            "corpus",
        ):
            raise SystemExit(f"{name}:{lineno}: split {row['split']!r}")
        rows.append(row)
    ids = [r["id"] for r in rows]
    if len(set(ids)) != len(ids):
        raise SystemExit(f"{name}: duplicate ids")
    return rows


def pairs(rows: list[dict]) -> list[tuple[str, str, str, str]]:
    """(item id, split, question, the fact that answers it)."""
    out = []
    for r in rows:
        if r["set"] == "memory_updates":
            if r["kind"] == "non_update":
                for q in r["questions"]:
                    out.append((r["id"], r["split"], q["question"], r[q["answer"]]))
            elif r["kind"] == "update":
                out.append((r["id"], r["split"], r["question"], r["new"]))
            else:  # a contradiction: the question is about both; measure against each
                out.append((r["id"], r["split"], r["question"], r["old"]))
                out.append((r["id"], r["split"], r["question"], r["new"]))
        elif "text" in r:  # a stream line (gen_streams.py / gen_heldout3.py)
            for q in r["questions"]:
                out.append((r["id"], r["split"], q, r["text"]))
        elif r["kind"] == "fact":
            for q in r["questions"]:
                out.append((r["id"], r["split"], q, r["fact"]))
    return out


def quantiles(values: list[float]) -> str:
    qs = statistics.quantiles(values, n=20, method="inclusive")  # 5 % steps
    return (
        f"min {min(values):.2f}  p25 {qs[4]:.2f}  median {statistics.median(values):.2f}  "
        f"p75 {qs[14]:.2f}  p90 {qs[17]:.2f}  max {max(values):.2f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--list", type=int, default=0, help="print the N most overlapping questions"
    )
    args = parser.parse_args()
    failed = False
    # heldout3 (bench/data/gen_heldout3.py) is checked for shape and near-copies like the rest;
    # its overlap figures are about the questions' wording, not about any detector.
    heldout3 = sorted(p.name for p in DATA.glob("*_heldout3.jsonl"))
    heldout3 += sorted(p.name for p in DATA.glob("*_heldout4.jsonl"))  # gen_heldout4.py
    heldout3 += sorted(p.name for p in DATA.glob("*_heldout5.jsonl"))  # gen_heldout5.py
    heldout3 += sorted(p.name for p in DATA.glob("*_heldout6.jsonl"))  # gen_heldout6.py
    heldout3 += sorted(p.name for p in DATA.glob("*_heldout7.jsonl"))  # gen_heldout7.py
    for name in (
        "memory_updates.jsonl",
        "memory_paraphrase.jsonl",
        "memory_keyword.jsonl",
        *heldout3,
    ):
        rows = load(name)
        counts: dict[str, int] = {}
        for r in rows:
            key = f"{r['kind']}/{r['split']}"
            counts[key] = counts.get(key, 0) + 1
        qa = pairs(rows)
        per_split = {
            s: sum(1 for p in qa if p[1] == s)
            for s in ("tune", "heldout", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7")
        }
        print(
            f"{name}: {len(rows)} lines " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        )
        print("  question/fact pairs: " + ", ".join(f"{s} {n}" for s, n in per_split.items() if n))
        scored = [(overlap(q, f), pid, q, f) for pid, _, q, f in qa]
        share = [s[0][0] for s in scored]
        cover = [s[0][1] for s in scored]
        jacc = [s[0][2] for s in scored]
        print(f"  share (question words found in the fact): {quantiles(share)}")
        print(f"  cover (fact words repeated by the question): {quantiles(cover)}")
        print(f"  jaccard(question, fact):                  {quantiles(jacc)}")
        bands = [(0.0, 0.2), (0.2, 0.4), (0.4, 0.6), (0.6, 0.8), (0.8, 1.01)]
        print(
            "  share histogram: "
            + "  ".join(
                f"[{lo:.1f},{min(hi, 1.0):.1f}{']' if hi > 1 else ')'}"
                f" {sum(lo <= s < hi for s in share)}"
                for lo, hi in bands
            )
        )
        near = [s for s in scored if s[0][1] >= NEAR_COPY_COVER or s[0][2] >= NEAR_COPY_JACCARD]
        print(
            f"  near-copies (cover >= {NEAR_COPY_COVER} or jaccard >= {NEAR_COPY_JACCARD}):"
            f" {len(near)}"
        )
        for (sh, cv, jc), pid, q, f in near:
            print(f"  NEAR-COPY {pid}: cover {cv:.2f}, jaccard {jc:.2f}\n    Q: {q}\n    F: {f}")
        failed |= bool(near)
        if args.list:
            for (sh, cv, jc), pid, q, f in sorted(scored, key=lambda s: -s[0][2])[: args.list]:
                print(
                    f"  share {sh:.2f} cover {cv:.2f} jaccard {jc:.2f} {pid}"
                    f"\n    Q: {q}\n    F: {f}"
                )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
