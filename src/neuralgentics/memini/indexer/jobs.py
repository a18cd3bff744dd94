"""Indexing runs in the background of the service: one job per project at a time.

Asking to index a project that is already being indexed returns the running job instead of
starting a second one, so a client may ask as often as it likes.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from neuralgentics.embeddings import Embedder
from neuralgentics.memini.indexer.chunkstore import ChunkStore
from neuralgentics.memini.indexer.indexing import IndexStatus, index_project
from neuralgentics.memini.indexer.selection import resolve_root

log = logging.getLogger(__name__)

KEEP_FINISHED = 100  # finished jobs remembered for GET /project/index/{job}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class Job:
    id: str
    project: str
    status: str = "queued"  # queued, running, done, failed
    progress: IndexStatus = field(default_factory=IndexStatus)
    report: dict | None = None
    error: str | None = None
    created_at: str = field(default_factory=_now)
    finished_at: str | None = None

    def as_dict(self) -> dict:
        data = asdict(self)
        data["progress"] = asdict(self.progress)
        return data


class JobManager:
    def __init__(self, store: Callable[[], ChunkStore], embedder: Embedder) -> None:
        self._store = store
        self._embedder = embedder
        self._jobs: dict[str, Job] = {}
        self._running: dict[str, str] = {}  # project → job id
        self._lock = threading.Lock()

    def start(self, path: str) -> tuple[Job, bool]:
        """(job, started): the running job for this project, or a new one."""
        project = str(resolve_root(path))  # a bad path fails here, before any job exists
        with self._lock:
            running = self._running.get(project)
            if running is not None:
                return self._jobs[running], False
            job = Job(id=uuid.uuid4().hex, project=project)
            self._jobs[job.id] = job
            self._running[project] = job.id
            self._forget_old()
        thread = threading.Thread(
            target=self._run, args=(job,), name=f"index-{job.id[:8]}", daemon=True
        )
        thread.start()
        return job, True

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def wait(self, job_id: str, timeout: float) -> Job | None:
        """For tests and scripts: block until the job ends or `timeout` passes."""
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            job = self.get(job_id)
            if job is None or job.status in ("done", "failed"):
                return job
            time.sleep(0.05)
        return self.get(job_id)

    def _run(self, job: Job) -> None:
        job.status = "running"

        def progress(status: IndexStatus) -> None:
            job.progress = IndexStatus(**asdict(status))

        try:
            report = index_project(
                job.project, self._store(), embedder=self._embedder, progress=progress
            )
            job.report = report.as_dict()
            job.status = "done"
        except Exception as exc:
            log.exception("indexing %s failed", job.project)
            job.error = str(exc) or exc.__class__.__name__
            job.status = "failed"
        finally:
            job.finished_at = _now()
            with self._lock:
                self._running.pop(job.project, None)

    def _forget_old(self) -> None:
        finished = [j for j in self._jobs.values() if j.status in ("done", "failed")]
        for job in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            del self._jobs[job.id]
