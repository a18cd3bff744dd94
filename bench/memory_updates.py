"""Do newer facts replace older ones? memini-core against mem0 OSS (infer=False), one run.

    .venv/bin/python bench/memory_updates.py                       # tune and heldout
    .venv/bin/python bench/memory_updates.py --split heldout --json out.json
    .venv/bin/python bench/memory_updates.py --mem0-python /work/venvs/mem0/bin/python
    .venv/bin/python bench/memory_updates.py --detection off   # the service without detection
    .venv/bin/python bench/memory_updates.py --fit             # refit update detection (tune only)
    .venv/bin/python bench/memory_updates.py --scale 5000      # detection's cost in a big project
    .venv/bin/python bench/memory_updates.py --streams none     # the update pairs alone

After the update pairs, the stream sets of bench/memory_streams.py (parallel facts, events,
people, a mixed stream with real updates and restatements) go through the same service, plain
cosine and mem0 in the same run: true facts hidden, false contradictions, likely-update rate,
recall@1/@5, and the mixed stream's real updates (new first, old hidden).

For every item of bench/data/memory_updates.jsonl, in its own scope (project = the item's id) of
one fresh memini-core (MemoryService, temporary SQLite file, real MiniLM): add the context facts
and the old fact, then the new fact — plain adds, as a user's agent makes them, no
supersede_similar — then ask. The same sequence goes into a fresh mem0 OSS in the same run
(bench/mem0_runner.py in mem0's own venv; "mem0: skipped (...)" without it).

Reported, per split (targets from issue 17 on held-out):
- updates: the new fact ranked first (>= 90 %), the old fact absent from the top 5 (>= 90 %),
  the old fact superseded by the write, and how each style of new fact fares (cue / plain /
  value-only);
- non-updates: false supersessions (<= 2 %) — the old fact superseded by the write, or hidden
  (not in the top 5 for its own question) — and whether each question finds its fact first;
- contradictions: a CONTRADICTS link between the two facts after the write, and whether either
  was superseded (the wrong outcome);
- update detection's other outcomes: the old fact reported as a likely update (what one
  confirming call would supersede), any *other* memory superseded (a wrong target), CONTRADICTS
  links made on updates and non-updates (false contradictions);
- writes: latency of adding the new fact (p50/p99), and what the service adds over a bare
  insert of the same text (embed + `store.add_memory`, measured on the same items in a shadow
  scope): the `similar` lookup and update detection (target < 10 ms p50).

`--fit` refits update detection (memini/updates/scorer.py) on the `tune` split alone and
writes src/neuralgentics/memini/updates/weights.json: see fit_detection() below.
Rankings: our default query (MemoryService.query) and, for reference, plain cosine over the
same vectors (bench/memory_evalkit.py); mem0's Memory.search.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from memory_evalkit import (
    OWN_PARTS,
    Embedder,
    K,
    OurMemory,
    load_note,
    load_set,
    open_mem0,
    pct,
    rank_of,
)
from memory_streams import STREAM_SETS, evaluate, print_truth

from neuralgentics.embeddings import content_hash
from neuralgentics.memini.store.base import NewMemory
from neuralgentics.memini.updates import scorer
from neuralgentics.memini.updates.features import FEATURES, pair_features
from neuralgentics.memini.updates.text import read

TOP = 5


class Tally:
    """Counts per (split, name); `rate` is the share of items where a condition held."""

    def __init__(self) -> None:
        self.hits: dict[tuple[str, str], int] = defaultdict(int)
        self.total: dict[tuple[str, str], int] = defaultdict(int)
        self.ms: dict[tuple[str, str], list[float]] = defaultdict(list)

    def count(self, split: str, name: str, ok: bool) -> None:
        for s in (split, "all"):
            self.total[s, name] += 1
            self.hits[s, name] += int(ok)

    def time(self, split: str, name: str, ms: float) -> None:
        for s in (split, "all"):
            self.ms[s, name].append(ms)

    def rate(self, split: str, name: str) -> tuple[float, int, int]:
        n = self.total.get((split, name), 0)
        h = self.hits.get((split, name), 0)
        return (h / n if n else float("nan")), h, n

    def as_dict(self) -> dict:
        out: dict = {}
        for (split, name), n in self.total.items():
            out.setdefault(split, {})[name] = {
                "hits": self.hits[split, name],
                "n": n,
                "rate": round(self.hits[split, name] / n, 4),
            }
        for (split, name), values in self.ms.items():
            out.setdefault(split, {})[name] = {
                "p50_ms": round(pct(values, 50), 3),
                "p99_ms": round(pct(values, 99), 3),
                "n": len(values),
            }
        return out


def raw_insert(ours: OurMemory, scope: str, text: str, *, timed: bool) -> float:
    """Embed and insert with the store alone: what a write costs without the service's logic."""
    if timed:
        ours.embedder.cache_clear()
    start = time.perf_counter()
    vector = ours.embedder.embed_one(text)
    ours.store.add_memory(
        NewMemory(content=text, embedding=vector, content_hash=content_hash(text), project=scope)
    )
    return (time.perf_counter() - start) * 1000


def service_add(ours: OurMemory, scope: str, text: str):
    ours.embedder.cache_clear()  # the new fact is embedded inside the timed add
    return ours.add(scope, text)


def run_ours(
    items: list[dict], embedder: Embedder, detection: str = "auto", *, agent: bool = True
) -> Tally:
    """Our service on every item. `agent`: after the automatic figures, each update whose old
    fact was reported as a likely update is confirmed and asked again (the "agent" rows);
    non-updates and contradictions get no confirmation (the oracle confirms true updates only),
    so their figures are the same with or without it."""
    t = Tally()
    with OurMemory(embedder) as ours:
        ours.settings.update_detection = detection
        for n, item in enumerate(items):
            scope, split, kind = item["id"], item["split"], item["kind"]
            ids = {}
            for text in item["context"]:
                ours.add(scope, text)
                raw_insert(ours, scope + "#raw", text, timed=False)
            ids["old"] = ours.add(scope, item["old"])[0].memory.id
            raw_insert(ours, scope + "#raw", item["old"], timed=False)

            # The timed pair: the service's add and a bare insert of the same text, in
            # alternating order so neither always runs on a warmer cache.
            if n % 2:
                raw_ms = raw_insert(ours, scope + "#raw", item["new"], timed=True)
                added, ms = service_add(ours, scope, item["new"])
            else:
                added, ms = service_add(ours, scope, item["new"])
                raw_ms = raw_insert(ours, scope + "#raw", item["new"], timed=True)
            ids["new"] = added.memory.id
            t.time(split, "write_new", ms)
            t.time(split, "write_raw", raw_ms)
            t.time(split, "write_overhead", ms - raw_ms)
            old = ours.store.get_memory(ids["old"])
            superseded = old.superseded_by is not None
            t.count(
                split,
                f"{kind}: old reported similar on add",
                any(s.memory.id == ids["old"] for s in added.similar),
            )
            t.count(split, f"{kind}: old superseded", superseded)
            t.count(
                split,
                f"{kind}: old reported as likely update",
                any(f.memory.id == ids["old"] for f in added.likely_updates),
            )
            t.count(
                split,
                f"{kind}: old superseded or reported likely",
                superseded or any(f.memory.id == ids["old"] for f in added.likely_updates),
            )
            t.count(
                split,
                f"{kind}: another memory superseded",
                any(f.memory.id != ids["old"] for f in added.superseded),
            )
            t.count(
                split,
                f"{kind}: CONTRADICTS link made",
                any(f.memory.id == ids["old"] for f in added.contradicts),
            )
            if kind == "update":
                for method in ("default", "vector", "agent") if agent else ("default", "vector"):
                    # The scripted agent (an oracle, not a model): after the automatic figures
                    # it confirms exactly the true update among the likely updates it was
                    # shown, with the one call the plugin's save tool offers (POST
                    # /memory/{id}/supersede), then the question is asked again.
                    shown = any(f.memory.id == ids["old"] for f in added.likely_updates)
                    if method == "agent" and shown:
                        ours.service.supersede(ids["new"], [ids["old"]], actor="agent")
                    embedder.cache_clear()
                    ask = ours.default if method == "agent" else getattr(ours, method)
                    ranked, qms = ask(scope, item["question"], K)
                    r_new, r_old = rank_of(ids["new"], ranked), rank_of(ids["old"], ranked)
                    t.count(split, f"update/{method}: new first", r_new == 1)
                    t.count(
                        split,
                        f"update/{method}: old absent from top {TOP}",
                        r_old is None or r_old > TOP,
                    )
                    t.count(
                        split,
                        f"update/{method}: new in top {TOP}",
                        r_new is not None and r_new <= TOP,
                    )
                    t.count(split, f"update/{method} [{item['style']}]: new first", r_new == 1)
                    if method != "agent":
                        t.time(split, f"query/{method}", qms)
            elif kind == "non_update":
                hidden = False
                for q in item["questions"]:
                    embedder.cache_clear()
                    ranked, qms = ours.default(scope, q["question"], K)
                    r = rank_of(ids[q["answer"]], ranked)
                    t.count(split, f"non_update: {q['answer']} fact first", r == 1)
                    t.time(split, "query/default", qms)
                    if q["answer"] == "old":
                        hidden = r is None or r > TOP
                t.count(split, f"non_update: old hidden from top {TOP}", hidden)
                t.count(
                    split,
                    "non_update: false supersession (superseded or hidden)",
                    superseded or hidden,
                )
            else:
                edges = ours.store.edges_of([ids["new"]], ["CONTRADICTS"])
                linked = any({e.source_id, e.target_id} == {ids["new"], ids["old"]} for e in edges)
                t.count(split, "contradiction: linked", linked)
                new_superseded = ours.store.get_memory(ids["new"]).superseded_by is not None
                t.count(split, "contradiction: either superseded", superseded or new_superseded)
                embedder.cache_clear()
                ranked, _ = ours.default(scope, item["question"], K)
                both = all(
                    (r := rank_of(ids[x], ranked)) is not None and r <= TOP for x in ("old", "new")
                )
                t.count(split, f"contradiction: both in top {TOP}", both)
    return t


def run_mem0(items: list[dict], mem0) -> Tally:
    t = Tally()
    mem0.fresh()
    ids: dict[str, dict[str, str]] = {}
    for item in items:
        scope = item["id"]
        before, _ = mem0.add([(scope, text) for text in (*item["context"], item["old"])])
        new_ids, ms = mem0.add([(scope, item["new"])])
        ids[scope] = {"old": before[-1], "new": new_ids[0]}
        t.time(item["split"], "write_new", ms[0])
    # What is still there: with infer=False mem0 never updates or deletes, checked all the same.
    still = mem0.exists([ids[i["id"]]["old"] for i in items])
    queries, owners = [], []
    for item, old_exists in zip(items, still):
        split, kind, scope = item["split"], item["kind"], item["id"]
        t.count(split, f"{kind}: old superseded", not old_exists)
        if kind == "non_update":
            for q in item["questions"]:
                queries.append((scope, q["question"]))
                owners.append((item, q["answer"]))
        else:
            queries.append((scope, item["question"]))
            owners.append((item, None))
    hidden: dict[str, bool] = {}
    for i in range(0, len(queries), 100):
        out = mem0.search(queries[i : i + 100], K)
        for (item, answer), ranked, qms in zip(owners[i : i + 100], out["hits"], out["ms"]):
            split, kind, mine = item["split"], item["kind"], ids[item["id"]]
            t.time(split, "query/mem0", qms)
            if kind == "update":
                r_new, r_old = rank_of(mine["new"], ranked), rank_of(mine["old"], ranked)
                t.count(split, "update/mem0: new first", r_new == 1)
                t.count(
                    split, f"update/mem0: old absent from top {TOP}", r_old is None or r_old > TOP
                )
                t.count(split, f"update/mem0: new in top {TOP}", r_new is not None and r_new <= TOP)
                t.count(split, f"update/mem0 [{item['style']}]: new first", r_new == 1)
            elif kind == "non_update":
                r = rank_of(mine[answer], ranked)
                t.count(split, f"non_update: {answer} fact first", r == 1)
                if answer == "old":
                    hidden[item["id"]] = r is None or r > TOP
            else:
                both = all(
                    (r := rank_of(mine[x], ranked)) is not None and r <= TOP for x in ("old", "new")
                )
                t.count(split, f"contradiction: both in top {TOP}", both)
                t.count(split, "contradiction: linked", False)  # mem0 has no links without an LLM
    for item, old_exists in zip(items, still):
        if item["kind"] == "non_update":
            h = hidden[item["id"]]
            t.count(item["split"], f"non_update: old hidden from top {TOP}", h)
            t.count(
                item["split"],
                "non_update: false supersession (superseded or hidden)",
                h or not old_exists,
            )
    return t


def fmt_rate(t: Tally | None, split: str, name: str) -> str:
    if t is None:
        return "-"
    rate, h, n = t.rate(split, name)
    return "-" if not n else f"{rate:.3f} ({h}/{n})"


def fmt_ms(t: Tally | None, split: str, name: str) -> str:
    if t is None or not t.ms.get((split, name)):
        return "-"
    v = t.ms[split, name]
    return f"p50 {pct(v, 50):.2f} / p99 {pct(v, 99):.2f} ms"


def report(ours: Tally, mem0: Tally | None, splits: list[str]) -> None:
    rows = [
        (
            "updates: new fact ranked first (>= 0.90)",
            "update/default: new first",
            "update/mem0: new first",
        ),
        (
            f"updates: old fact absent from top {TOP} (>= 0.90)",
            f"update/default: old absent from top {TOP}",
            f"update/mem0: old absent from top {TOP}",
        ),
        (
            f"updates: new fact in top {TOP}",
            f"update/default: new in top {TOP}",
            f"update/mem0: new in top {TOP}",
        ),
        (
            "  with an agent confirming likely updates: new first",
            "update/agent: new first",
            None,
        ),
        (
            f"  with an agent confirming likely updates: old absent from top {TOP}",
            f"update/agent: old absent from top {TOP}",
            None,
        ),
        ("  plain cosine, new first", "update/vector: new first", None),
        (
            f"  plain cosine, old absent from top {TOP}",
            f"update/vector: old absent from top {TOP}",
            None,
        ),
        (
            "  new first, cue words",
            "update/default [cue]: new first",
            "update/mem0 [cue]: new first",
        ),
        (
            "  new first, plain",
            "update/default [plain]: new first",
            "update/mem0 [plain]: new first",
        ),
        (
            "  new first, value only",
            "update/default [value_only]: new first",
            "update/mem0 [value_only]: new first",
        ),
        (
            "updates: old superseded by the write",
            "update: old superseded",
            "update: old superseded",
        ),
        ("updates: old reported `similar` on add", "update: old reported similar on add", None),
        ("updates: old reported as a likely update", "update: old reported as likely update", None),
        (
            "updates: superseded or likely (one confirm away)",
            "update: old superseded or reported likely",
            None,
        ),
        ("updates: another memory superseded", "update: another memory superseded", None),
        ("updates: linked as CONTRADICTS instead", "update: CONTRADICTS link made", None),
        (
            "non-updates: false supersession (<= 0.02)",
            "non_update: false supersession (superseded or hidden)",
            "non_update: false supersession (superseded or hidden)",
        ),
        ("  of which superseded", "non_update: old superseded", "non_update: old superseded"),
        ("non-updates: another memory superseded", "non_update: another memory superseded", None),
        ("non-updates: false CONTRADICTS link", "non_update: CONTRADICTS link made", None),
        (
            "non-updates: old reported as a likely update",
            "non_update: old reported as likely update",
            None,
        ),
        (
            f"  of which hidden from top {TOP}",
            f"non_update: old hidden from top {TOP}",
            f"non_update: old hidden from top {TOP}",
        ),
        (
            "  of which at the hide score (pushed out of a top 5)",
            "non_update: old likely at the hide score",
            None,
        ),
        (
            "non-updates: old fact first for its question",
            "non_update: old fact first",
            "non_update: old fact first",
        ),
        (
            "non-updates: new fact first for its question",
            "non_update: new fact first",
            "non_update: new fact first",
        ),
        ("contradictions: CONTRADICTS link", "contradiction: linked", "contradiction: linked"),
        ("contradictions: either fact superseded", "contradiction: either superseded", None),
        (
            "contradictions: another memory superseded",
            "contradiction: another memory superseded",
            None,
        ),
        (
            f"contradictions: both in top {TOP}",
            f"contradiction: both in top {TOP}",
            f"contradiction: both in top {TOP}",
        ),
    ]
    for split in splits:
        print(f"\n== {split}")
        print(f"   {'':<48} {'memini-core':<28} {'mem0 (infer=False)':<28}")
        for label, ours_key, mem0_key in rows:
            print(
                f"   {label:<48} {fmt_rate(ours, split, ours_key):<28} "
                f"{fmt_rate(mem0, split, mem0_key) if mem0_key else '-':<28}"
            )
        print(
            f"   {'write of the new fact':<48} {fmt_ms(ours, split, 'write_new'):<28} "
            f"{fmt_ms(mem0, split, 'write_new')}"
        )
        print(
            f"   {'  bare insert of the same text (ours)':<48} {fmt_ms(ours, split, 'write_raw')}"
        )
        print(
            f"   {'  service over bare insert (detection goes here)':<48}"
            f" {fmt_ms(ours, split, 'write_overhead')}"
        )
        print(
            f"   {'query':<48} {fmt_ms(ours, split, 'query/default'):<28}"
            f" {fmt_ms(mem0, split, 'query/mem0')}"
        )
        if (
            mem0 is not None
            and ours.ms.get((split, "write_new"))
            and mem0.ms.get((split, "write_new"))
        ):
            ratio = pct(mem0.ms[split, "write_new"], 50) / pct(ours.ms[split, "write_new"], 50)
            print(f"   mem0 write p50 / ours = {ratio:.2f}x")


def run_scale(embedder: Embedder, size: int) -> None:
    """Detection's cost in a large project: `size` memories in one scope (every fact of the
    three sets, repeated with a suffix when more are asked), then each update's new fact
    added with detection auto and, into a twin scope, off — alternating which goes first."""
    facts = [r.get("fact") or r.get("text") for r in load_set("memory_paraphrase")]
    facts += [r.get("text") or r.get("fact") for r in load_set("memory_keyword")]
    items = load_set("memory_updates")
    facts += [t for r in items for t in (r["old"], *r["context"])]
    facts = [f for f in dict.fromkeys(facts) if f]
    corpus = [
        facts[i % len(facts)] + ("" if i < len(facts) else f" (note {i})") for i in range(size)
    ]
    news = [r["new"] for r in items if r["kind"] == "update"]
    ms: dict[str, list[float]] = {"auto": [], "off": []}
    with OurMemory(embedder) as ours:
        vectors = embedder.embed(corpus)
        for scope in ("big", "big-off"):
            for text, vector in zip(corpus, vectors, strict=True):
                ours.store.add_memory(
                    NewMemory(
                        content=text,
                        embedding=vector,
                        content_hash=content_hash(text),
                        project=scope,
                    )
                )
        for n, text in enumerate(news):
            for mode in ("auto", "off") if n % 2 else ("off", "auto"):
                embedder.cache_clear()
                start = time.perf_counter()
                ours.service.add(
                    text, project="big" if mode == "auto" else "big-off", detection=mode
                )
                ms[mode].append((time.perf_counter() - start) * 1000)
    diff = [a - b for a, b in zip(ms["auto"], ms["off"], strict=True)]
    print(f"one project of {size} memories, {len(news)} adds:")
    for mode in ("auto", "off"):
        print(f"  detection {mode:<4} p50 {pct(ms[mode], 50):.2f} / p99 {pct(ms[mode], 99):.2f} ms")
    print(f"  added by detection (paired) p50 {pct(diff, 50):.2f} / p99 {pct(diff, 99):.2f} ms")


# -- fitting update detection (tune split only) ------------------------------------------------

# The rule that turns cross-validated scores into thresholds (written before fitting):
# `auto` is the lowest threshold at which, across the tune projects each held out in turn,
# at most AUTO_MAX_FALSE of the non-update items would lose a memory (the best candidate
# at or above it) and at most AUTO_MAX_FALSE of the update/contradiction items would have the
# wrong memory linked; `contradict` likewise for CONTRADICTS links made where there is no
# contradiction; `likely` is the highest threshold at or below both at which LIKELY_RECALL of
# the updates and contradictions are acted on or reported.
AUTO_MAX_FALSE = 0.01
LIKELY_RECALL = 0.95
L2_GRID = (0.03, 0.1, 0.3, 1.0, 3.0)
# Candidates that are plainly another topic (a project's other facts) are many and easy;
# weighing each as much as a near-topic pair would let them shape the weights.
CONTEXT_WEIGHT = 0.25


def detection_pairs(items: list[dict], embedder: Embedder) -> dict:
    """Every (new fact, candidate) pair of the items, as detection sees it after the write:
    the old fact and each context fact of the item's scope are its candidates."""
    texts = sorted({t for r in items for t in (r["new"], r["old"], *r["context"])})
    vectors = dict(zip(texts, embedder.embed(texts), strict=True))
    x, kind, item, is_old = [], [], [], []
    for n, r in enumerate(items):
        new = read(r["new"])
        for text, label in [(r["old"], r["kind"]), *((c, "context") for c in r["context"])]:
            cosine = float(vectors[r["new"]] @ vectors[text])
            x.append(pair_features(new, read(text), cosine))
            kind.append(label)
            item.append(n)
            is_old.append(text == r["old"])
    return {
        "x": np.asarray(x),
        "kind": np.asarray(kind),
        "item": np.asarray(item),
        "is_old": np.asarray(is_old),
        "project": np.asarray([items[i]["project"] for i in item]),
        "item_kind": [r["kind"] for r in items],
    }


def _conflict_labels(d: dict) -> tuple[np.ndarray, np.ndarray]:
    y = np.isin(d["kind"], ["update", "contradiction"]).astype(float)
    w = np.where(d["kind"] == "context", CONTEXT_WEIGHT, 1.0)
    return y, w


def _cross_validated(
    d: dict, l2_conflict: float, l2_update: float
) -> tuple[np.ndarray, np.ndarray]:
    """Leave-one-project-out scores of both models for every pair."""
    y, w = _conflict_labels(d)
    conflict, update = np.zeros(len(y)), np.zeros(len(y))
    is_conflict = y == 1
    y_update = (d["kind"] == "update").astype(float)
    for project in sorted(set(d["project"])):
        test = d["project"] == project
        wc = scorer.fit_logistic(d["x"][~test], y[~test], l2=l2_conflict, sample_weight=w[~test])
        train_u = ~test & is_conflict
        wu = scorer.fit_logistic(d["x"][train_u], y_update[train_u], l2=l2_update)
        conflict[test] = 1 / (1 + np.exp(-d["x"][test] @ wc))
        update[test] = 1 / (1 + np.exp(-d["x"][test] @ wu))
    return conflict, update


def outcomes(
    d: dict, conflict: np.ndarray, update: np.ndarray, auto: float, contradict: float
) -> dict:
    """What the write path would do: act on each item's best candidate when it scores at or
    above `auto` (read as an update) or `contradict` (read as two sources disagreeing)."""
    out = {
        k: 0
        for k in (
            "update_right",
            "update_as_contradiction",
            "contradiction_right",
            "contradiction_as_update",
            "wrong_target",
            "non_update_lost",
            "non_update_contradicted",
        )
    }
    n = {"update": 0, "non_update": 0, "contradiction": 0}
    for i, kind in enumerate(d["item_kind"]):
        n[kind] += 1
        rows = np.flatnonzero(d["item"] == i)
        best = rows[np.argmax(conflict[rows])]
        as_update = update[best] >= 0.5
        if conflict[best] < (auto if as_update else contradict):
            continue
        if kind == "non_update":
            out["non_update_lost" if as_update else "non_update_contradicted"] += 1
        elif not d["is_old"][best]:
            out["wrong_target"] += 1
        elif kind == "update":
            out["update_right" if as_update else "update_as_contradiction"] += 1
        else:
            out["contradiction_right" if not as_update else "contradiction_as_update"] += 1
    out.update({f"n_{k}": v for k, v in n.items()})
    return out


def choose_thresholds(
    d: dict, conflict: np.ndarray, update: np.ndarray
) -> tuple[float, float, float]:
    grid = [round(t, 2) for t in np.arange(0.05, 0.995, 0.01)]

    def lowest(ok) -> float:
        return next((t for t in grid if ok(t)), 0.99)

    def auto_ok(t: float) -> bool:
        o = outcomes(d, conflict, update, t, 1.01)
        changed = o["n_update"] + o["n_contradiction"]
        return (
            o["non_update_lost"] <= AUTO_MAX_FALSE * o["n_non_update"]
            and o["wrong_target"] <= AUTO_MAX_FALSE * changed
        )

    def contradict_ok(t: float) -> bool:
        o = outcomes(d, conflict, update, 1.01, t)
        false = o["non_update_contradicted"] + o["update_as_contradiction"] + o["wrong_target"]
        return false <= AUTO_MAX_FALSE * (o["n_non_update"] + o["n_update"])

    auto, contradict = lowest(auto_ok), lowest(contradict_ok)
    likely = 0.05
    positives = [i for i, k in enumerate(d["item_kind"]) if k != "non_update"]
    for t in reversed([g for g in grid if g <= min(auto, contradict)]):
        found = 0
        for i in positives:
            rows = np.flatnonzero((d["item"] == i) & d["is_old"])
            found += int(conflict[rows].max() >= t)
        if found >= LIKELY_RECALL * len(positives):
            likely = t
            break
    return auto, contradict, likely


def fit_detection(embedder: Embedder, path: Path = scorer.WEIGHTS_PATH) -> scorer.Weights:
    """Refit both models on the tune split, choose L2 strengths and thresholds by
    leave-one-project-out cross-validation, write weights.json and print the figures."""
    items = [r for r in load_set("memory_updates") if r["split"] == "tune"]
    d = detection_pairs(items, embedder)
    y, w = _conflict_labels(d)
    print(f"tune: {len(items)} items, {len(y)} pairs ({int(y.sum())} update/contradiction)")
    best = None
    for l2 in L2_GRID:
        conflict, update = _cross_validated(d, l2, 1.0)
        auto, contradict, likely = choose_thresholds(d, conflict, update)
        o = outcomes(d, conflict, update, auto, contradict)
        recall = o["update_right"] / o["n_update"]
        print(
            f"  l2={l2:<5} auto={auto:.2f} contradict={contradict:.2f} likely={likely:.2f}"
            f" cross-validated: updates superseded {recall:.3f}, contradictions linked"
            f" {o['contradiction_right']}/{o['n_contradiction']}, non-updates losing one"
            f" {o['non_update_lost']}/{o['n_non_update']}, wrong targets {o['wrong_target']}"
        )
        if best is None or recall > best[0] + 1e-9:
            best = (recall, l2)
    l2 = best[1]
    accuracy = []
    for l2_u in L2_GRID:
        _, update = _cross_validated(d, l2, l2_u)
        mask = np.isin(d["kind"], ["update", "contradiction"])
        right = ((update[mask] >= 0.5) == (d["kind"][mask] == "update")).mean()
        accuracy.append((right, l2_u))
        print(f"  update-vs-contradiction l2={l2_u:<5} cross-validated accuracy {right:.3f}")
    l2_update = max(accuracy)[1]
    conflict, update = _cross_validated(d, l2, l2_update)
    auto, contradict, likely = choose_thresholds(d, conflict, update)
    o = outcomes(d, conflict, update, auto, contradict)
    mask = np.isin(d["kind"], ["update", "contradiction"])
    weights = scorer.Weights(
        conflict=scorer.fit_logistic(d["x"], y, l2=l2, sample_weight=w),
        update=scorer.fit_logistic(
            d["x"][mask], (d["kind"][mask] == "update").astype(float), l2=l2_update
        ),
        auto=auto,
        contradict=contradict,
        likely=likely,
        fitted={
            "command": "bench/memory_updates.py --fit",
            "data": "bench/data/memory_updates.jsonl, split tune",
            "pairs": int(len(y)),
            "l2_conflict": l2,
            "l2_update": l2_update,
            "context_weight": CONTEXT_WEIGHT,
            "threshold_rule": f"auto: lowest with <= {AUTO_MAX_FALSE:.0%} of non-updates losing"
            f" a memory and <= {AUTO_MAX_FALSE:.0%} wrong targets; contradict: lowest with <="
            f" {AUTO_MAX_FALSE:.0%} false CONTRADICTS links; likely: highest <= both with >="
            f" {LIKELY_RECALL:.0%} of updates+contradictions acted on or reported",
            "cross_validated": {k: int(v) for k, v in o.items()},
        },
    )
    scorer.save(weights, path)
    print(
        f"chosen: l2 {l2} / {l2_update}, auto {auto:.2f}, contradict {contradict:.2f},"
        f" likely {likely:.2f};"
        f" cross-validated at auto: {o}"
    )
    for name, wc, wu in zip(FEATURES, weights.conflict, weights.update, strict=True):
        print(f"    {name:<22} conflict {wc:+.3f}   update {wu:+.3f}")
    print(f"wrote {path}")
    return weights


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--split",
        choices=("tune", "heldout", *OWN_PARTS, "all"),
        default="all",
        help="which items; 'all' reports tune, heldout and both together; heldout3 reads "
        "memory_updates_heldout3.jsonl, heldout4 memory_updates_heldout4.jsonl, heldout5 "
        "memory_updates_heldout5.jsonl, heldout6 memory_updates_heldout6.jsonl, heldout7 "
        "memory_updates_heldout7.jsonl (each run once at the end, never read to tune; not in "
        "'all')",
    )
    parser.add_argument(
        "--mem0-python",
        type=str,
        default=None,
        help="python of mem0's venv (default $MEM0_PYTHON or /work/venvs/mem0/bin/python)",
    )
    parser.add_argument("--no-mem0", action="store_true")
    parser.add_argument("--json", type=str, default=None)
    parser.add_argument(
        "--detection",
        choices=("auto", "report", "off"),
        default="auto",
        help="update detection mode of our service (off = as before detection existed)",
    )
    parser.add_argument(
        "--fit", action="store_true", help="refit update detection on the tune split and exit"
    )
    parser.add_argument(
        "--scale",
        type=int,
        default=0,
        help="only time detection in one project of this many memories, then exit",
    )
    parser.add_argument(
        "--streams",
        default=",".join(STREAM_SETS),
        help="stream sets (bench/memory_streams.py) whose real updates and true facts are "
        "reported too, with plain cosine and mem0 in the same run; 'none' for none",
    )
    parser.add_argument(
        "--no-agent", action="store_true", help="leave out the confirming-agent rows"
    )
    args = parser.parse_args()
    streams = [s.strip() for s in args.streams.split(",") if s.strip() and s.strip() != "none"]
    unknown = [s for s in streams if s not in STREAM_SETS]
    if unknown:
        parser.error(f"unknown stream set(s) {', '.join(unknown)}; choose from {STREAM_SETS}")
    if args.scale:
        print(f"start: {load_note()}")
        run_scale(Embedder(), args.scale)
        print(f"end: {load_note()}")
        return 0
    if args.fit:
        fit_detection(Embedder())
        return 0
    # heldout3..heldout7 have their own pairs files, never in 'all'
    own = args.split in OWN_PARTS
    pairs_file = f"memory_updates_{args.split}" if own else "memory_updates"
    items = [r for r in load_set(pairs_file) if args.split == "all" or r["split"] == args.split]
    splits = ["tune", "heldout", "all"] if args.split == "all" else [args.split]

    embedder = Embedder()
    embedder.embed_one("warm up")
    mem0, note = open_mem0(Path(args.mem0_python) if args.mem0_python else None, args.no_mem0)
    kinds = defaultdict(int)
    for r in items:
        kinds[r["kind"]] += 1
    print(
        f"memory_updates: {dict(kinds)}; embedder {embedder.model_name} ({embedder.backend});"
        f" update detection: {args.detection}; {note}"
    )
    print(f"start: {load_note()}")
    try:
        ours = run_ours(items, embedder, args.detection, agent=not args.no_agent)
        theirs = run_mem0(items, mem0) if mem0 is not None else None
        truth = {
            name: evaluate(name, embedder, mem0, [args.split], args.detection) for name in streams
        }
    finally:
        if mem0 is not None:
            mem0.close()
    report(ours, theirs, splits)
    for name, res in truth.items():
        print_truth(name, res)
    end = load_note()
    print(f"\nend: {end}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "mem0": note,
                    "load_end": end,
                    "ours": ours.as_dict(),
                    "mem0_figures": theirs.as_dict() if theirs else None,
                    "streams": truth,
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
