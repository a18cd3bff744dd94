"""The second phase of a run: vectors for the chunks the first phase wrote without one.

The first phase writes every changed file's chunks with the vectors it already has (the same
text embedded before, in any project) and none for new text, so keyword search answers as
soon as the files are read. This phase then embeds what is left, shortest first in batches of
similar length, one transaction per batch, and reports chunks embedded, the rate and an
estimate of the time left. Stopped at any point, it resumes where it was on the next run:
whatever still has no vector is what is left.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from neuralgentics.embeddings import Embedder
from neuralgentics.memini.indexer import chunk_model
from neuralgentics.memini.indexer.chunkstore import ChunkStore

# Texts per model call and per transaction: the model sorts a call by length and splits it by
# padded tokens, so a few hundred keep batches full; a stop loses at most this many.
EMBED_BATCH = 128
# Written vectors reach SQLite's HNSW file this often (searches sync it from the rows anyway).
SAVE_EVERY_S = 30.0
# Characters per word piece in code, about: the model reads `CHUNK_MAX_TOKENS` pieces of a
# text, so what lies beyond costs nothing and does not count toward the estimate.
_CHARS_PER_PIECE = 4


def _cost(text: str) -> int:
    return min(len(text), _CHARS_PER_PIECE * chunk_model.CHUNK_MAX_TOKENS)


@dataclass
class Backfill:
    """Progress of the vector phase (also the fields of `IndexStatus`)."""

    total: int = 0  # texts to embed this run
    done: int = 0
    rate: float | None = None  # texts per second so far
    eta_s: float | None = None  # seconds left, from the share of work done


def embed_pending(
    project: str,
    store: ChunkStore,
    embedder: Embedder,
    on_progress: Callable[[Backfill], None],
) -> int:
    """Embed every chunk text of `project` still without a vector; returns how many."""
    pending = store.pending_embeddings(project)
    if not pending:
        return 0
    pending.sort(key=lambda item: len(item[1]))
    state = Backfill(total=len(pending))
    on_progress(state)
    work = sum(_cost(text) for _, text in pending)
    worked = 0
    started = last_save = time.perf_counter()
    for start in range(0, len(pending), EMBED_BATCH):
        part = pending[start : start + EMBED_BATCH]
        vectors = embedder.embed([text for _, text in part])
        store.set_embeddings(
            {h: np.asarray(vec, dtype=np.float32) for (h, _), vec in zip(part, vectors)}
        )
        state.done += len(part)
        worked += sum(_cost(text) for _, text in part)
        now = time.perf_counter()
        elapsed = max(now - started, 1e-9)
        state.rate = state.done / elapsed
        state.eta_s = (work - worked) * elapsed / worked if worked else None
        if now - last_save >= SAVE_EVERY_S:
            store.refresh_vectors()
            last_save = now
        on_progress(state)
    return state.done
