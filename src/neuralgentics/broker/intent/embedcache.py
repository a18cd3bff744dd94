"""Embeddings of tool and skill texts, computed once per distinct text.

Keyed by a hash of the model name and the exact text, so a tool whose description changes is
embedded again and an unchanged one never is. Kept in memory for the process and, when given a
path, in one ``.npz`` file so a fresh process (the CLI, a restarted broker) skips the model
work for tools it has seen.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from neuralgentics.embeddings import Embedder
from neuralgentics.filemodes import FILE_MODE, atomic_path

if TYPE_CHECKING:  # imported where vectors are read or made (not by a broker that never is)
    import numpy as np

log = logging.getLogger(__name__)


def model_key(embedder: Embedder) -> str:
    """Which vectors an embedder makes: the project's model names them (`vectors_id`: its
    weights and int8 MatMuls drift from the reference, so they are keyed apart)."""
    vectors_id = getattr(embedder, "vectors_id", None)
    if isinstance(vectors_id, str) and vectors_id:
        return vectors_id
    return str(getattr(embedder, "model_name", type(embedder).__name__))


def text_key(model_name: str, text: str) -> str:
    return hashlib.sha256(f"{model_name}\0{text}".encode()).hexdigest()[:32]


class EmbeddingCache:
    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._vectors: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self._loaded = False
        self._dirty = False

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        if self.path is None or not self.path.exists():
            return
        import numpy as np

        try:
            with np.load(self.path, allow_pickle=False) as data:
                keys, vecs = data["keys"], data["vectors"]
            self._vectors.update({str(k): v for k, v in zip(keys, vecs, strict=True)})
        except (OSError, ValueError, KeyError) as exc:
            log.warning("embedding cache %s is unreadable (%s); starting empty", self.path, exc)

    def __len__(self) -> int:
        return len(self._vectors)

    def embed(self, texts: Sequence[str], embedder: Embedder) -> np.ndarray:
        """Vectors for ``texts`` in order; only texts never seen before reach the model."""
        import numpy as np

        dim = int(getattr(embedder, "dim", 384))
        if not texts:
            return np.zeros((0, dim), dtype=np.float32)
        model = model_key(embedder)
        keys = [text_key(model, t) for t in texts]
        with self._lock:
            self._load()
            missing = list(dict.fromkeys(k for k in keys if k not in self._vectors))
        if missing:
            first_text = {k: t for k, t in zip(keys, texts, strict=True)}
            fresh = embedder.embed([first_text[k] for k in missing])
            with self._lock:
                for k, v in zip(missing, fresh, strict=True):
                    self._vectors[k] = np.asarray(v, dtype=np.float32)
                self._dirty = True
            self.save()
        with self._lock:
            return np.stack([self._vectors[k] for k in keys]).astype(np.float32, copy=False)

    def save(self) -> None:
        """Persist atomically when there is a path and something new."""
        if self.path is None:
            return
        import numpy as np

        with self._lock:
            if not self._dirty:
                return
            keys = np.array(list(self._vectors), dtype="U32")
            vecs = np.stack(list(self._vectors.values())) if self._vectors else np.zeros((0, 0))
            self._dirty = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_path(self.path, mode=FILE_MODE) as tmp, tmp.open("wb") as f:
                np.savez(f, keys=keys, vectors=vecs)
        except OSError as exc:  # a cache that cannot be written is only slower, never wrong
            log.warning("could not write embedding cache %s: %s", self.path, exc)
