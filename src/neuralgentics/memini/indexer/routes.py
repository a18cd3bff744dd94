"""HTTP routes of the project index, under /project. The composition root provides the chunk
store (over memini-core's own store, so the index lives in the same database as the memories),
the job manager and the embedder through the dependencies below.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from neuralgentics.embeddings import Embedder
from neuralgentics.memini.errors import NotFound
from neuralgentics.memini.indexer.chunkstore import ChunkStore
from neuralgentics.memini.indexer.jobs import JobManager
from neuralgentics.memini.indexer.search import MAX_TOP_K, answer, find_project
from neuralgentics.provided import provided


class IndexProgress(BaseModel):
    phase: str
    files_total: int
    files_done: int
    chunks: int
    embedded: int = Field(description="chunk texts embedded so far this run")
    to_embed: int = Field(0, description="chunk texts the embedding phase has to embed")
    rate: float | None = Field(None, description="chunk texts embedded per second")
    eta_s: float | None = Field(None, description="seconds until every chunk has its vector")
    keyword_ready: bool = Field(False, description="every file written: keywords find them")


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
    hits: list[ProjectHit] = Field(description="the hits that match well (none: see closest)")
    closest: list[ProjectHit] = Field(
        description="when nothing matches well: the nearest few, not to be taken as answers"
    )
    matches_well: bool
    chunks: int = Field(description="chunks in the project's index")
    embedded: int = Field(description="chunks search by meaning reaches (the rest: keywords)")
    note: str | None = Field(
        None, description='"nothing matches well", and how much is embedded while indexing'
    )


class ProjectSummary(BaseModel):
    root: str
    status: str
    files: int
    chunks: int
    embedded: int = Field(description="chunks with their vector (search by meaning reaches them)")
    indexed_at: str | None
    last_run: dict


class IndexRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str = Field(min_length=1, max_length=4096, description="Root directory of the project")


async def chunk_store(request: Request) -> Callable[[], ChunkStore]:
    """The chunk store, as a getter (opened with memini-core's store, on first use)."""
    return provided(request, chunk_store)


async def index_jobs(request: Request) -> JobManager:
    return provided(request, index_jobs)


async def embedder(request: Request) -> Embedder:
    return provided(request, embedder)


Store = Annotated[Callable[[], ChunkStore], Depends(chunk_store)]
Jobs = Annotated[JobManager, Depends(index_jobs)]
Model = Annotated[Embedder, Depends(embedder)]

router = APIRouter(prefix="/project", tags=["project"])


def _start(jobs: JobManager, path: str, response: Response) -> IndexJob:
    job, started = jobs.start(path)
    response.status_code = 202 if started else 200
    return IndexJob.model_validate(job.as_dict())


@router.post("/index", response_model=IndexJob, responses={202: {"model": IndexJob}})
def start_index(jobs: Jobs, body: IndexRequest, response: Response) -> IndexJob:
    """Start indexing a project in the background (202), or report the run already going (200)."""
    return _start(jobs, body.path, response)


@router.get("/index", response_model=IndexJob, responses={202: {"model": IndexJob}})
def start_index_by_get(
    jobs: Jobs,
    response: Response,
    path: str = Query(..., min_length=1, description="Root directory of the project"),
) -> IndexJob:
    """The same as POST /project/index, kept for clients of the original API (a GET that
    starts work: prefer the POST)."""
    return _start(jobs, path, response)


@router.get("/index/{job_id}", response_model=IndexJob)
def job_status(jobs: Jobs, job_id: str) -> IndexJob:
    """Progress of an indexing job, and its report once done."""
    job = jobs.get(job_id)
    if job is None:
        raise NotFound(f"no indexing job {job_id}", field="job")
    return IndexJob.model_validate(job.as_dict())


@router.get("/list", response_model=list[ProjectSummary])
def list_projects(store: Store) -> list[ProjectSummary]:
    """Indexed projects with their file and chunk counts."""
    return [
        ProjectSummary(
            root=p.root,
            status=p.status,
            files=p.files,
            chunks=p.chunks,
            embedded=p.embedded,
            indexed_at=p.indexed_at,
            last_run=p.last_run,
        )
        for p in store().projects()
    ]


@router.post("/search", response_model=ProjectSearchResponse)
def search(store: Store, model: Model, body: ProjectSearchRequest) -> ProjectSearchResponse:
    """Find code by meaning and keyword; each hit carries its place, symbol and why it ranked."""
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
    found = answer(cs, project, body.query, top_k=body.top_k, mode=body.mode, embedder=model)
    data = found.as_dict()
    for key in ("hits", "closest"):
        data[key] = [
            ProjectHit(**{k: v for k, v in h.items() if k in ProjectHit.model_fields})
            for h in data[key]
        ]
    return ProjectSearchResponse(**data)
