"""HTTP routes of the project index, mounted by memini-core: `app.include_router(create_router())`.

The routes find the store through memini-core's own service (`app.state.service().store`), so
the index lives in the same database as the memories; a caller may hand in a chunk store
instead (tests, other hosts).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Literal

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, Field

from neuralgentics.memini.errors import NotFound
from neuralgentics.memini.indexer.chunkstore import ChunkStore
from neuralgentics.memini.indexer.jobs import JobManager
from neuralgentics.memini.indexer.search import MAX_TOP_K, find_project, search_project


class IndexProgress(BaseModel):
    phase: str
    files_total: int
    files_done: int
    chunks: int
    embedded: int


class IndexJob(BaseModel):
    id: str
    project: str
    status: Literal["queued", "running", "done", "failed"]
    progress: IndexProgress
    report: dict | None = None
    error: str | None = None
    created_at: str
    finished_at: str | None = None


class ProjectSearchRequest(BaseModel):
    query: str = Field(min_length=1, max_length=4000, description="What to look for")
    project: str | None = Field(
        None, description="A path inside an indexed project; default: the only one indexed"
    )
    top_k: int = Field(10, ge=1, le=MAX_TOP_K)
    mode: Literal["hybrid", "keyword", "vector"] = "hybrid"


class ProjectHit(BaseModel):
    file_path: str
    start_line: int
    end_line: int
    language: str
    symbol: str | None
    kind: str
    score: float
    why: str
    content: str
    similarity: float | None


class ProjectSearchResponse(BaseModel):
    project: str
    query: str
    hits: list[ProjectHit]


class ProjectSummary(BaseModel):
    root: str
    status: str
    files: int
    chunks: int
    indexed_at: str | None
    last_run: dict


def create_router(
    chunk_store: Callable[[], ChunkStore] | None = None, embedder: object | None = None
) -> APIRouter:
    router = APIRouter(prefix="/project", tags=["project"])
    holder: dict[str, ChunkStore] = {}
    lock = threading.Lock()
    app_ref: dict[str, object] = {}

    def store() -> ChunkStore:
        if chunk_store is not None:
            return chunk_store()
        with lock:
            if "store" not in holder:
                from neuralgentics.memini.indexer import chunk_store_for

                holder["store"] = chunk_store_for(app_ref["app"].state.service().store)  # type: ignore[attr-defined]
            return holder["store"]

    jobs = JobManager(store)

    def bind(request: Request) -> None:
        app_ref.setdefault("app", request.app)

    @router.get("/index", response_model=IndexJob, responses={202: {"model": IndexJob}})
    def start_index(
        request: Request,
        response: Response,
        path: str = Query(..., min_length=1, description="Root directory of the project"),
    ) -> IndexJob:
        """Start indexing a project in the background (202), or report the run already going (200)."""
        bind(request)
        job, started = jobs.start(path)
        response.status_code = 202 if started else 200
        return IndexJob.model_validate(job.as_dict())

    @router.get("/index/{job_id}", response_model=IndexJob)
    def job_status(request: Request, job_id: str) -> IndexJob:
        """Progress of an indexing job, and its report once done."""
        bind(request)
        job = jobs.get(job_id)
        if job is None:
            raise NotFound(f"no indexing job {job_id}", field="job")
        return IndexJob.model_validate(job.as_dict())

    @router.get("/list", response_model=list[ProjectSummary])
    def list_projects(request: Request) -> list[ProjectSummary]:
        """Indexed projects with their file and chunk counts."""
        bind(request)
        return [
            ProjectSummary(root=p.root, status=p.status, files=p.files, chunks=p.chunks,
                           indexed_at=p.indexed_at, last_run=p.last_run)
            for p in store().projects()
        ]

    @router.post("/search", response_model=ProjectSearchResponse)
    def search(request: Request, body: ProjectSearchRequest) -> ProjectSearchResponse:
        """Find code by meaning and keyword; each hit carries its place, symbol and why it ranked."""
        bind(request)
        cs = store()
        if body.project is None:
            roots = [p.root for p in cs.projects()]
            if len(roots) != 1:
                raise NotFound(
                    "name the project to search" if roots else "no project is indexed yet",
                    field="project",
                )
            project = roots[0]
        else:
            project = find_project(cs, body.project)
        hits = search_project(cs, project, body.query, top_k=body.top_k, mode=body.mode,
                              embedder=embedder or _service_embedder(request))  # type: ignore[arg-type]
        return ProjectSearchResponse(
            project=project,
            query=body.query,
            hits=[ProjectHit(**{k: v for k, v in h.as_dict().items() if k in ProjectHit.model_fields})
                  for h in hits],
        )

    return router


def _service_embedder(request: Request) -> object | None:
    service = getattr(request.app.state, "service", None)
    lazy_embedder = getattr(service, "embedder", None)
    return lazy_embedder
