"""Append-only JSONL audit sink: rotated by size, fsync'd before a call is acknowledged.

Writes go through one thread that group-commits: every record queued while a write+fsync
was running is written and fsync'd together, so 16 concurrent calls cost one fsync, not 16.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import threading
from collections.abc import Iterator
from pathlib import Path

from neuralgentics.broker.audit.record import AuditRecord

_STOP = object()


class JsonlAuditSink:
    def __init__(self, path: Path, max_bytes: int = 50_000_000, keep: int = 5) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.keep = keep
        self._q: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def _ensure_thread(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._thread = threading.Thread(target=self._run, name="audit-jsonl", daemon=True)
                self._thread.start()

    async def write(self, record: AuditRecord) -> None:
        """Return once the record is on disk (written and fsync'd)."""
        self._ensure_thread()
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._q.put((record.to_json(), loop, fut))
        await fut

    def write_sync(self, record: AuditRecord) -> None:
        self._append([record.to_json()])

    def close(self) -> None:
        with self._lock:
            t = self._thread
            self._thread = None
        if t is not None and t.is_alive():
            self._q.put(_STOP)
            t.join(timeout=5)

    def _run(self) -> None:
        while True:
            item = self._q.get()
            batch = [item]
            while True:
                try:
                    batch.append(self._q.get_nowait())
                except queue.Empty:
                    break
            stop = any(b is _STOP for b in batch)
            jobs = [b for b in batch if b is not _STOP]
            error: BaseException | None = None
            try:
                if jobs:
                    self._append([j[0] for j in jobs])  # type: ignore[index]
            except BaseException as exc:  # noqa: BLE001 - handed to every waiter
                error = exc
            for _, loop, fut in jobs:  # type: ignore[misc]
                loop.call_soon_threadsafe(_settle, fut, error)
            if stop:
                return

    def _append(self, lines: list[str]) -> None:
        self._rotate_if_needed()
        data = ("\n".join(lines) + "\n").encode("utf-8")
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)

    def _rotate_if_needed(self) -> None:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return
        if size < self.max_bytes:
            return
        for i in range(self.keep - 1, 0, -1):
            src = self.path.with_name(f"{self.path.name}.{i}")
            if src.exists():
                os.replace(src, self.path.with_name(f"{self.path.name}.{i + 1}"))
        os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))

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
