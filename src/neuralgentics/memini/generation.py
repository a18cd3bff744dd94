"""The memory generation: a value that changes with every committed write to a memory store,
so a reader that keeps something built from memories (the plugin's context package) knows when
to build it again (issue 27 item 6). Cheaper than expiring it by time, and exact for every
write this process makes: the stores bump it after each write transaction commits, and
memini-core sends it on every response (`HEADER`).

The value is "<epoch>:<n>": the epoch is random per process, so a restarted service never
repeats a value a client saw before it restarted. Writes another process makes directly on
the same database (`--local` commands) are not counted.
"""

from __future__ import annotations

import itertools
import secrets
import threading

HEADER = "X-Neuralgentics-Memory-Generation"


class Generation:
    def __init__(self) -> None:
        self._epoch = secrets.token_hex(4)
        self._count = itertools.count(1)
        self._n = 0
        self._lock = threading.Lock()

    def bump(self) -> None:
        with self._lock:
            self._n = next(self._count)

    @property
    def value(self) -> str:
        return f"{self._epoch}:{self._n}"
