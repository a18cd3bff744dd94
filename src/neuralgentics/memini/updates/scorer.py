"""The learned part: two logistic models over the pair features, and the thresholds.

- `conflict`: P(the new fact and the older one are about one subject and disagree on its
  value) — an update or a contradiction, against a related-but-different fact.
- `update`: P(it replaces the older fact | conflict) — against two sources disagreeing.

Both are fitted by :func:`fit_logistic` (L2-regularised logistic regression, Newton's method
in numpy) on the `tune` split of bench/data/memory_updates.jsonl only; `bench/memory_updates.py
--fit` rebuilds the pairs, reports leave-one-project-out figures, chooses the thresholds by
the rule written there, and writes weights.json. Nothing here is hand-set except that rule.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from neuralgentics.memini.updates.features import (
    FEATURES,
    pair_features,
    shared_words,
    value_changes,
)
from neuralgentics.memini.updates.text import Fact

WEIGHTS_PATH = Path(__file__).with_name("weights.json")


@dataclass(frozen=True)
class Weights:
    conflict: np.ndarray
    update: np.ndarray
    auto: float  # supersede at or above this conflict score (when read as an update)
    contradict: float  # link as CONTRADICTS at or above this (when read as a contradiction)
    likely: float  # report as a likely update at or above this
    fitted: dict = field(default_factory=dict)  # how they were made (command, split, figures)


@dataclass(frozen=True)
class Judgement:
    conflict: float  # P(same subject, other value)
    update: float  # P(replaces it | conflict)
    relation: str  # "SUPERSEDES" or "CONTRADICTS": what the link would be
    reason: str


def _vector(values: list[float], what: str) -> np.ndarray:
    if len(values) != len(FEATURES):
        raise ValueError(
            f"{WEIGHTS_PATH.name}: {what} has {len(values)} weights for {len(FEATURES)} features;"
            " refit with `bench/memory_updates.py --fit`"
        )
    return np.asarray(values, dtype=np.float64)


@lru_cache(maxsize=4)
def load(path: Path = WEIGHTS_PATH) -> Weights:
    data = json.loads(path.read_text(encoding="utf-8"))
    if list(data["features"]) != list(FEATURES):
        raise ValueError(
            f"{path.name} was fitted on other features ({data['features']}); refit with"
            " `bench/memory_updates.py --fit`"
        )
    return Weights(
        conflict=_vector(data["conflict"], "conflict"),
        update=_vector(data["update"], "update"),
        auto=float(data["thresholds"]["auto"]),
        contradict=float(data["thresholds"]["contradict"]),
        likely=float(data["thresholds"]["likely"]),
        fitted=data.get("fitted", {}),
    )


def save(weights: Weights, path: Path = WEIGHTS_PATH) -> None:
    data = {
        "features": list(FEATURES),
        "conflict": [round(float(w), 6) for w in weights.conflict],
        "update": [round(float(w), 6) for w in weights.update],
        "thresholds": {
            "auto": weights.auto,
            "contradict": weights.contradict,
            "likely": weights.likely,
        },
        "fitted": weights.fitted,
    }
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    load.cache_clear()


def sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def judge(new: Fact, old: Fact, cosine: float, weights: Weights) -> Judgement:
    x = pair_features(new, old, cosine)
    conflict = sigmoid(float(x @ weights.conflict))
    update = sigmoid(float(x @ weights.update))
    relation = "SUPERSEDES" if update >= 0.5 else "CONTRADICTS"
    return Judgement(conflict, update, relation, explain(new, old, x, relation))


def explain(new: Fact, old: Fact, x: np.ndarray, relation: str) -> str:
    """A short human reason: what the two share, what changed, which words say so."""
    f = dict(zip(FEATURES, x, strict=True))
    parts: list[str] = []
    shared = shared_words(new, old)
    if shared:
        parts.append("same subject (" + ", ".join(shared[:4]) + ")")
    gone, came = value_changes(new, old)
    if gone and came:
        parts.append(", ".join(gone[:2]) + " -> " + ", ".join(came[:2]))
    elif came:
        parts.append("new value " + ", ".join(came[:2]))
    if new.change_cues:
        parts.append("says " + ", ".join(f"'{c}'" for c in new.change_cues[:3]))
    if f["old_named_going"]:
        parts.append("names the old value as going")
    if f["label_form"]:
        parts.append("states the current value")
    if relation == "CONTRADICTS":
        parts.append("two sources disagree, no change stated")
    if f["contrast"] or f["sibling_ids"]:
        parts.append("but may be about another thing")
    parts.append(f"cosine {f['cosine']:.2f}")
    return "; ".join(parts)


def fit_logistic(
    x: np.ndarray, y: np.ndarray, *, l2: float, sample_weight: np.ndarray | None = None
) -> np.ndarray:
    """Weights of P(y=1) = sigmoid(x . w), minimising the weighted mean log-loss plus
    l2 * |w|^2 / n (the bias, column 0, is not penalised). Newton's method: the loss is
    convex and there are only a few weights."""
    n, dim = x.shape
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    penalty = np.eye(dim) * l2
    penalty[0, 0] = 0.0
    w = np.zeros(dim)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -50, 50)))
        grad = (x.T @ (sw * (p - y)) + 2 * penalty @ w) / n
        hess = ((x * (sw * p * (1 - p))[:, None]).T @ x + 2 * penalty) / n
        step = np.linalg.solve(hess + 1e-9 * np.eye(dim), grad)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return w
