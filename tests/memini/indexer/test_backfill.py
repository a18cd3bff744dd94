"""A cold index in two phases: keyword search answers once the files are read, vectors fill in
behind with progress in chunks (rate, estimate), and a stopped run resumes (both stores)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from indexer_support import no_model

from neuralgentics.app.process import shared_embedder
from neuralgentics.memini.indexer import backfill
from neuralgentics.memini.indexer.chunk_model import chunk_embedder
from neuralgentics.memini.indexer.indexing import IndexStatus, index_project
from neuralgentics.memini.indexer.search import answer, search_project


def test_keyword_search_answers_before_any_chunk_is_embedded(
    chunks, repo: Path, monkeypatch
) -> None:
    project = str(repo.resolve())
    monkeypatch.setattr(backfill, "EMBED_BATCH", 4)
    seen: list[IndexStatus] = []
    before_vectors: dict = {}

    def watch(status: IndexStatus) -> None:
        seen.append(IndexStatus(**vars(status)))
        if status.phase == "embedding" and status.embedded == 0 and not before_vectors:
            # the model has embedded nothing yet, and keywords already find every file
            hits = search_project(
                chunks, project, "count_vowels", mode="keyword", embedder=no_model
            )
            before_vectors["hit"] = hits[0].file_path if hits else None
            before_vectors["answer"] = answer(
                chunks, project, "count_vowels", mode="keyword", embedder=no_model
            )

    report = index_project(repo, chunks, embedder=shared_embedder(), progress=watch)
    assert before_vectors["hit"] == "c/vowels.c"
    early = before_vectors["answer"]
    assert early.embedded == 0 and early.chunks == report.chunks
    assert "still being embedded" in early.note
    assert early.hits[0].file_path == "c/vowels.c"  # holds every word: matches well
    embedding = [s for s in seen if s.phase == "embedding"]
    # progress in chunks, moving in steps of the batch, with a rate and an estimate
    assert [s.embedded for s in embedding] == sorted({s.embedded for s in embedding})
    assert embedding[-1].embedded == embedding[-1].to_embed == report.embedded > 4
    assert all(s.keyword_ready for s in embedding)
    assert all(s.rate and s.rate > 0 and s.eta_s is not None for s in embedding[1:])
    assert embedding[-1].eta_s == 0
    assert report.keyword_seconds <= report.seconds
    info = chunks.project(project)
    assert info.status == "ready" and info.embedded == info.chunks
    assert answer(chunks, project, "count vowels", embedder=shared_embedder()).note is None


def test_a_run_stopped_while_embedding_is_finished_without_reading_a_file(
    chunks, repo: Path, monkeypatch
) -> None:
    project = str(repo.resolve())
    monkeypatch.setattr(backfill, "EMBED_BATCH", 3)

    def stop(status: IndexStatus) -> None:
        if status.phase == "embedding" and status.embedded >= 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        index_project(repo, chunks, embedder=shared_embedder(), progress=stop)
    info = chunks.project(project)
    assert info.status == "indexing" and 3 <= info.embedded < info.chunks
    # keywords find every file already; meaning reaches what was embedded
    vector = search_project(
        chunks, project, "ring buffer", mode="vector", embedder=shared_embedder()
    )
    assert len(vector) == info.embedded
    done = index_project(repo, chunks, embedder=shared_embedder())
    assert (done.new, done.changed, done.chunks) == (0, 0, 0)  # no file read again
    assert done.embedded == info.chunks - info.embedded
    after = chunks.project(project)
    assert after.status == "ready" and after.embedded == after.chunks
    assert (
        search_project(
            chunks,
            project,
            "endpoint for kubernetes liveness probe",
            mode="vector",
            embedder=shared_embedder(),
        )[0].symbol
        == "HealthHandler"
    )


class _OtherModel:
    """The same vectors under another model's name: a change of model must re-embed."""

    model_name = "other"
    dim = 384
    vectors_id = "another-model"

    def __init__(self) -> None:
        self.texts = 0

    def embed(self, texts):
        self.texts += len(texts)
        return shared_embedder().embed(texts)


def test_vectors_of_another_model_are_made_again(chunks, repo: Path) -> None:
    project = str(repo.resolve())
    first = index_project(repo, chunks, embedder=shared_embedder())
    # the index embeds with the int8 variant of the configured model
    made_by = chunk_embedder(shared_embedder()).vectors_id
    assert made_by == "all-MiniLM-L6-v2+int8+max128" != shared_embedder().vectors_id
    assert chunks.project(project).last_run["vectors"] == made_by
    # a backend chosen by name is kept for the chunks too (`onnx`: float, as before)
    from neuralgentics.embeddings import MiniLMEmbedder

    assert chunk_embedder(MiniLMEmbedder("onnx")).vectors_id == shared_embedder().vectors_id
    other = _OtherModel()
    again = index_project(repo, chunks, embedder=other)
    assert again.chunks == 0 and again.embedded == first.embedded == other.texts
    assert chunks.project(project).last_run["vectors"] == "another-model"
    assert index_project(repo, chunks, embedder=other).embedded == 0


def _words(n: int, seed: int) -> str:
    import random

    vocabulary = "file data user time value error list name code test".split()  # a piece each
    return " ".join(random.Random(seed).choice(vocabulary) for _ in range(n))


def test_chunks_are_embedded_from_their_first_128_word_pieces_memories_from_256() -> None:
    chunk_model = chunk_embedder(shared_embedder())
    head = _words(150, 1)  # one word piece per word: past 128, well short of 256
    a, b = head + " " + _words(60, 2), head + " " + _words(60, 3)
    va, vb = chunk_model.embed([a, b])
    # what a chunk holds past its first 128 word pieces does not move its vector...
    assert float(va @ vb) > 0.99999
    # ...while the memories' model reads on to 256 and tells the two apart, unchanged
    ma, mb = shared_embedder().embed([a, b])
    assert float(ma @ mb) < 0.999
    from neuralgentics.embeddings import MiniLMEmbedder

    assert np.allclose(ma, MiniLMEmbedder(cache_size=0).embed([a])[0], atol=1e-6)
    # a short text (a query) is read whole either way: the same as the int8 model's vector
    query = "where is the refund of an invoice computed"
    full = MiniLMEmbedder("onnx-int8", cache_size=0).embed([query])[0]
    assert np.allclose(chunk_model.embed([query])[0], full, atol=1e-6)


def test_an_index_embedded_at_256_word_pieces_is_embedded_again(
    chunks, repo: Path, monkeypatch
) -> None:
    from neuralgentics.memini.indexer import chunk_model

    project = str(repo.resolve())
    monkeypatch.setattr(chunk_model, "CHUNK_MAX_TOKENS", 256)  # as the index was before
    first = index_project(repo, chunks, embedder=shared_embedder())
    assert chunks.project(project).last_run["vectors"] == "all-MiniLM-L6-v2+int8"
    monkeypatch.setattr(chunk_model, "CHUNK_MAX_TOKENS", 128)
    again = index_project(repo, chunks, embedder=shared_embedder())
    assert (again.chunks, again.embedded) == (0, first.embedded)  # no file read, all vectors
    info = chunks.project(project)
    assert info.last_run["vectors"] == "all-MiniLM-L6-v2+int8+max128"
    assert info.embedded == info.chunks
