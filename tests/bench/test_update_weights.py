"""The update detector's stored weights are what `bench/memory_updates.py --fit` makes from
the tune split today: a change to the features or the data without a refit fails here."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import memory_updates

from neuralgentics.app.process import shared_embedder
from neuralgentics.memini.updates import scorer


def test_the_stored_weights_are_reproduced_by_the_fit(tmp_path) -> None:
    out = tmp_path / "weights.json"
    memory_updates.fit_detection(shared_embedder(), out)
    fresh = json.loads(out.read_text())
    stored = json.loads(scorer.WEIGHTS_PATH.read_text())
    assert fresh["features"] == stored["features"]
    assert fresh["thresholds"] == stored["thresholds"]
    assert fresh["fitted"]["cross_validated"] == stored["fitted"]["cross_validated"]
    for key in ("conflict", "update"):
        assert all(abs(a - b) < 1e-3 for a, b in zip(fresh[key], stored[key], strict=True)), key
    assert scorer.load().auto == stored["thresholds"]["auto"]
