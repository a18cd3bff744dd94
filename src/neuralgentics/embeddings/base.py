"""What every area needs to know of an embedding model: the `Embedder` protocol.

The memory service, the project index, the orchestrator's classifier and the broker's intent
matcher all take an `Embedder`; the composition root hands them the same `MiniLMEmbedder`, and a
test may hand them anything with this shape.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # numpy is loaded by what embeds, not by what only names an Embedder
    import numpy as np

DIM = 384


class Embedder(Protocol):
    """Texts in, one L2-normalised float32 row per text out, in input order."""

    model_name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_one(self, text: str) -> np.ndarray:
        """(dim,) for one text."""
        ...


def content_hash(text: str) -> str:
    """sha256 hex of the UTF-8 text: the embedding cache key (memories de-duplicate by
    `memini.scopes.dedup_key`, which adds the owner)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
