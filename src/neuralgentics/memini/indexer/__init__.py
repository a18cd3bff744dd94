"""The project indexer: every file of a repository, chunked, embedded, searchable, kept fresh."""

from __future__ import annotations

from neuralgentics.config import Settings
from neuralgentics.memini.indexer.chunkstore import ChunkStore, ProjectInfo
from neuralgentics.memini.indexer.indexing import IndexReport, IndexStatus, index_project
from neuralgentics.memini.indexer.search import SearchHit, find_project, search_project
from neuralgentics.memini.indexer.selection import resolve_root, select_files

__all__ = [
    "ChunkStore",
    "IndexReport",
    "IndexStatus",
    "ProjectInfo",
    "SearchHit",
    "chunk_store_for",
    "find_project",
    "index_project",
    "open_chunk_store",
    "resolve_root",
    "search_project",
    "select_files",
]


def open_chunk_store(settings: Settings) -> ChunkStore:
    """The chunk store of the configured database (PostgreSQL if a URL is set, else SQLite)."""
    if settings.database_url:
        from neuralgentics.memini.indexer.chunkstore_postgres import PostgresChunkStore
        from neuralgentics.memini.store.postgres import PostgresStore

        return PostgresChunkStore(PostgresStore(settings.database_url), owns_store=True)
    from neuralgentics.memini.indexer.chunkstore_sqlite import SQLiteChunkStore
    from neuralgentics.memini.store.sqlite import SQLiteStore

    return SQLiteChunkStore(SQLiteStore(settings.sqlite_path), owns_store=True)


def chunk_store_for(store: object) -> ChunkStore:
    """The chunk store over an already open memory store (the service shares its store)."""
    if getattr(store, "kind", None) == "postgres":
        from neuralgentics.memini.indexer.chunkstore_postgres import PostgresChunkStore

        return PostgresChunkStore(store)  # type: ignore[arg-type]
    from neuralgentics.memini.indexer.chunkstore_sqlite import SQLiteChunkStore

    return SQLiteChunkStore(store)  # type: ignore[arg-type]
