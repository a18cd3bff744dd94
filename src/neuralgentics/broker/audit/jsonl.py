"""Append-only JSONL audit sink, rotated by size.

Every record is ``write(2)``-appended before the call's response is sent, so a crash of
the broker process loses nothing already acknowledged (the kernel holds the bytes). When
the disk itself must have it (power loss, kernel crash) is the ``fsync`` policy:

- ``batch`` (default): a background thread fsyncs at most ``fsync_interval`` after a write;
  group commit keeps the call path free of the disk's latency (~8 ms per fsync measured here).
- ``always``: the call waits until its record is fsync'd (group-committed with concurrent calls).
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from neuralgentics.broker.audit.record import AuditRecord

FsyncPolicy = Literal["batch", "always"]


class JsonlAuditSink:
    def __init__(
        self,
        path: Path,
        max_bytes: int = 50_000_000,
        keep: int = 5,
        fsync: FsyncPolicy = "batch",
        fsync_interval: float = 0.2,
    ) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.keep = keep
        self.fsync = fsync
        self.fsync_interval = fsync_interval
        self._fd: int | None = None
        self._size = 0
        self._written = 0  # sequence number of the last record written
        self._synced = 0  # ... and of the last one known to be on disk
        # fds of rotated files; only the syncer (or flush) fsyncs and closes them.
        self._retired: list[int] = []
        # The hot path takes no lock the syncer holds: a lock shared with a thread that
        # waits for the GIL would make every call wait a thread switch.
        self._lock = threading.Lock()  # waiters and retired fds; never held across I/O
        self._waiters: list[tuple[int, asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- writing ---------------------------------------------------------------------

    def _open(self) -> int:
        if self._fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            self._size = os.fstat(self._fd).st_size
        return self._fd

    def _append(self, line: bytes) -> int:
        # Called from one thread at a time (the broker's event loop).
        data = line + b"\n"
        fd = self._open()
        if self._size and self._size + len(data) > self.max_bytes:
            self._rotate()
            fd = self._open()
        os.write(fd, data)
        self._size += len(data)
        self._written += 1
        if self._thread is None:
            self._thread = threading.Thread(target=self._syncer, name="audit-fsync", daemon=True)
            self._thread.start()
        return self._written

    def write_sync(self, record: AuditRecord) -> None:
        """Append and fsync (for tools and tests outside an event loop)."""
        self._append(record.to_json())
        self.flush()

    async def write(self, record: AuditRecord) -> None:
        seq = self._append(record.to_json())
        if self.fsync != "always":
            return
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        with self._lock:
            self._waiters.append((seq, loop, fut))
        self._wake.set()
        await fut

    def flush(self) -> None:
        """fsync everything written so far, now."""
        # One snapshot under the lock rotation also takes: every record up to `seq` is in a
        # retired fd or in `fd`, and `fd` is closed only by a later pass.
        with self._lock:
            retired, self._retired = self._retired, []
            fd, seq = self._fd, self._written
        for r in retired:
            os.fsync(r)
            os.close(r)
        if fd is not None:
            os.fsync(fd)
        self._synced = max(self._synced, seq)

    def _syncer(self) -> None:
        while True:
            self._wake.wait(self.fsync_interval)
            self._wake.clear()
            stopping = self._stop.is_set()
            error: BaseException | None = None
            if self._synced < self._written or self._retired:
                try:
                    self.flush()
                except OSError as exc:
                    error = exc
            with self._lock:
                done = [w for w in self._waiters if w[0] <= self._synced or error is not None]
                self._waiters = [w for w in self._waiters if w not in done]
            for _, loop, fut in done:
                loop.call_soon_threadsafe(_settle, fut, error)
            if stopping:
                return

    def _rotate(self) -> None:
        # The old fd stays open until the syncer has fsync'd it.
        with self._lock:
            if self._fd is not None:
                self._retired.append(self._fd)
                self._fd = None
        for i in range(self.keep - 1, 0, -1):
            src = self.path.with_name(f"{self.path.name}.{i}")
            if src.exists():
                os.replace(src, self.path.with_name(f"{self.path.name}.{i + 1}"))
        os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))
        oldest = self.path.with_name(f"{self.path.name}.{self.keep + 1}")
        oldest.unlink(missing_ok=True)

    def close(self) -> None:
        t = self._thread
        if t is not None:
            self._stop.set()
            self._wake.set()
            t.join(timeout=10)
        self.flush()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._thread = None
        self._stop.clear()

    # -- reading ---------------------------------------------------------------------

    def files(self) -> list[Path]:
        """Oldest first: audit.jsonl.N … audit.jsonl.1, audit.jsonl."""
        rotated = sorted(
            (p for p in self.path.parent.glob(f"{self.path.name}.*") if p.suffix[1:].isdigit()),
            key=lambda p: -int(p.suffix[1:]),
        )
        return [*rotated, *([self.path] if self.path.exists() else [])]

    def read(self) -> Iterator[AuditRecord]:
        for f in self.files():
            with f.open(encoding="utf-8") as fh:
                for line in fh:
                    line = line.strip()
                    if not line:
                        continue
                    try:
                        yield AuditRecord.from_dict(json.loads(line))
                    except (ValueError, TypeError):
                        continue  # a torn last line from a crash mid-write


def _settle(fut: asyncio.Future[None], error: BaseException | None) -> None:
    if fut.done():
        return
    if error is None:
        fut.set_result(None)
    else:
        fut.set_exception(error)
