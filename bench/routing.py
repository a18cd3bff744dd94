"""Task classifier benchmark: accuracy on labelled developer task texts, and latency.

    .venv/bin/python bench/routing.py [--quick]

Baselines measured in the same run: keyword rules alone and MiniLM similarity alone, against
the combined classifier the orchestrator uses. Texts (tests/orchestrator/): routing_tasks.yaml
and routing_tasks_round2.yaml, the two sets the keyword rules and weights were tuned on, and
routing_tasks_heldout.yaml, written after tuning and never tuned on.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import yaml  # noqa: E402

from neuralgentics.orchestrator.classify import TaskClassifier, Weights  # noqa: E402
from neuralgentics.orchestrator.config import load_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SETS = {
    "tuning round 1": "routing_tasks.yaml",
    "tuning round 2": "routing_tasks_round2.yaml",
    "held-out": "routing_tasks_heldout.yaml",
}


def labelled(name: str) -> list[tuple[str, str]]:
    data = yaml.safe_load((ROOT / "tests/orchestrator" / name).read_text())
    return [(label, text) for label, texts in data.items() for text in texts]


def evaluate(clf: TaskClassifier, items: list[tuple[str, str]]) -> dict:
    results = clf.classify_many([t for _, t in items])
    labels = [label for label, _ in items]
    correct = [r.task_type == label for r, label in zip(results, labels)]
    per_type: dict[str, list[bool]] = {}
    confusions: Counter = Counter()
    for r, label, ok in zip(results, labels, correct):
        per_type.setdefault(label, []).append(ok)
        if not ok:
            confusions[(label, r.task_type)] += 1
    return {
        "n": len(items),
        "accuracy": sum(correct) / len(items),
        "in_candidates": sum(label in r.top_types for r, label in zip(results, labels))
        / len(items),
        "ambiguous": sum(r.ambiguous for r in results) / len(items),
        "per_type": {t: sum(v) / len(v) for t, v in per_type.items()},
        "confusions": confusions.most_common(6),
    }


def median_ms(fn, texts: list[str], repeat: int) -> float:
    samples = []
    for round_no in range(repeat):
        for text in texts:
            # a text never seen before: the embedder caches by content hash
            fresh = f"{text} (variant {round_no}-{time.perf_counter_ns()})"
            t0 = time.perf_counter()
            fn(fresh)
            samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer latency repetitions (CI)")
    args = parser.parse_args()

    config = load_config()
    t0 = time.perf_counter()
    combined = TaskClassifier(config)
    combined.classify("warm up: load the model and embed the examples")
    print(
        f"model load + {sum(len(s.examples) for s in config.task_types.values())} examples embedded: "
        f"{time.perf_counter() - t0:.1f} s"
    )
    variants = {
        "keywords only (baseline)": TaskClassifier(config, weights=Weights(use_similarity=False)),
        "MiniLM similarity only (baseline)": TaskClassifier(
            config, weights=Weights(use_keywords=False)
        ),
        "combined (shipped)": combined,
    }
    for set_name, filename in SETS.items():
        items = labelled(filename)
        print(f"\n== {set_name} set: {len(items)} texts ==")
        base = None
        for name, clf in variants.items():
            m = evaluate(clf, items)
            base = base or m["accuracy"]
            print(
                f"{name:<36} accuracy {m['accuracy']:.3f} (x{m['accuracy'] / base:.2f} vs keywords)  "
                f"right type among candidates {m['in_candidates']:.3f}  ambiguous {m['ambiguous']:.2f}"
            )
        m = evaluate(combined, items)
        print(
            "per type (combined): "
            + ", ".join(f"{t} {a:.2f}" for t, a in sorted(m["per_type"].items()))
        )
        if m["confusions"]:
            print(
                "most common confusions (true -> predicted): "
                + ", ".join(f"{a}->{b} x{n}" for (a, b), n in m["confusions"])
            )

    texts = [t for _, t in labelled(SETS["held-out"])][:20]
    repeat = 1 if args.quick else 5
    kw = median_ms(variants["keywords only (baseline)"].classify, texts, repeat)
    full = median_ms(combined.classify, texts, repeat)
    print(
        f"\nlatency per task text, median of {len(texts) * repeat}: keywords only {kw:.2f} ms, "
        f"combined {full:.2f} ms (x{full / kw:.0f}; the difference is one MiniLM embedding)"
    )


if __name__ == "__main__":
    sys.exit(main())
