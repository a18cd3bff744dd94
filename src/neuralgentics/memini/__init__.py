"""memini-core: semantic memory with trust, a memory graph and a project index.

What other areas may use is ``__all__`` below (``tests/test_layers.py`` refuses an import of
anything else from another area); each name loads on first use, so importing this package
loads nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from neuralgentics.lazy import lazy_getattr

if TYPE_CHECKING:
    from neuralgentics.memini.dates import said_on
    from neuralgentics.memini.errors import NotFound
    from neuralgentics.memini.indexer import chunk_store_for, find_project, search_project
    from neuralgentics.memini.indexer.chunkstore import ChunkStore
    from neuralgentics.memini.indexer.routes import chunk_store
    from neuralgentics.memini.indexer.selection import decode_text, resolve_root, select_files
    from neuralgentics.memini.provenance import Actor, require_project
    from neuralgentics.memini.scopes import search_owners
    from neuralgentics.memini.service import MemoryService
    from neuralgentics.memini.store import open_store
    from neuralgentics.memini.store.base import MemoryFilter

# name -> the submodule that defines it
_WHERE = {
    "Actor": "provenance",
    "ChunkStore": "indexer.chunkstore",
    "MemoryFilter": "store.base",
    "MemoryService": "service",
    "NotFound": "errors",
    "chunk_store": "indexer.routes",
    "chunk_store_for": "indexer",
    "decode_text": "indexer.selection",
    "find_project": "indexer",
    "open_store": "store",
    "require_project": "provenance",
    "resolve_root": "indexer.selection",
    "said_on": "dates",
    "search_owners": "scopes",
    "search_project": "indexer",
    "select_files": "indexer.selection",
}

__getattr__ = lazy_getattr(__name__, _WHERE)

__all__ = [
    "Actor",
    "ChunkStore",
    "MemoryFilter",
    "MemoryService",
    "NotFound",
    "chunk_store",
    "chunk_store_for",
    "decode_text",
    "find_project",
    "open_store",
    "require_project",
    "resolve_root",
    "said_on",
    "search_owners",
    "search_project",
    "select_files",
]
