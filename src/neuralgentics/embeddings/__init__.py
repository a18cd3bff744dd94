"""Sentence embeddings (all-MiniLM-L6-v2 on onnxruntime): a foundation every area uses.

`Embedder` is the one protocol the areas take; `MiniLMEmbedder` the model behind it, built once
per process by the composition root (`embedder_from_settings`). Importing this package loads
neither onnxruntime nor the model: both come on the first `embed`.
"""

from __future__ import annotations

from neuralgentics.config import Settings
from neuralgentics.embeddings.base import DIM, Embedder, content_hash
from neuralgentics.embeddings.model import BACKENDS, MiniLMEmbedder
from neuralgentics.embeddings.onnx_cache import MODEL_NAME, ModelUnavailable

__all__ = [
    "BACKENDS",
    "DIM",
    "MODEL_NAME",
    "Embedder",
    "MiniLMEmbedder",
    "ModelUnavailable",
    "content_hash",
    "embedder_from_settings",
]


def embedder_from_settings(settings: Settings) -> MiniLMEmbedder:
    """The model as the settings configure it (backend, threads, model cache); loads lazily."""
    return MiniLMEmbedder(
        settings.embedding_backend,
        threads=settings.embedding_threads,
        model_cache=settings.model_cache,
    )
