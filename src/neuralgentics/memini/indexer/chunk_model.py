"""The model the project index embeds with: MiniLM with int8 MatMuls reading at most
`CHUNK_MAX_TOKENS` word pieces per text, when the configured embedder can give it
(`MiniLMEmbedder.int8`), else the configured embedder itself.

Chunks and the queries against them must come from the same model, so indexing and search
both go through `chunk_embedder`. The memories keep the configured model: their vectors never
meet the chunks'. int8 embedded 3.0x the chunks/s on a quiet 2-core machine and kept hybrid
MRR@10 on bench/index.py's held-out half within a point; reading 128 word pieces instead of
256 (MiniLM was trained on 128) runs 30 % fewer tokens, and attention grows with the square
of the length: a cold run embeds 2.8x the chunks per CPU-second of the indexer before issue
31, 1.6x int8 at 256, at held-out MRR@10 0.442 vs 0.434 (docs/benchmarks-indexer.md).
"""

from __future__ import annotations

from neuralgentics.embeddings import Embedder

# A chunk's header line and first lines (path, name, signature, docstring: ~10-15 lines of
# code fit in 128 word pieces) carry most of what a meaning query matches; the keyword side
# still reads all of it.
CHUNK_MAX_TOKENS = 128


def chunk_embedder(embedder: Embedder) -> Embedder:
    variant = getattr(embedder, "int8", None)
    return variant(max_length=CHUNK_MAX_TOKENS) if callable(variant) else embedder
