"""Build bench/data/*.jsonl from the hand-written sources in bench/data/src/ (deterministic).

    python bench/data/src/build.py            # rewrite the JSONL files
    python bench/data/src/build.py --check    # fail if the JSONL files differ from a fresh build

The split rule was fixed before anything was measured (bench/data/README.md): the groups of a set
(projects for the update set, entities for the paraphrase set, areas for the keyword set) are
ordered by sha256("evalsets-v1/<set>/<group>") and the first round(0.6 * n) are `tune`, the rest
`heldout`. Context facts of an update item are drawn the same way, by hash, from its project's
background facts whose topic does not share its first dotted segment with the item's topic.
Standard library only, so it runs with any Python.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent
DATA = SRC.parent
SALT = "evalsets-v1"
TUNE_SHARE = 0.6

# Words that tell a reader "this replaces something"; used only to label an item's style, so the
# benches can report cue / no-cue / value-only separately. Not used to pick or split items.
CUE = re.compile(
    r"\b(now|moved|no longer|switched|renamed|replaced|replace|upgraded|migrated|instead|changed|"
    r"from now on|as of|any more|anymore|since|retired|dropped|bumped|gone|rewritten|rewrote|"
    r"rebuilt|phased out|handed over|left|ported|is out|turned off|standardised|ended|went live|"
    r"was removed|were dropped|are dropped|being deleted|read-only|after the|starting this|"
    r"from this|upgrade|merged|decided|too)\b",
    re.IGNORECASE,
)


def h(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16)


def split_of(set_name: str, groups: list[str]) -> dict[str, str]:
    ordered = sorted(set(groups), key=lambda g: h(f"{SALT}/{set_name}/{g}"))
    n_tune = round(TUNE_SHARE * len(ordered))
    return {g: ("tune" if i < n_tune else "heldout") for i, g in enumerate(ordered)}


def fields(line: str, n: int, where: str) -> list[str]:
    parts = [p.strip() for p in line.split("|")]
    if len(parts) != n or not all(parts):
        raise SystemExit(f"{where}: expected {n} non-empty '|' fields, got {len(parts)}: {line!r}")
    return parts


# -- memory_updates ---------------------------------------------------------------------------


def parse_updates() -> tuple[dict[str, dict], list[dict]]:
    projects: dict[str, dict] = {}
    items: list[dict] = []
    counters: dict[tuple[str, str], int] = {}
    for path in sorted(SRC.glob("updates_*.txt")):
        project = None
        for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            line = raw.strip()
            where = f"{path.name}:{lineno}"
            if not line or line.startswith("#"):
                continue
            if line.startswith("@"):
                name, about = (p.strip() for p in line[1:].split("|", 1))
                project = projects.setdefault(name, {"about": about, "background": []})
                current = name
                continue
            if project is None:
                raise SystemExit(f"{where}: fact before any '@ project' line")
            code = line[0]
            if code == "B":
                _, topic, fact = fields(line, 3, where)
                project["background"].append((topic, fact))
                continue
            kind = {"U": "update", "V": "update", "N": "non_update", "C": "contradiction"}.get(code)
            if kind is None:
                raise SystemExit(f"{where}: unknown line kind {code!r}")
            counters[current, kind] = n = counters.get((current, kind), 0) + 1
            short = {"update": "upd", "non_update": "non", "contradiction": "con"}[kind]
            item = {"id": f"{short}-{current}-{n:02d}", "kind": kind, "project": current}
            if kind == "non_update":
                _, topic, old, new, q_old, q_new = fields(line, 6, where)
                item.update(
                    topic=topic,
                    old=old,
                    new=new,
                    questions=[
                        {"question": q_old, "answer": "old"},
                        {"question": q_new, "answer": "new"},
                    ],
                )
            else:
                _, topic, old, new, question = fields(line, 5, where)
                item.update(
                    topic=topic,
                    old=old,
                    new=new,
                    question=question,
                    answer="new" if kind == "update" else "both",
                )
            if kind == "update":
                item["style"] = (
                    "value_only" if code == "V" else ("cue" if CUE.search(new) else "plain")
                )
            items.append(item)
    return projects, items


def pick_context(item: dict, background: list[tuple[str, str]]) -> list[str]:
    head = item["topic"].split(".")[0]
    pool = [fact for topic, fact in background if topic.split(".")[0] != head]
    pool.sort(key=lambda fact: h(f"{SALT}/context/{item['id']}/{fact}"))
    n = 2 + h(f"{SALT}/context-size/{item['id']}") % 5  # 2..6
    return pool[:n]


def build_updates() -> list[dict]:
    projects, items = parse_updates()
    splits = split_of("memory_updates", list(projects))
    out = []
    for item in items:
        project = projects[item["project"]]
        row = {
            "id": item["id"],
            "set": "memory_updates",
            "kind": item["kind"],
            "split": splits[item["project"]],
            "project": item["project"],
            "project_about": project["about"],
            "topic": item["topic"],
        }
        if "style" in item:
            row["style"] = item["style"]
        row["context"] = pick_context(item, project["background"])
        row["old"], row["new"] = item["old"], item["new"]
        if item["kind"] == "non_update":
            row["questions"] = item["questions"]
        else:
            row["question"], row["answer"] = item["question"], item["answer"]
        out.append(row)
    return out


# -- memory_paraphrase and memory_keyword -----------------------------------------------------


def parse_grouped(pattern: str, set_name: str) -> list[dict]:
    """`@ group | about` headers, then `F|fact|question[|question...]` and `D|distractor` lines."""
    rows: list[dict] = []
    group = about = None
    counter = 0
    for path in sorted(SRC.glob(pattern)):
        for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            line = raw.strip()
            where = f"{path.name}:{lineno}"
            if not line or line.startswith("#"):
                continue
            if line.startswith("@"):
                group, about = (p.strip() for p in line[1:].split("|", 1))
                continue
            if group is None:
                raise SystemExit(f"{where}: fact before any '@ group' line")
            parts = [p.strip() for p in line.split("|")]
            if not all(parts):
                raise SystemExit(f"{where}: empty field: {line!r}")
            counter += 1
            if parts[0] == "F" and len(parts) >= 3:
                rows.append(
                    {
                        "group": group,
                        "about": about,
                        "kind": "fact",
                        "fact": parts[1],
                        "questions": parts[2:],
                        "n": counter,
                    }
                )
            elif parts[0] == "D" and len(parts) == 2:
                rows.append(
                    {
                        "group": group,
                        "about": about,
                        "kind": "distractor",
                        "fact": parts[1],
                        "questions": [],
                        "n": counter,
                    }
                )
            else:
                raise SystemExit(f"{where}: expected F|fact|question... or D|fact: {line!r}")
    return rows


def build_grouped(pattern: str, set_name: str, prefix: str) -> list[dict]:
    rows = parse_grouped(pattern, set_name)
    splits = split_of(set_name, [r["group"] for r in rows if r["kind"] == "fact"])
    out: list[dict] = []
    seen: set[str] = set()
    for r in rows:
        if r["fact"] in seen:
            raise SystemExit(f"{set_name}: duplicate fact {r['fact']!r}")
        seen.add(r["fact"])
        fid = f"{prefix}-{r['group']}-{r['n']:03d}"
        row = {
            "id": fid,
            "set": set_name,
            "kind": r["kind"],
            # A distractor is in every corpus and never asked about; its split is its group's
            # when the group has questions, else "corpus".
            "split": splits.get(r["group"], "corpus"),
            "group": r["group"],
            "group_about": r["about"],
            "fact": r["fact"],
        }
        if r["kind"] == "fact":
            row["questions"] = r["questions"]
        out.append(row)
    return out


def dump(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the files on disk")
    args = parser.parse_args()
    outputs = {
        "memory_updates.jsonl": dump(build_updates()),
        "memory_paraphrase.jsonl": dump(
            build_grouped("paraphrase_*.txt", "memory_paraphrase", "par")
        ),
        "memory_keyword.jsonl": dump(build_grouped("keyword_*.txt", "memory_keyword", "kw")),
    }
    stale = []
    for name, text in outputs.items():
        path = DATA / name
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print("out of date (run bench/data/src/build.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
