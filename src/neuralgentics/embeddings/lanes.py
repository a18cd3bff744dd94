"""Interactive embedding first: queries and single adds never wait behind bulk indexing.

Every model call (one batch of texts) goes through `Lanes.run(texts, bulk=...)`:

- A **bulk** caller (the indexer: many texts) takes the model one batch at a time and gives
  it back between batches. It starts a batch only while no interactive call is waiting or
  running, so a query that arrives mid-index waits for nothing but CPU time.
- An **interactive** caller takes the main session when it is free. When a bulk batch holds
  it, the caller runs on a second session over the same graph (made on first need, then
  kept: ~100 MiB), instead of waiting out the batch in flight (up to ~0.3 s for 16 long
  chunks on 2 cores). Interactive callers queue behind each other only when both the main
  and the spare session are busy.

Measured with bench/query_during_index.py (docs/benchmarks.md): /memory/query p50 during an
index of >2,000 chunks went from seconds to within 3x of idle.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    import numpy as np


class Encoder(Protocol):
    def encode(self, texts: list[str]) -> np.ndarray: ...


E = TypeVar("E", bound=Encoder)


class Lanes(Generic[E]):
    """Schedules model calls on a main encoder and, for interactive calls that would wait
    behind bulk work, a spare one (`make_spare` returns None when the backend cannot have one:
    then they wait for the main encoder, still ahead of every bulk batch)."""

    def __init__(self, main: E, make_spare: Callable[[], E | None]) -> None:
        self.main = main
        self._make_spare = make_spare
        self._spare: E | None = None
        self._spare_unavailable = False
        self._cond = threading.Condition()
        self._main_busy = False
        self._main_bulk = False  # the main encoder is running a bulk batch
        self._spare_busy = False
        self._interactive = 0  # interactive calls waiting or running
        self.bulk_batches = 0  # bulk batches finished (tests read it to check the order)
        self.spare_runs = 0  # interactive batches that ran on the spare encoder

    def run(self, texts: list[str], *, bulk: bool) -> np.ndarray:
        if bulk:
            return self._run_bulk(texts)
        return self._run_interactive(texts)

    def _run_bulk(self, texts: list[str]) -> np.ndarray:
        with self._cond:
            self._cond.wait_for(lambda: not self._main_busy and self._interactive == 0)
            self._main_busy = self._main_bulk = True
        try:
            return self.main.encode(texts)
        finally:
            with self._cond:
                self._main_busy = self._main_bulk = False
                self.bulk_batches += 1
                self._cond.notify_all()

    def _run_interactive(self, texts: list[str]) -> np.ndarray:
        with self._cond:
            self._interactive += 1
            try:
                self._cond.wait_for(self._interactive_can_go)
                use_main = not self._main_busy
                if use_main:
                    self._main_busy = True
                else:
                    self._spare_busy = True
            except BaseException:
                self._interactive -= 1
                self._cond.notify_all()
                raise
        try:
            if use_main:
                return self.main.encode(texts)
            spare = self._spare_encoder()
            if spare is None:  # no second session for this backend: queue for the main one
                with self._cond:
                    self._spare_busy = False
                    self._cond.wait_for(lambda: not self._main_busy)
                    self._main_busy = use_main = True
                return self.main.encode(texts)
            self.spare_runs += 1
            return spare.encode(texts)
        finally:
            with self._cond:
                if use_main:
                    self._main_busy = False
                else:
                    self._spare_busy = False
                self._interactive -= 1
                self._cond.notify_all()

    def _interactive_can_go(self) -> bool:
        if not self._main_busy:
            return True
        # the main encoder is taken: by a bulk batch we can step around, or by another
        # interactive call we queue behind
        return self._main_bulk and not self._spare_busy and not self._spare_unavailable

    def _spare_encoder(self) -> E | None:
        """Made outside the condition's lock (loading a session takes ~0.1 s); only the one
        interactive caller holding `_spare_busy` gets here, so it is made once."""
        if self._spare is None and not self._spare_unavailable:
            self._spare = self._make_spare()
            if self._spare is None:
                self._spare_unavailable = True
        return self._spare
