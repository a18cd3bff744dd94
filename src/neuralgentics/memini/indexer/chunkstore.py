"""What the indexer needs from a store: files as last indexed, chunks, and two rankings.

SQLite and PostgreSQL each implement `ChunkStore`; the same contract tests run on both. Every
method that writes is one transaction, so an interrupted run leaves each file either as it was
or fully re-indexed, never half.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from neuralgentics.text import CODE_STOPWORDS


@dataclass(frozen=True)
class FileState:
    path: str
    content_hash: str
    mtime_ns: int
    size: int
    language: str
    chunks: int


@dataclass(frozen=True)
class NewChunk:
    content: str  # header line + source: what is shown and what was embedded
    chunk_hash: str
    start_line: int
    end_line: int
    language: str
    symbol: str | None
    kind: str
    terms: str
    # None until the run's second phase embeds it: keyword search finds the chunk meanwhile
    embedding: np.ndarray | None


@dataclass
class FileWrite:
    """A file's new state and all its chunks; replaces whatever was stored for the path."""

    state: FileState
    chunks: list[NewChunk]


@dataclass(frozen=True)
class StoredChunk:
    id: str
    project: str
    file_path: str
    content: str
    start_line: int
    end_line: int
    language: str
    symbol: str | None
    kind: str


@dataclass(frozen=True)
class ProjectInfo:
    root: str
    status: str
    created_at: str
    indexed_at: str | None
    files: int
    chunks: int
    last_run: dict = field(default_factory=dict)
    embedded: int = 0  # chunks that have their vector (search by meaning reaches these)


class ChunkStore(Protocol):
    kind: str

    def begin_run(self, project: str) -> None: ...

    def finish_run(self, project: str, summary: dict) -> None: ...

    def file_states(self, project: str) -> dict[str, FileState]: ...

    def known_embeddings(self, hashes: list[str]) -> dict[str, np.ndarray]: ...

    def write(
        self,
        project: str,
        writes: list[FileWrite],
        removed: Sequence[str] = (),
        touched: Sequence[FileState] = (),
    ) -> None: ...

    def pending_embeddings(self, project: str) -> list[tuple[str, str]]:
        """(chunk_hash, content) of each distinct text of the project still without a vector."""
        ...

    def set_embeddings(self, vectors: dict[str, np.ndarray]) -> None:
        """Give every chunk still without a vector whose hash is a key its vector."""
        ...

    def clear_embeddings(self, project: str) -> None:
        """Drop the project's vectors (made by another model): the next phase remakes them."""
        ...

    def forget(self, project: str) -> bool: ...

    def projects(self) -> list[ProjectInfo]: ...

    def project(self, root: str) -> ProjectInfo | None: ...

    def keyword_search(self, project: str, query: str, k: int) -> list[tuple[str, float]]: ...

    def vector_search(self, project: str, vec: np.ndarray, k: int) -> list[tuple[str, float]]: ...

    def chunks(self, ids: list[str]) -> dict[str, StoredChunk]: ...

    def refresh_vectors(self) -> None: ...

    def close(self) -> None: ...


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def split_identifier(name: str) -> list[str]:
    """`parseHTTPConfig_v2` → ['parse', 'http', 'config', 'v', '2']."""
    return [part.lower() for piece in name.split("_") for part in _CAMEL.findall(piece)]


def identifier_terms(text: str) -> str:
    """Words hidden inside camelCase identifiers, which the keyword tokenizer keeps whole."""
    words: dict[str, None] = {}
    for ident in dict.fromkeys(_IDENT.findall(text)):
        parts = split_identifier(ident)
        if len(parts) > 1 or (parts and parts[0] != ident.lower()):
            for part in parts:
                if len(part) > 1:
                    words[part] = None
    return " ".join(words)


def keyword_words(query: str) -> list[str]:
    """The words a keyword query matches on: as typed and split at identifier boundaries,
    without stop words (unless the query is nothing but)."""
    words: dict[str, None] = {}
    for word in re.findall(r"\w+", query, re.UNICODE):
        words[word.lower()] = None
        for part in split_identifier(word):
            if len(part) > 1:
                words[part] = None
    meaningful = [w for w in words if w not in CODE_STOPWORDS]
    return meaningful or list(words)
