"""One indexing run: select files, find what changed, chunk and write that, then embed it.

Two phases, so that a user does not wait for the model: first every changed file is read,
chunked and written (keyword search answers from then on), then the chunks whose text has no
vector yet are embedded behind it (`backfill.py`), with progress in chunks, a rate and an
estimate. Search says how much of the project has its vectors meanwhile.

Incremental by construction. A file whose size and modification time match what was stored is
not even read; one whose bytes hash the same is only re-stamped; a changed one is re-chunked,
and each chunk's text is looked up by hash before anything is embedded, so an edit re-embeds
only the chunks it touched. The model is loaded only when some chunk text is new.

Each write is one transaction holding whole files (their chunks and their file row together),
so a run stopped at any point (Ctrl-C, a crash) leaves every file as it was or as it is now;
the next run finds the rest by comparing hashes, embeds whatever still has no vector, and
finishes the job.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from neuralgentics.embeddings import Embedder
from neuralgentics.memini.indexer.backfill import Backfill, embed_pending
from neuralgentics.memini.indexer.chunk_model import chunk_embedder
from neuralgentics.memini.indexer.chunking import Chunk, chunk_file, render
from neuralgentics.memini.indexer.chunkstore import (
    ChunkStore,
    FileState,
    FileWrite,
    NewChunk,
    identifier_terms,
)
from neuralgentics.memini.indexer.languages import language_of
from neuralgentics.memini.indexer.secrets import token_in
from neuralgentics.memini.indexer.selection import (
    MAX_FILE_BYTES,
    Candidate,
    Skipped,
    decode_text,
    resolve_root,
    select_files,
)
from neuralgentics.text import plural

log = logging.getLogger(__name__)

# Chunks gathered before one transaction: few transactions, and an interrupted run loses little.
BATCH_CHUNKS = 256
# The vectors of an index written before runs recorded which model made them.
LEGACY_VECTORS = "all-MiniLM-L6-v2+int8-weights"


@dataclass
class IndexStatus:
    """A snapshot of a run, for progress bars and the HTTP job view."""

    phase: str = "scanning"  # scanning, indexing (reading files), embedding, vectors, done
    files_total: int = 0  # files that need reading this run
    files_done: int = 0
    chunks: int = 0  # chunks written this run
    embedded: int = 0  # chunk texts sent to the model this run
    to_embed: int = 0  # chunk texts the embedding phase has to embed
    rate: float | None = None  # chunk texts embedded per second
    eta_s: float | None = None  # seconds left until every chunk has its vector
    keyword_ready: bool = False  # every file is written: keyword search sees all of them


@dataclass
class IndexReport:
    project: str
    files: int = 0  # files in the index after the run
    new: int = 0
    changed: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    chunks: int = 0  # chunks written this run
    embedded: int = 0  # chunk texts embedded this run
    reused: int = 0  # chunk texts whose stored embedding was reused
    secret_chunks: int = 0  # chunks left out because they hold a token (secrets.py)
    seconds: float = 0.0
    keyword_seconds: float = 0.0  # until every file was written (keyword search complete)
    vectors: str | None = None  # the model that made the vectors (a change re-embeds all)

    def summary(self) -> str:
        return (
            f"{self.project}: {plural(self.files, 'file')} indexed ({self.new} new,"
            f" {self.changed} changed, {self.unchanged} unchanged), {self.removed} removed,"
            f" {len(self.skipped)} skipped; {plural(self.chunks, 'chunk')} written"
            f" ({self.embedded} embedded, {self.reused} reused) in {self.seconds:.2f} s"
        )

    def as_dict(self) -> dict:
        return {
            "project": self.project,
            "files": self.files,
            "new": self.new,
            "changed": self.changed,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "skipped": len(self.skipped),
            "chunks": self.chunks,
            "embedded": self.embedded,
            "reused": self.reused,
            "secret_chunks": self.secret_chunks,
            "seconds": round(self.seconds, 3),
            "keyword_seconds": round(self.keyword_seconds, 3),
            "vectors": self.vectors,
        }


ProgressCallback = Callable[[IndexStatus], None]


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_stable(path: Path) -> tuple[bytes, os.stat_result] | None:
    """The file's bytes and the stat they belong to, or None if it kept changing under us."""
    for _ in range(2):
        # O_NONBLOCK: a file swapped for a FIFO since the walk must not hang the run
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            before = os.fstat(fd)
            with os.fdopen(fd, "rb", closefd=False) as fh:
                data = fh.read()
            after = os.fstat(fd)
        finally:
            os.close(fd)
        if (before.st_mtime_ns, before.st_size) == (after.st_mtime_ns, after.st_size) and len(
            data
        ) == after.st_size:
            return data, after
    return None


def make_chunks(path: str, language: str, text: str) -> list[tuple[str, str, Chunk]]:
    """(rendered text, hash, chunk) for each chunk of a file."""
    out = []
    for chunk in chunk_file(path, language, text):
        content = render(path, language, chunk)
        out.append((content, content_hash(content.encode("utf-8")), chunk))
    return out


def index_project(
    path: str | os.PathLike[str],
    store: ChunkStore,
    *,
    embedder: Embedder,
    progress: ProgressCallback | None = None,
    max_file_bytes: int = MAX_FILE_BYTES,
    rehash: bool = False,
) -> IndexReport:
    """Bring the index of the project at `path` in step with its files."""
    started = time.perf_counter()
    root = resolve_root(path)
    project = str(root)
    status = IndexStatus()
    report = IndexReport(project)

    def tell() -> None:
        if progress is not None:
            progress(status)

    tell()
    selection = select_files(root, max_file_bytes=max_file_bytes)
    report.skipped = list(selection.skipped)
    store.begin_run(project)
    embedder = chunk_embedder(embedder)
    report.vectors = getattr(embedder, "vectors_id", None)
    _same_model_or_clear(project, store, report.vectors)
    known = store.file_states(project)
    present = {c.path for c in selection.candidates}
    removed = sorted(p for p in known if p not in present)
    if removed:
        store.write(project, [], removed=removed)
    report.removed = len(removed)

    todo: list[Candidate] = []
    for cand in selection.candidates:
        old = known.get(cand.path)
        if (
            old is not None
            and not rehash
            and (old.size, old.mtime_ns) == (cand.size, cand.mtime_ns)
        ):
            report.unchanged += 1
        else:
            todo.append(cand)
    status.phase, status.files_total = "indexing", len(todo)
    tell()

    batch = _Batch(project, store, report, status, tell)
    for cand in todo:
        batch.add(cand, known.get(cand.path))
        if batch.pending >= BATCH_CHUNKS:
            batch.flush()
    batch.flush()
    report.keyword_seconds = time.perf_counter() - started
    status.keyword_ready = True
    tell()

    def embedding(fill: Backfill) -> None:
        status.phase, status.to_embed, status.embedded = "embedding", fill.total, fill.done
        status.rate, status.eta_s = fill.rate, fill.eta_s
        tell()

    report.embedded = embed_pending(project, store, embedder, embedding)
    if report.embedded:
        status.eta_s = 0.0
    if report.chunks or report.removed or batch.dropped or report.embedded:
        # searches bring the vector index in step by themselves (vector_log); this saves it
        status.phase = "vectors"
        tell()
        store.refresh_vectors()
    report.files = len(store.file_states(project))
    report.seconds = time.perf_counter() - started
    store.finish_run(project, report.as_dict())
    status.phase = "done"
    tell()
    return report


def _same_model_or_clear(project: str, store: ChunkStore, vectors: str | None) -> None:
    """Vectors of two models do not compare: a project embedded by another one is embedded
    again (its keyword index stays as it is meanwhile)."""
    info = store.project(project)
    if vectors is None or info is None or not info.embedded or not info.last_run:
        return  # nothing embedded, or no finished run to say by what
    before = info.last_run.get("vectors") or LEGACY_VECTORS
    if before != vectors:
        log.info("%s: vectors of %s, now %s: embedding again", project, before, vectors)
        store.clear_embeddings(project)


class _Batch:
    """Files read and chunked, waiting for one embed call and one transaction."""

    def __init__(
        self,
        project: str,
        store: ChunkStore,
        report: IndexReport,
        status: IndexStatus,
        tell: Callable[[], None],
    ) -> None:
        self.project, self.store, self.report, self.status = project, store, report, status
        self.tell = tell
        self.read = 0  # files taken in so far; reported as done once written
        self.files: list[tuple[FileState, list[tuple[str, str, Chunk]], bool]] = []
        self.touched: list[FileState] = []
        self.removed: list[str] = []
        self.pending = 0
        self.dropped = 0

    def add(self, cand: Candidate, old: FileState | None) -> None:
        self.read += 1
        try:
            stable = _read_stable(cand.abspath)
        except FileNotFoundError:
            self._skip(cand.path, "vanished while indexing", old, keep=False)
            return
        except OSError as exc:
            self._skip(cand.path, f"unreadable: {exc.strerror or exc}", old, keep=False)
            return
        if stable is None:
            # the old chunks stay until the file holds still; the next run picks it up
            self._skip(
                cand.path, "changed while being read (indexed on the next run)", old, keep=True
            )
            return
        data, st = stable
        digest = content_hash(data)
        language = language_of(cand.path)
        if old is not None and old.content_hash == digest:
            self.touched.append(
                FileState(cand.path, digest, st.st_mtime_ns, st.st_size, old.language, old.chunks)
            )
            self.report.unchanged += 1
            return
        text, why = decode_text(data)
        if text is None:
            self._skip(cand.path, why or "not text", old, keep=False)
            return
        chunks = self._without_secrets(cand.path, text, make_chunks(cand.path, language, text))
        state = FileState(cand.path, digest, st.st_mtime_ns, st.st_size, language, len(chunks))
        self.files.append((state, chunks, old is None))
        self.pending += len(chunks)

    def _without_secrets(
        self, path: str, text: str, chunks: list[tuple[str, str, Chunk]]
    ) -> list[tuple[str, str, Chunk]]:
        """The chunks without those that hold a token of a well-known shape (the file's other
        chunks are still worth finding). One scan of the file first: most hold none."""
        if token_in(text) is None:
            return chunks
        kept = []
        for chunk in chunks:
            kind = token_in(chunk[0])
            if kind is None:
                kept.append(chunk)
            else:
                self.report.secret_chunks += 1
                log.warning(
                    "%s lines %d-%d left out of the index: they hold a %s",
                    path,
                    chunk[2].start_line,
                    chunk[2].end_line,
                    kind,
                )
        return kept

    def _skip(self, path: str, reason: str, old: FileState | None, *, keep: bool) -> None:
        self.report.skipped.append(Skipped(path, reason))
        if old is not None and not keep:
            self.removed.append(path)
            self.report.removed += 1
            self.dropped += 1

    def flush(self) -> None:
        if not (self.files or self.touched or self.removed):
            self.status.files_done = self.read
            self.tell()
            return
        hashes = [h for _, chunks, _ in self.files for _, h, _ in chunks]
        # text embedded before (here or in another project) keeps its vector; the rest waits
        # for the embedding phase, so the model never holds up the keyword index
        vectors = self.store.known_embeddings(hashes) if hashes else {}
        self.report.reused += sum(1 for h in hashes if h in vectors)
        writes = []
        for state, chunks, is_new in self.files:
            writes.append(
                FileWrite(
                    state,
                    [
                        NewChunk(
                            content=text,
                            chunk_hash=h,
                            start_line=c.start_line,
                            end_line=c.end_line,
                            language=state.language,
                            symbol=c.symbol,
                            kind=c.kind,
                            terms=identifier_terms(text),
                            embedding=vectors.get(h),
                        )
                        for text, h, c in chunks
                    ],
                )
            )
            if is_new:
                self.report.new += 1
            else:
                self.report.changed += 1
        self.store.write(self.project, writes, removed=self.removed, touched=self.touched)
        written = sum(len(w.chunks) for w in writes)
        self.report.chunks += written
        self.status.chunks += written
        self.status.files_done = self.read
        self.files, self.touched, self.removed, self.pending = [], [], [], 0
        self.tell()
