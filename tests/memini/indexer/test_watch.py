"""`index --watch`: a change on disk reaches the index without anyone asking."""

from __future__ import annotations

import queue
import threading
from pathlib import Path

from indexer_support import write

from neuralgentics.app.process import shared_embedder
from neuralgentics.memini.indexer.search import search_project
from neuralgentics.memini.indexer.watch import watch_project


def test_watch_picks_up_a_burst_of_changes(sqlite_chunks, tmp_path: Path) -> None:
    root = tmp_path / "w"
    write(root, "a.py", "def alpha():\n    return 1\n")
    reports: queue.Queue = queue.Queue()
    stop = threading.Event()
    thread = threading.Thread(
        target=watch_project,
        args=(root, sqlite_chunks),
        kwargs={
            "embedder": shared_embedder(),
            "on_report": reports.put,
            "stop": stop,
            "debounce_ms": 300,
            "max_runs": 10,
        },
        daemon=True,
    )
    thread.start()
    try:
        first = reports.get(timeout=60)
        assert first.new == 1
        # several saves in quick succession settle into one run
        for i in range(5):
            write(
                root,
                f"b{i}.py",
                f"def compute_shipping_cost_{i}(weight):\n    return weight * {i}\n",
            )
        added = reports.get(timeout=60).new
        while added < 5:  # the burst may straddle two runs on a slow machine
            added += reports.get(timeout=60).new
        hits = search_project(
            sqlite_chunks,
            str(root.resolve()),
            "compute shipping cost",
            top_k=5,
            embedder=shared_embedder(),
        )
        assert {h.file_path for h in hits} >= {f"b{i}.py" for i in range(5)}
    finally:
        stop.set()
        thread.join(timeout=10)
    assert not thread.is_alive()
