"""memini-core ranking quality on the evaluation sets, against plain cosine and mem0 OSS, one run.

    .venv/bin/python bench/memory_quality.py                      # tune and heldout, every set
    .venv/bin/python bench/memory_quality.py --split heldout      # one split
    .venv/bin/python bench/memory_quality.py --mem0-python /work/venvs/mem0/bin/python --json o.json
    .venv/bin/python bench/memory_quality.py --fit                # refit the ranking's weights on tune

Each set goes into a fresh memini-core (MemoryService on a temporary SQLite file, the real
all-MiniLM-L6-v2 through the project's Embedder) and, in the same run, a fresh mem0 OSS
(`infer=False`, the same MiniLM weights, qdrant local; bench/mem0_runner.py in mem0's venv,
made by bench/mem0_setup.sh — without it the bench prints "mem0: skipped (...)" and goes on).

Then the truth tables (bench/memory_streams.py), on every set (`--truth`): true facts hidden,
false contradictions, the likely-update rate, recall@1/@5 against plain cosine and mem0, and
real updates (new first, old hidden), per split.

Sets (bench/data, README there): `paraphrase` — every fact in one scope, each question asks for
one fact in other words; `keyword` — every fact and distractor in one scope, each question names
the fact's identifier; `updates` — each item in its own scope (context, old fact, then new fact,
plain adds), update questions whose answer is the new fact, and non-update questions whose answer
is the fact asked about. Contradictions are left to bench/memory_updates.py.

Rankings (bench/memory_evalkit.py says exactly which calls): vector (plain cosine, numpy, over
the store's own vectors), keyword (the store's keyword ranking), rrf (the default before issue
20: reciprocal rank fusion of the two, times trust), default (MemoryService.query), mem0
(Memory.search).

`--fit` refits the weight of exact tokens in memini/ranking.py on the `tune` questions
of all three sets (update questions left out: their answer is decided by recency, not by how
well a text matches) and prints the grid next to the shipped weights. Held-out is not read. Each is asked for its top 10: recall@1, recall@5, MRR@10, and the p50 time
per question (embedding included, its cache emptied before every timed call). For each question
the rankings run one after the other, so machine noise falls on all of them alike.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from memory_evalkit import (
    OWN_PARTS,
    Embedder,
    K,
    OurMemory,
    Scores,
    load_note,
    load_set,
    open_mem0,
    pct,
    rank_of,
)
from memory_streams import ALL_SETS, evaluate, print_truth

from neuralgentics.memini import ranking  # noqa: E402  (memory_evalkit puts src/ on the path)
from neuralgentics.memini.store.base import MemoryFilter  # noqa: E402

METHODS = ("vector", "keyword", "rrf", "default")


@dataclass
class Question:
    scope: str
    text: str
    target: str  # key of the fact that answers it
    split: str
    part: str  # which table the question is reported in


def corpus_paraphrase() -> tuple[list[tuple[str, str, str]], list[Question]]:
    rows = load_set("memory_paraphrase")
    facts = [("paraphrase", r["id"], r["fact"]) for r in rows]
    questions = [
        Question("paraphrase", q, r["id"], r["split"], "paraphrase")
        for r in rows
        if r["kind"] == "fact"
        for q in r["questions"]
    ]
    return facts, questions


def corpus_keyword() -> tuple[list[tuple[str, str, str]], list[Question]]:
    rows = load_set("memory_keyword")
    facts = [("keyword", r["id"], r["fact"]) for r in rows]
    questions = [
        Question("keyword", q, r["id"], r["split"], "keyword")
        for r in rows
        if r["kind"] == "fact"
        for q in r["questions"]
    ]
    return facts, questions


def corpus_updates() -> tuple[list[tuple[str, str, str]], list[Question]]:
    facts, questions = [], []
    for r in load_set("memory_updates"):
        scope = r["id"]
        for i, text in enumerate(r["context"]):
            facts.append((scope, f"{scope}/ctx{i}", text))
        facts.append((scope, f"{scope}/old", r["old"]))
        facts.append((scope, f"{scope}/new", r["new"]))
        if r["kind"] == "update":
            questions.append(
                Question(scope, r["question"], f"{scope}/new", r["split"], "updates: update")
            )
        elif r["kind"] == "non_update":
            for q in r["questions"]:
                questions.append(
                    Question(
                        scope,
                        q["question"],
                        f"{scope}/{q['answer']}",
                        r["split"],
                        "updates: non-update",
                    )
                )
    return facts, questions


SETS = {"paraphrase": corpus_paraphrase, "keyword": corpus_keyword, "updates": corpus_updates}


def add_figures(ms: list[float]) -> dict:
    """Adds, one at a time: p50, p99, adds per second of time spent adding (no pipe, no JSON)."""
    return {"p50_ms": pct(ms, 50), "p99_ms": pct(ms, 99), "per_s": len(ms) / (sum(ms) / 1000)}


def run_set(
    name: str, embedder: Embedder, mem0, splits: list[str], detection: str = "auto"
) -> dict:
    facts, questions = SETS[name]()
    questions = [q for q in questions if "all" in splits or q.split in splits]
    result: dict = {"facts": len(facts), "questions": len(questions)}
    # -- ours
    with OurMemory(embedder) as ours:
        ours.settings.update_detection = detection
        add_ms, key_to_id = [], {}
        for scope, key, text in facts:
            added, ms = ours.add(scope, text)
            add_ms.append(ms)
            key_to_id[key] = added.memory.id
        result["ours_add"] = add_figures(add_ms)
        # update detection (on by default) may supersede a fact on a later add: hidden from the
        # store's searches, still in plain cosine's matrix (every memory of the scope)
        stored = ours.store.get_memories(list(key_to_id.values()))
        result["superseded"] = sum(1 for m in stored.values() if m.superseded_by)
        for scope in {q.scope for q in questions}:
            ours.scope_vectors(scope)  # the "index" of plain cosine, built before timing
        scores: dict[tuple[str, str, str], Scores] = {}
        for q in questions:
            target = key_to_id[q.target]
            for method in METHODS:
                embedder.cache_clear()  # every timed call embeds its question afresh
                ids, ms = getattr(ours, method)(q.scope, q.text, K)
                for split in (q.split, "all"):
                    scores.setdefault((q.part, split, method), Scores()).add(
                        rank_of(target, ids), ms
                    )
    # -- mem0, in the same run
    if mem0 is not None:
        mem0.fresh()
        m_ids, m_ms = [], []
        for i in range(0, len(facts), 200):
            ids, ms = mem0.add([(scope, text) for scope, _, text in facts[i : i + 200]])
            m_ids += ids
            m_ms += ms
        result["mem0_add"] = add_figures(m_ms)
        m_key = {key: mid for (_, key, _), mid in zip(facts, m_ids)}
        embed_ms: list[float] = []
        for i in range(0, len(questions), 100):
            chunk = questions[i : i + 100]
            out = mem0.search([(q.scope, q.text) for q in chunk], K)
            embed_ms += out["embed_ms"]
            for q, hits, ms in zip(chunk, out["hits"], out["ms"]):
                for split in (q.split, "all"):
                    scores.setdefault((q.part, split, "mem0"), Scores()).add(
                        rank_of(m_key[q.target], hits), ms
                    )
        result["mem0_embed_p50_ms"] = pct(embed_ms, 50)
    result["scores"] = {
        f"{part}|{split}|{method}": s.as_dict() for (part, split, method), s in scores.items()
    }
    return result


def print_set(name: str, res: dict, splits: list[str]) -> None:
    print(f"\n== {name}: {res['facts']} memories, {res['questions']} questions asked")
    a = res["ours_add"]
    line = f"   adds: ours p50 {a['p50_ms']:.2f} ms, p99 {a['p99_ms']:.1f} ms ({a['per_s']:.0f}/s)"
    if "mem0_add" in res:
        m = res["mem0_add"]
        line += (
            f"; mem0 p50 {m['p50_ms']:.2f} ms, p99 {m['p99_ms']:.1f} ms ({m['per_s']:.0f}/s)"
            f"; mem0 spends p50 {res['mem0_embed_p50_ms']:.2f} ms of a search embedding"
        )
    print(line)
    print(
        f"   update detection {res['detection']}: {res['superseded']} of {res['facts']} memories"
        " superseded by a later add (the default and keyword searches no longer see them)"
    )
    parts = sorted({k.split("|")[0] for k in res["scores"]})
    for part in parts:
        for split in splits:
            rows = {m: res["scores"].get(f"{part}|{split}|{m}") for m in (*METHODS, "mem0")}
            if rows["default"] is None:
                continue
            print(f"   {part} [{split}, n={rows['default']['n']}]")
            print(f"     {'ranking':<9} {'R@1':>6} {'R@5':>6} {'MRR@10':>7} {'p50 ms':>8}")
            for m, r in rows.items():
                if r is not None:
                    print(
                        f"     {m:<9} {r['recall@1']:>6.3f} {r['recall@5']:>6.3f}"
                        f" {r['mrr@10']:>7.3f} {r['p50_ms']:>8.2f}"
                    )
            d, v, kw = rows["default"], rows["vector"], rows["keyword"]
            ratio = f"default - vector R@1 {100 * (d['recall@1'] - v['recall@1']):+.1f} points, "
            ratio += f"default - keyword R@1 {100 * (d['recall@1'] - kw['recall@1']):+.1f} points"
            if rows["rrf"] is not None:
                gain = 100 * (d["recall@1"] - rows["rrf"]["recall@1"])
                ratio += f", default - rrf (before) R@1 {gain:+.1f} points"
            if rows["mem0"] is not None:
                ratio += f"; mem0 p50 / default p50 = {rows['mem0']['p50_ms'] / d['p50_ms']:.2f}x"
            print(f"     {ratio}")


def fit(
    questions: list[tuple[list[ranking.Candidate], str, str]],
    *,
    exact_grid: Sequence[float] = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.8),
) -> tuple[ranking.Weights, dict[float, dict[str, float]]]:
    """Choose `exact` on labelled questions ((candidates, id of the answer, set name)); trust
    stays as shipped (the sets hold no trust events).

    The objective is issue 20's: never worse than cosine alone, so the weight whose *worst*
    set gains most recall@1 over cosine (exact = 0) wins; then the mean recall@1 over the
    sets, then the mean MRR@10; then the smaller weight. Returns the weights and, for every
    weight, recall@1 per set, "worst_gain", "mean_r1" and "mean_mrr".

    A grid, not a gradient: one weight, a few hundred questions, the same answer on every
    machine, and the table shows how flat the optimum is."""
    sets = sorted({name for _, _, name in questions})
    table: dict[float, dict[str, float]] = {}
    for e in exact_grid:
        w = ranking.Weights(exact=e, trust=ranking.WEIGHTS.trust)
        top1 = dict.fromkeys(sets, 0.0)
        rr = dict.fromkeys(sets, 0.0)
        count = dict.fromkeys(sets, 0)
        for cands, answer, name in questions:
            count[name] += 1
            ids = [c.id for c in ranking.order(list(cands), w, recency=None)[:10]]
            if answer in ids:
                pos = ids.index(answer) + 1
                rr[name] += 1.0 / pos
                top1[name] += pos == 1
        row = {name: top1[name] / count[name] for name in sets}
        row["mean_r1"] = sum(row[name] for name in sets) / len(sets)
        row["mean_mrr"] = sum(rr[name] / count[name] for name in sets) / len(sets)
        table[e] = row
    base = table.get(0.0)
    for row in table.values():
        row["worst_gain"] = min(row[n] - base[n] for n in sets) if base else 0.0
    best = max(table, key=lambda e: objective(table[e], e))
    return ranking.Weights(exact=best, trust=ranking.WEIGHTS.trust), table


def objective(row: dict[str, float], weight: float) -> tuple:
    """fit()'s ordering: worst set's gain, mean recall@1, mean MRR, then the smaller weight."""
    return (
        round(row["worst_gain"], 9),
        round(row["mean_r1"], 9),
        round(row["mean_mrr"], 9),
        -weight,
    )


def fit_weights(embedder: Embedder) -> int:
    """Refit ranking.Weights on the tune questions; print the grid and the shipped weights."""
    labelled: list[tuple[list, str]] = []
    for name in SETS:
        facts, questions = SETS[name]()
        asked = [q for q in questions if q.split == "tune" and q.part != "updates: update"]
        with OurMemory(embedder) as ours:
            key_to_id = {}
            for scope, key, text in facts:
                key_to_id[key] = ours.add(scope, text)[0].memory.id
            for q in asked:
                cands = ours.service.candidates(q.text, MemoryFilter(project=q.scope))
                labelled.append((cands, key_to_id[q.target], q.part))
        print(f"{name}: {len(asked)} tune questions")
    chosen, table = fit(labelled)
    shipped = ranking.WEIGHTS
    sets = sorted({part for _, _, part in labelled})
    print(f"\n{len(labelled)} questions; each `exact` weight by the worst set's recall@1 gain over")
    print("cosine alone (exact = 0), then mean recall@1, then mean MRR@10 (best first):")
    print(
        f"  {'exact':>6} "
        + " ".join(f"{s[-12:]:>12}" for s in sets)
        + f" {'worst gain':>10} {'mean R@1':>8}"
    )
    for e in sorted(table, key=lambda e: objective(table[e], e), reverse=True):
        row = table[e]
        mark = "  <- shipped" if e == shipped.exact else ""
        mark += "  (cosine alone)" if e == 0.0 else ""
        cells = " ".join(f"{row[s]:>12.3f}" for s in sets)
        print(f"  {e:>6.2f} {cells} {100 * row['worst_gain']:>+9.1f}p {row['mean_r1']:>8.3f}{mark}")
    print(f"fitted:  exact={chosen.exact}")
    print(f"shipped: exact={shipped.exact} (memini/ranking.py Weights)")
    return 0 if chosen.exact == shipped.exact else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--split",
        choices=("tune", "heldout", "heldout2", *OWN_PARTS, "all"),
        default="all",
        help="which questions to ask; 'all' reports every split and all together (heldout2: "
        "stream sets only, never used for tuning; heldout3: stream sets and its own update "
        "pairs, run once at the end, never read to tune, not part of 'all'; heldout4: the same "
        "for the next round, bench/data/gen_heldout4.py; heldout5, heldout6 and heldout7: the same "
        "again, bench/data/gen_heldout5.py, gen_heldout6.py, gen_heldout7.py)",
    )
    parser.add_argument(
        "--sets",
        default="paraphrase,keyword,updates",
        help="sets of the ranking tables ('none' for none)",
    )
    parser.add_argument(
        "--truth",
        default=",".join(ALL_SETS),
        help="sets of the truth tables (memory_streams.py: hidden true facts, false "
        "contradictions, likely updates, recall against cosine and mem0, real updates); "
        "'none' for none",
    )
    parser.add_argument(
        "--mem0-python",
        type=str,
        default=None,
        help="python of mem0's venv (default $MEM0_PYTHON or /work/venvs/mem0/bin/python)",
    )
    parser.add_argument("--no-mem0", action="store_true")
    parser.add_argument(
        "--detection",
        choices=("auto", "off"),
        default="auto",
        help="update detection on our adds (auto: as an agent's add; off: every fact stays live, "
        "the same memories for every ranking)",
    )
    parser.add_argument("--json", type=str, default=None, help="write every figure here")
    parser.add_argument(
        "--fit",
        action="store_true",
        help="refit the ranking's weights on the tune split, print them and exit "
        "(exit 1 when they differ from the shipped ones)",
    )
    args = parser.parse_args()
    sets = [s.strip() for s in args.sets.split(",") if s.strip() and s.strip() != "none"]
    truth = [s.strip() for s in args.truth.split(",") if s.strip() and s.strip() != "none"]
    unknown = [s for s in sets if s not in SETS] + [s for s in truth if s not in ALL_SETS]
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}; choose from {', '.join(ALL_SETS)}")
    splits = ["tune", "heldout", "all"] if args.split == "all" else [args.split]
    if args.split in ("heldout2", *OWN_PARTS):
        sets = []  # the older sets have no heldout2..heldout7 part
    # paraphrase and keyword have no heldout3..heldout7 questions
    if args.split in OWN_PARTS:
        truth = [s for s in truth if s not in ("paraphrase", "keyword")]

    embedder = Embedder()
    embedder.embed_one("warm up")  # model load is not part of any figure
    if args.fit:
        return fit_weights(embedder)

    mem0, note = open_mem0(Path(args.mem0_python) if args.mem0_python else None, args.no_mem0)
    print(f"memory_quality: embedder {embedder.model_name} ({embedder.backend}); {note}")
    print(f"start: {load_note()}")
    report = {
        "embedder_backend": embedder.backend,
        "mem0": note,
        "load_start": load_note(),
        "sets": {},
    }
    try:
        for name in sets:
            res = run_set(name, embedder, mem0, splits, args.detection)
            res["detection"] = args.detection
            report["sets"][name] = res
            print_set(name, res, splits)
        report["truth"] = {}
        for name in truth:
            res = evaluate(name, embedder, mem0, [args.split], args.detection)
            report["truth"][name] = res
            print_truth(name, res)
    finally:
        if mem0 is not None:
            mem0.close()
    report["load_end"] = load_note()
    print(f"\nend: {report['load_end']}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
