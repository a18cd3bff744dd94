"""`index --watch`: re-index when files change, after the burst of changes settles.

watchfiles gathers events for `debounce_ms` after the first one, so saving ten files (a branch
switch, a formatter run) triggers one incremental run, not ten. Each run is the ordinary
incremental one; unchanged files cost a stat each.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from watchfiles import DefaultFilter, watch

from neuralgentics.embeddings import Embedder
from neuralgentics.memini.indexer.chunkstore import ChunkStore
from neuralgentics.memini.indexer.indexing import IndexReport, index_project
from neuralgentics.memini.indexer.selection import MAX_FILE_BYTES, resolve_root

log = logging.getLogger(__name__)

DEBOUNCE_MS = 800


class _Filter(DefaultFilter):
    """watchfiles' default (VCS folders, caches, editor swap files) minus the store's own files."""

    def __init__(self, skip_prefixes: tuple[str, ...]) -> None:
        super().__init__()
        self.skip_prefixes = skip_prefixes

    def __call__(self, change, path: str) -> bool:
        return super().__call__(change, path) and not path.startswith(self.skip_prefixes)


def watch_project(
    path: str | os.PathLike[str],
    store: ChunkStore,
    *,
    embedder: Embedder,
    on_report: Callable[[IndexReport], None] | None = None,
    stop: threading.Event | None = None,
    debounce_ms: int = DEBOUNCE_MS,
    max_file_bytes: int = MAX_FILE_BYTES,
    max_runs: int | None = None,
) -> int:
    """Index now, then after each settled burst of changes until `stop` is set; returns runs."""
    root = resolve_root(path)
    skip: tuple[str, ...] = ()
    db_path = getattr(getattr(store, "store", None), "path", None)
    if db_path is not None:
        skip = (str(Path(db_path).resolve()),)
    runs = 0

    def run() -> None:
        nonlocal runs
        report = index_project(root, store, embedder=embedder, max_file_bytes=max_file_bytes)
        runs += 1
        if on_report is not None:
            on_report(report)

    run()
    if max_runs is not None and runs >= max_runs:
        return runs
    for changes in watch(
        root,
        watch_filter=_Filter(skip),
        debounce=debounce_ms,
        stop_event=stop,
        rust_timeout=1_000,
        yield_on_timeout=False,
        raise_interrupt=True,
    ):
        log.info("%d change(s) under %s", len(changes), root)
        run()
        if max_runs is not None and runs >= max_runs:
            break
    return runs
