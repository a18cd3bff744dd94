"""The objects one process shares, owned by the composition root: the embedding model.

Loading all-MiniLM-L6-v2 costs ~100 MiB and about a second, so a process makes one and hands
it to every area that embeds (memory, project index, orchestrator, broker intents). Library
code never calls this: it takes an `Embedder`. Entry points (the root, `*/cli.py`) and tests do.
"""

from __future__ import annotations

import threading

from neuralgentics.config import get_settings
from neuralgentics.embeddings import MiniLMEmbedder, embedder_from_settings

_lock = threading.Lock()
_embedder: MiniLMEmbedder | None = None


def shared_embedder() -> MiniLMEmbedder:
    """The process's embedder, configured by its settings; made on first call. The lock
    matters: two threads racing at start-up must not build, and load, two models."""
    global _embedder
    with _lock:
        if _embedder is None:
            _embedder = embedder_from_settings(get_settings())
        return _embedder


def forget_shared_embedder() -> None:
    """Drop the process's embedder (a test that changed the settings wants a new one)."""
    global _embedder
    with _lock:
        _embedder = None
