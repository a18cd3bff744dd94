"""The model the project index embeds with: MiniLM with int8 MatMuls when the configured
embedder can give it (`MiniLMEmbedder.int8`), else the configured embedder itself.

Chunks and the queries against them must come from the same model, so indexing and search
both go through `chunk_embedder`. The memories keep the configured model: their vectors never
meet the chunks'. int8 embedded 3.0x the chunks/s on a quiet 2-core machine (a whole cold run
under load: 1.65-1.77x the chunks per CPU-second) and kept hybrid MRR@10 on bench/index.py's
held-out half within a point (docs/benchmarks-indexer.md).
"""

from __future__ import annotations

from neuralgentics.embeddings import Embedder


def chunk_embedder(embedder: Embedder) -> Embedder:
    variant = getattr(embedder, "int8", None)
    return variant() if callable(variant) else embedder
