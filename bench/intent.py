"""Intent matching quality and latency: hybrid vs BM25 alone vs embeddings alone, in one run.

    .venv/bin/python bench/intent.py [--json] [--sweep] [--latency-tools 500] [--show-misses]
    .venv/bin/python bench/intent.py --fit-rerank   # refit the re-ranker's weights (training sets)
    .venv/bin/python bench/intent.py --choose-k     # candidates shown vs tokens (training sets)
    .venv/bin/python bench/intent.py --diversify    # single-view rankings in the list (training)

Catalog: the real servers' tools/list (tests/broker/catalog/data/real_servers.json, from
``bench/catalog.py --snapshot``) plus tool lists written for common services
(tests/broker/catalog/data/services.txt). Intents: tests/broker/catalog/data/intents.tsv (tuning) and four held-out sets
(intents_heldout.tsv, intents_heldout_b.tsv, intents_heldout_c.tsv, intents_heldout_d.tsv).
Reports top-1/top-3/top-5 accuracy per mode, the confidence calibration (how often a
confident answer is right, how often the matcher is confident), and per-intent latency p50/p90
on a catalog of at least ``--latency-tools`` tools after warm-up. Issue 18 item 8: the right
tool among the first K candidates an unsure answer shows (over all intents and over the unsure
ones) with the list's tokens in both shapes (every candidate on a numbered line; the first
few and the rest grouped by server, as shipped), and the auto-dispatch share and precision
per threshold by the confidence alone and with the margin rule, and how often the agent ends
up with the right tool (called when confident, shown when not). ``--choose-k`` puts the number
of candidates against their tokens on the training intents, matched out of fold.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "broker" / "catalog"))

import evalset  # noqa: E402
import numpy as np  # noqa: E402
from mcp.types import Tool  # noqa: E402

from neuralgentics.app.process import shared_embedder
from neuralgentics.broker.intent import IntentMatcher, rerank  # noqa: E402
from neuralgentics.broker.intent.embedcache import EmbeddingCache  # noqa: E402
from neuralgentics.broker.intent.tools import (  # noqa: E402
    UNSURE_CANDIDATES,
    UNSURE_DETAILED,
    candidate_lines,
)
from neuralgentics.token_counts import count_tokens  # noqa: E402

MODES = ("bm25", "embedding", "hybrid")


def evaluate(matcher: IntentMatcher, intents, mode: str, misses: list | None = None) -> dict:
    hits = {1: 0, 3: 0, 5: 0}
    confident = confident_right = 0
    for intent, server, tool in intents:
        result = matcher.match(intent, top_k=5, mode=mode)
        ranked = [(c.server, c.tool) for c in result.candidates]
        for k in hits:
            hits[k] += (server, tool) in ranked[:k]
        if result.confident:
            confident += 1
            confident_right += ranked[:1] == [(server, tool)]
        if misses is not None and ranked[:1] != [(server, tool)]:
            misses.append(
                (mode, intent, f"{server}/{tool}", ranked[:3], round(result.confidence, 2))
            )
    n = len(intents)
    return {
        "top1": round(hits[1] / n, 4),
        "top3": round(hits[3] / n, 4),
        "top5": round(hits[5] / n, 4),
        "confident_share": round(confident / n, 4),
        "confident_precision": round(confident_right / confident, 4) if confident else None,
    }


SHOWN = (1, 3, 5, 10, 15, 20, 25, 30)
DISPATCH_AT = (0.7, 0.8, 0.9, 0.95)


def candidates_shown(matcher: IntentMatcher, intents) -> dict:
    """Issue 18 item 8: when unsure the agent is shown the first K candidates. Per K: how often
    the right tool is among them, and what the list costs in tokens (median, p90) in two
    shapes: every candidate on a numbered line with why (the shape before this round), and the
    shipped one (the first UNSURE_DETAILED on lines, the rest as names grouped by server). Per
    confidence threshold: the share of intents auto-dispatched and how often that dispatch is
    the right tool, by the confidence alone (the rule before this round) and with the
    matcher's margin rule (runner-up at least DISPATCH_MARGIN behind)."""
    rows = []
    for intent, server, tool in intents:
        r = matcher.match(intent, top_k=max(SHOWN))
        ranked = [(c.server, c.tool) for c in r.candidates]
        tokens = {
            k: (
                count_tokens(candidate_lines(r, k, detailed=k)),
                count_tokens(candidate_lines(r, k, detailed=UNSURE_DETAILED)),
            )
            for k in SHOWN
        }
        rows.append((ranked, (server, tool), r, tokens))
    n = len(rows)
    # the intents the agent is actually shown candidates for (not confident)
    unsure = [row for row in rows if not row[2].confident]
    shown = {}
    for k in SHOWN:
        lined = sorted(t[k][0] for *_, t in unsure or rows)
        grouped = sorted(t[k][1] for *_, t in unsure or rows)
        shown[k] = {
            "recall": round(sum(want in ranked[:k] for ranked, want, _, _ in rows) / n, 4),
            "recall_unsure": round(
                sum(want in ranked[:k] for ranked, want, _, _ in unsure) / max(1, len(unsure)), 4
            ),
            "tokens_p50": lined[len(lined) // 2],
            "tokens_p90": lined[min(len(lined) - 1, int(len(lined) * 0.9))],
            "grouped_tokens_p50": grouped[len(grouped) // 2],
            "grouped_tokens_p90": grouped[min(len(grouped) - 1, int(len(grouped) * 0.9))],
        }
    dispatch = {}
    for t in DISPATCH_AT:
        sent = [ranked[:1] == [want] for ranked, want, r, _ in rows if r.confidence >= t]
        kept = [
            ranked[:1] == [want]
            for ranked, want, r, _ in rows
            if r.confidence >= t and (r.margin is None or r.margin >= r.min_margin)
        ]
        dispatch[t] = {
            "share": round(len(sent) / n, 4),
            "precision": round(sum(sent) / len(sent), 4) if sent else None,
            "margin_share": round(len(kept) / n, 4),
            "margin_precision": round(sum(kept) / len(kept), 4) if kept else None,
        }
    # What the agent ends up with: the right tool called, or shown among the
    # UNSURE_CANDIDATES of an unsure answer (a wrong call is a failure).
    reached = sum(
        (ranked[:1] == [want]) if r.confident else (want in ranked[:UNSURE_CANDIDATES])
        for ranked, want, r, _ in rows
    )
    return {
        "unsure": len(unsure),
        "shown": shown,
        "dispatch": dispatch,
        "reached": round(reached / n, 4),
    }


def calibration(matcher: IntentMatcher, intents) -> list[dict]:
    """Share of intents answered with confidence >= t, and how often those answers are right."""
    rows = []
    for intent, server, tool in intents:
        r = matcher.match(intent, top_k=1)
        rows.append(
            (r.confidence, (r.best.server, r.best.tool) == (server, tool) if r.best else False)
        )
    out = []
    for t in (0.3, 0.5, 0.6, 0.7, 0.8, 0.9):
        kept = [ok for conf, ok in rows if conf >= t]
        out.append(
            {
                "threshold": t,
                "confident_share": round(len(kept) / len(rows), 3),
                "precision": round(sum(kept) / len(kept), 3) if kept else None,
            }
        )
    return out


# Requests no tool in the catalog serves: a good matcher is not confident about any of them.
UNRELATED = [
    "bake a chocolate cake",
    "what is the meaning of life",
    "book a flight to Paris",
    "play some jazz music",
    "translate this paragraph into French",
    "tell me a joke about cats",
    "water the plants at 6pm",
    "what is the capital of Australia",
]


def scaled_catalog(tools, summaries, at_least: int):
    """Copies of the catalog under other server names until it holds ``at_least`` tools."""
    out, sums, copy = dict(tools), dict(summaries), 1
    while sum(len(v) for v in out.values()) < at_least:
        copy += 1
        for server, listed in tools.items():
            name = f"{server}-{copy}"
            out[name] = [
                Tool(name=t.name, description=t.description, input_schema=t.input_schema)
                for t in listed
            ]
            if server in summaries:
                sums[name] = summaries[server]
    return out, sums


def latency(tools, summaries, intents, at_least: int) -> dict:
    """Per-intent latency after warm-up, default intent embeddings and int8 ones interleaved
    (each intent timed with both, one after the other) so both see the same machine load."""
    from neuralgentics.embeddings import MiniLMEmbedder as Embedder

    big, big_sums = scaled_catalog(tools, summaries, at_least)
    cache = EmbeddingCache()
    load_before = os.getloadavg()[0]
    matcher = IntentMatcher(big, big_sums, cache=cache, embedder=shared_embedder())
    t0 = time.perf_counter()
    matcher.warm()
    warm_s = time.perf_counter() - t0
    int8 = IntentMatcher(
        big,
        big_sums,
        cache=cache,
        embedder=matcher.embedder,
        query_embedder=Embedder("onnx-int8"),
    )
    int8.warm()
    # Distinct intents (no query-vector cache hits): the model runs for every one.
    samples, samples8 = [], []
    for i, (intent, _, _) in enumerate(intents):
        for m, out in ((matcher, samples), (int8, samples8)):
            t = time.perf_counter()
            m.match(f"{intent} ({i})", top_k=5)
            out.append((time.perf_counter() - t) * 1000)
    # The same intents again: their vectors are cached, so this is the matcher's own work.
    cached = []
    for i, (intent, _, _) in enumerate(intents):
        t = time.perf_counter()
        matcher.match(f"{intent} ({i})", top_k=5)
        cached.append((time.perf_counter() - t) * 1000)
    lex_samples = []
    for intent, _, _ in intents:
        t = time.perf_counter()
        matcher.match(intent, top_k=5, mode="bm25")
        lex_samples.append((time.perf_counter() - t) * 1000)
    embed_samples, embed8 = [], []
    for i, (intent, _, _) in enumerate(intents[:60]):
        for m, out in ((matcher, embed_samples), (int8, embed8)):
            t = time.perf_counter()
            m.query_embedder.embed([f"{intent} [{i}]"])
            out.append((time.perf_counter() - t) * 1000)

    def pct(xs, q):
        xs = sorted(xs)
        return round(xs[min(len(xs) - 1, int(q * len(xs)))], 2)

    return {
        "tools": matcher.tool_count,
        "embedding_backend": str(getattr(matcher.embedder, "requested_backend", "?")),
        "query_backend": str(getattr(matcher.query_embedder, "requested_backend", "?")),
        "load_average_1m_before": round(load_before, 2),
        "load_average_1m_after": round(os.getloadavg()[0], 2),
        "warm_seconds": round(warm_s, 1),
        "hybrid_p50_ms": round(statistics.median(samples), 2),
        "hybrid_p90_ms": pct(samples, 0.9),
        "hybrid_int8_query_p50_ms": round(statistics.median(samples8), 2),
        "hybrid_int8_query_p90_ms": pct(samples8, 0.9),
        "hybrid_cached_query_p50_ms": round(statistics.median(cached), 2),
        "bm25_only_p50_ms": round(statistics.median(lex_samples), 2),
        "query_embedding_p50_ms": round(statistics.median(embed_samples), 2),
        "query_embedding_min_ms": round(min(embed_samples), 2),
        "int8_query_embedding_p50_ms": round(statistics.median(embed8), 2),
    }


def rerank_groups(matcher: IntentMatcher, intents) -> list:
    """(first-stage scores, features, index of the right tool or None) of each intent's pool."""
    return [matcher.rerank_example(intent, server, tool) for intent, server, tool in intents]


def rerank_accuracy(groups, w) -> float:
    return sum(g is not None and int(np.argmax(f + x @ w)) == g for f, x, g in groups) / len(groups)


def fit_rerank(tools, summaries, cache) -> None:
    """Refit the re-ranker on the training intents only (tuning set + intents_train2.tsv),
    report 5-fold cross-validated top-1 per L2 strength, print the weights to store."""
    zero = np.zeros(len(rerank.FEATURES), dtype=np.float32)
    matcher = IntentMatcher(
        tools, summaries, cache=cache, rerank_weights=zero, embedder=shared_embedder()
    )
    train = rerank_groups(
        matcher, evalset.intents(evalset.TUNING) + evalset.intents(evalset.TRAIN_2)
    )
    folds = np.array_split(np.random.default_rng(0).permutation(len(train)), 5)
    print(
        f"{len(train)} training intents; first stage alone top-1 {rerank_accuracy(train, zero):.4f}"
    )
    for l2 in (0.03, 0.1, 0.3, 1.0, 3.0):
        right = 0.0
        for fold in folds:
            held = set(fold.tolist())
            w = rerank.fit([g for i, g in enumerate(train) if i not in held], l2=l2)
            right += rerank_accuracy([train[i] for i in held], w) * len(held)
        print(f"  l2={l2:<5} cross-validated top-1 {right / len(train):.4f}")
    w = rerank.fit(train, l2=rerank.RERANK_L2)
    print(f"weights at l2={rerank.RERANK_L2} (paste into rerank.WEIGHTS):")
    for name, value in zip(rerank.FEATURES, w, strict=True):
        print(f"    {value:+.4f},  # {name}")


# A miss (the right tool not among those shown) costs a new request to find it: ~7,500
# tokens per main request in the OpenCode session bench (docs/benchmarks-opencode.md).
MISS_TOKENS = 7500


def out_of_fold_matches(tools, summaries, cache, intents, top_k: int = 60) -> list:
    """Each training intent matched with the re-ranker's weights refitted without its
    server's intents (leave-one-server-out), so nothing is read off in-sample re-ranking:
    (intent, (server, tool), MatchResult) in input order."""
    zero = np.zeros(len(rerank.FEATURES), dtype=np.float32)
    matcher = IntentMatcher(
        tools, summaries, cache=cache, rerank_weights=zero, embedder=shared_embedder()
    )
    groups = rerank_groups(matcher, intents)
    out: list = [None] * len(intents)
    for server in sorted({s for _, s, _ in intents}):
        w = rerank.fit(
            [g for g, (_, s, _) in zip(groups, intents, strict=True) if s != server],
            l2=rerank.RERANK_L2,
        )
        matcher._rerank_weights = w
        for i, (intent, s, t) in enumerate(intents):
            if s == server:
                out[i] = (intent, (s, t), matcher.match(intent, top_k=top_k))
    return out


def choose_k(tools, summaries, cache) -> None:
    """How many candidates an unsure answer should show, from the training intents only
    (tuning set + intents_train2.tsv) matched out of fold: over those the dispatch rule leaves
    unsure, the right tool among the first K and the expected tokens (the list in each of 1 /
    2 later requests that carry it, plus P(miss) x MISS_TOKENS); and the rule's out-of-fold
    dispatch share and precision."""
    intents = evalset.intents(evalset.TUNING) + evalset.intents(evalset.TRAIN_2)
    rows = out_of_fold_matches(tools, summaries, cache, intents)
    sent = [
        r.best is not None and (r.best.server, r.best.tool) == w for _, w, r in rows if r.confident
    ]
    print(
        f"{len(rows)} training intents, out of fold: dispatched {len(sent) / len(rows):.3f}, "
        f"precision {sum(sent) / len(sent):.3f}"
    )
    unsure = [(w, r) for _, w, r in rows if not r.confident]
    print(f"choosing K over the {len(unsure)} unsure training intents:")
    ranks = []
    for w, r in unsure:
        ranked = [(c.server, c.tool) for c in r.candidates]
        ranks.append(ranked.index(w) if w in ranked else 10**6)
    at = np.array(ranks)
    for k in (10, 15, 20, 25, 30, 35, 40, 50, 60):
        tokens = float(np.mean([count_tokens(candidate_lines(r, k)) for _, r in unsure]))
        miss = float((at >= k).mean())
        print(
            f"  K={k:<3} shown {1 - miss:.3f} ({int((at >= k).sum())} missed), "
            f"list {tokens:.0f} tokens; expected tokens carried by 1 request "
            f"{tokens + miss * MISS_TOKENS:.0f}, by 2 {2 * tokens + miss * MISS_TOKENS:.0f}"
        )
    past = [str(int(x) + 1) if x < 10**6 else "not in the first 60" for x in sorted(at[at >= 20])]
    print(f"  its rank (1 = first) where past 20: {', '.join(past)}")


def diversified(hybrid: list, lexical: list, semantic: list, k: int, n_lex: int, n_sem: int):
    """The first k - n_lex - n_sem of the hybrid ranking, then the best n_lex of BM25 alone and
    n_sem of embeddings alone not yet listed, then the hybrid ranking again up to k."""
    out = list(hybrid[: k - n_lex - n_sem])
    for ranking, n in ((lexical, n_lex), (semantic, n_sem)):
        for key in [x for x in ranking if x not in out][:n]:
            out.append(key)
    out += [x for x in hybrid if x not in out][: k - len(out)]
    return out


def diversify(tools, summaries, cache) -> None:
    """Issue 18 item 8, fourth pass: does filling the shown list partly from the BM25-alone and
    embedding-alone rankings (the right tool the fusion drops is sometimes first in one of them)
    raise the right tool shown? Training intents only, matched out of fold; per K and split,
    the intents gained or lost against the hybrid ranking alone."""
    intents = evalset.intents(evalset.TUNING) + evalset.intents(evalset.TRAIN_2)
    rows = out_of_fold_matches(tools, summaries, cache, intents)
    single = IntentMatcher(tools, summaries, cache=cache, embedder=shared_embedder())
    views = [
        {
            mode: [(c.server, c.tool) for c in single.match(i, top_k=10, mode=mode).candidates]
            for mode in ("bm25", "embedding")
        }
        for i, _, _ in rows
    ]
    n_unsure = sum(not r.confident for *_, r in rows)
    print(f"{len(rows)} training intents, {n_unsure} unsure (out of fold)")
    for k in (5, 10, 15, 25):
        cells = []
        for n_lex in range(4):
            for n_sem in range(min(4, k - n_lex)):
                got = unsure = 0
                for (_, want, r), v in zip(rows, views, strict=True):
                    hybrid = [(c.server, c.tool) for c in r.candidates]
                    ok = want in diversified(hybrid, v["bm25"], v["embedding"], k, n_lex, n_sem)
                    got += ok
                    unsure += ok and not r.confident
                cells.append((n_lex, n_sem, got, unsure))
        base = cells[0]
        print(f"  K={k}: hybrid alone {base[2]} of {len(rows)} ({base[3]} of {n_unsure} unsure)")
        print("    bm25+emb: " + ", ".join(f"{a}+{b} {g - base[2]:+d}" for a, b, g, _ in cells[1:]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--sweep", action="store_true", help="also sweep the semantic weight")
    ap.add_argument("--latency-tools", type=int, default=500)
    ap.add_argument("--no-latency", action="store_true")
    ap.add_argument("--show-misses", action="store_true")
    ap.add_argument("--fit-rerank", action="store_true", help="refit the re-ranker's weights")
    ap.add_argument(
        "--choose-k", action="store_true", help="candidates shown vs tokens, training intents"
    )
    ap.add_argument(
        "--diversify", action="store_true", help="single-view rankings in the list, training"
    )
    args = ap.parse_args()

    tools, summaries = evalset.catalog()
    if args.fit_rerank:
        fit_rerank(tools, summaries, EmbeddingCache())
        return
    if args.choose_k:
        choose_k(tools, summaries, EmbeddingCache())
        return
    if args.diversify:
        diversify(tools, summaries, EmbeddingCache())
        return
    intents = evalset.intents(evalset.TUNING)
    held_out = evalset.intents(evalset.HELD_OUT)
    held_out_b = evalset.intents(evalset.HELD_OUT_B)
    held_out_c = evalset.intents(evalset.HELD_OUT_C)
    held_out_d = evalset.intents(evalset.HELD_OUT_D)
    cache = EmbeddingCache()
    matcher = IntentMatcher(tools, summaries, cache=cache, embedder=shared_embedder())
    matcher.warm()
    misses: list = []
    report = {
        "tools": matcher.tool_count,
        "servers": len(tools),
        "intents": len(intents),
        "held_out_intents": len(held_out),
        "held_out_b_intents": len(held_out_b),
        "held_out_c_intents": len(held_out_c),
        "held_out_d_intents": len(held_out_d),
        "modes": {
            m: evaluate(matcher, intents, m, misses if args.show_misses else None) for m in MODES
        },
        # Reported, never tuned on: --show-misses lists only the tuning set's misses.
        "held_out": {m: evaluate(matcher, held_out, m) for m in MODES},
        "held_out_b": {m: evaluate(matcher, held_out_b, m) for m in MODES},
        "held_out_c": {m: evaluate(matcher, held_out_c, m) for m in MODES},
        "held_out_d": {m: evaluate(matcher, held_out_d, m) for m in MODES},
    }
    report["calibration"] = calibration(matcher, intents)
    report["held_out_calibration"] = calibration(matcher, held_out)
    report["candidates"] = {
        label: candidates_shown(matcher, data)
        for label, data in (
            ("tuning", intents),
            ("held-out A", held_out),
            ("held-out B", held_out_b),
            ("held-out C", held_out_c),
            ("held-out D", held_out_d),
        )
    }
    report["unrelated_confident"] = sum(matcher.match(q).confident for q in UNRELATED)
    report["unrelated_total"] = len(UNRELATED)
    if args.sweep:
        sweep = {}
        for w in (0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0):
            m = IntentMatcher(
                tools, summaries, cache=cache, semantic_weight=w, embedder=shared_embedder()
            )
            sweep[str(w)] = evaluate(m, intents, "hybrid")
        report["semantic_weight_sweep"] = sweep
    if not args.no_latency:
        report["latency"] = latency(tools, summaries, intents, args.latency_tools)

    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(
            f"catalog: {report['tools']} tools on {report['servers']} servers; "
            f"{report['intents']} intents"
        )
        for label, key, count in (
            ("tuning set", "modes", report["intents"]),
            ("held-out set A", "held_out", report["held_out_intents"]),
            ("held-out set B", "held_out_b", report["held_out_b_intents"]),
            ("held-out set C", "held_out_c", report["held_out_c_intents"]),
            ("held-out set D", "held_out_d", report["held_out_d_intents"]),
        ):
            print(f"{label} ({count} intents)")
            print(f"{'mode':<11}{'top-1':>7}{'top-3':>7}{'top-5':>7}", end="")
            print(f"{'confident':>11}{'precision':>11}")
            for m, r in report[key].items():
                prec = (
                    f"{r['confident_precision']:.3f}"
                    if r["confident_precision"] is not None
                    else "-"
                )
                print(
                    f"{m:<11}{r['top1']:>7.3f}{r['top3']:>7.3f}{r['top5']:>7.3f}"
                    f"{r['confident_share']:>11.3f}{prec:>11}"
                )
            h, b, e = (report[key][m] for m in ("hybrid", "bm25", "embedding"))
            print(
                f"hybrid/bm25 top-1 ratio {h['top1'] / b['top1']:.3f}, hybrid/embedding top-1 "
                f"ratio {h['top1'] / e['top1']:.3f}"
            )
        for label, key in (("tuning", "calibration"), ("held-out", "held_out_calibration")):
            print(f"confidence calibration, {label} (threshold: share confident, precision):")
            for row in report[key]:
                print(
                    f"  >= {row['threshold']:.1f}: {row['confident_share']:.3f}, {row['precision']}"
                )
        print(
            "candidates shown when unsure (issue 18 item 8): right tool among the first K "
            "(all intents, unsure ones); tokens of the list p50/p90, every candidate on a line "
            f"| first {UNSURE_DETAILED} on lines and the rest grouped by server"
        )
        for label, c in report["candidates"].items():
            print(f"  {label} [{c['unsure']} unsure]")
            for k, v in c["shown"].items():
                print(
                    f"    K={k:<3} {v['recall']:.3f} ({v['recall_unsure']:.3f})  "
                    f"lines {v['tokens_p50']}/{v['tokens_p90']}  "
                    f"grouped {v['grouped_tokens_p50']}/{v['grouped_tokens_p90']}"
                )
        print(
            "auto-dispatch: share of intents dispatched, precision; confidence >= t alone | "
            "and the runner-up at least the dispatch margin behind"
        )
        print(f"  {'set':<12}" + "".join(f"{f't={t}':>32}" for t in DISPATCH_AT))
        for label, c in report["candidates"].items():
            cells = "".join(
                "{:>32}".format(
                    "%.3f %s | %.3f %s"
                    % (v["share"], v["precision"], v["margin_share"], v["margin_precision"])
                )
                for v in c["dispatch"].values()
            )
            print(f"  {label:<12}{cells}")
        print(
            "right tool reached (called when confident, among the "
            f"{UNSURE_CANDIDATES} shown when not): "
            + "; ".join(f"{label} {c['reached']:.3f}" for label, c in report["candidates"].items())
        )
        print(
            f"unrelated requests answered confidently: {report['unrelated_confident']} of "
            f"{report['unrelated_total']} (default threshold {matcher.threshold})"
        )
        if args.sweep:
            print("semantic weight sweep (hybrid top-1 / top-3 / top-5):")
            for w, r in report["semantic_weight_sweep"].items():
                print(f"  w={w:<4} {r['top1']:.3f} {r['top3']:.3f} {r['top5']:.3f}")
        if "latency" in report:
            lat = report["latency"]
            print(
                f"latency ({lat['embedding_backend']} tool embeddings, {lat['query_backend']} "
                f"intent embeddings, load average {lat['load_average_1m_before']} -> "
                f"{lat['load_average_1m_after']}) on {lat['tools']} tools "
                f"after warm-up ({lat['warm_seconds']} s): hybrid p50 {lat['hybrid_p50_ms']} ms, "
                f"p90 {lat['hybrid_p90_ms']} ms; with the intent's vector cached "
                f"{lat['hybrid_cached_query_p50_ms']} ms; "
                f"BM25 alone p50 {lat['bm25_only_p50_ms']} ms; "
                f"query embedding alone p50 {lat['query_embedding_p50_ms']} ms "
                f"(min {lat['query_embedding_min_ms']} ms)"
            )
            print(
                f"same intents, interleaved, with int8 intent embeddings: hybrid p50 "
                f"{lat['hybrid_int8_query_p50_ms']} ms, p90 {lat['hybrid_int8_query_p90_ms']} ms; "
                f"int8 query embedding alone p50 {lat['int8_query_embedding_p50_ms']} ms"
            )
        for miss in misses:
            print("MISS", *miss, sep=" | ")


if __name__ == "__main__":
    main()
