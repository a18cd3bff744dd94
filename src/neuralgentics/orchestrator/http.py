"""HTTP routes of the orchestrator, under /orchestrator. The composition root provides the
`Orchestrator` (in memini-core: one that calls the memory service in process); errors are
answered by the app's one error handler.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field

from neuralgentics.errors import Forbidden
from neuralgentics.memini import Actor, require_project
from neuralgentics.orchestrator import http_models as m
from neuralgentics.orchestrator.context import DEFAULT_BUDGET, MAX_BUDGET, MIN_BUDGET
from neuralgentics.orchestrator.service import Orchestrator
from neuralgentics.provided import provided


async def orchestrator(request: Request) -> Orchestrator:
    """The orchestrator the routes call; provided by the composition root."""
    return provided(request, orchestrator)


Orch = Annotated[Orchestrator, Depends(orchestrator)]


async def _bound_project(request: Request) -> Actor:
    """The caller as memini-core sees it: a project credential works in its project only."""
    return Actor.from_principal(getattr(request.state, "principal", None))


By = Annotated[Actor, Depends(_bound_project)]

router = APIRouter(prefix="/orchestrator", tags=["orchestrator"])


PROJECT_DIR = Field(
    default=None,
    max_length=4096,
    description="Absolute path of the project whose overrides and skills apply (default: the service's)",
)


class RouteRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    project_dir: str | None = PROJECT_DIR
    task: str = Field(min_length=1, max_length=20_000)
    agent: str | None = Field(default=None, min_length=1, max_length=64)


MEMORY_PROJECT = Field(
    default=None,
    max_length=1000,
    description="The memory scope (a memory's `project`) to recall from and store into "
    "(default: the service's)",
)


class ContextRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    project_dir: str | None = PROJECT_DIR
    project: str | None = MEMORY_PROJECT
    task: str = Field(min_length=1, max_length=20_000)
    agent: str = Field(min_length=1, max_length=64)
    session: str | None = Field(
        default=None, min_length=1, max_length=200, description="Its memories join the recall"
    )
    budget_tokens: int = Field(default=DEFAULT_BUDGET, ge=MIN_BUDGET, le=MAX_BUDGET)
    task_type: str | None = None
    format: Literal["json", "markdown"] = "json"


class TaskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    project_dir: str | None = PROJECT_DIR
    project: str | None = MEMORY_PROJECT
    task: str = Field(min_length=1, max_length=20_000)
    session: str = Field(min_length=1, max_length=200)


class StepRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    step: str = Field(min_length=1, max_length=32)
    data: dict[str, Any] = Field(default_factory=dict)


@router.post("/route", response_model=m.RouteOut)
def route(body: RouteRequest, orch: Orch) -> Any:
    return orch.for_project(body.project_dir).route(body.task, body.agent).to_json()


@router.get("/skills", response_model=m.SkillsOut)
def list_skills(orch: Orch, project_dir: str | None = None) -> Any:
    registry = orch.for_project(project_dir).skills
    return {
        "skills": [s.to_json(with_body=False) for s in registry.skills()],
        "problems": [p.__dict__ for p in registry.problems()],
    }


@router.get("/skills/{skill_id}", response_model=m.SkillOut)
def show_skill(skill_id: str, orch: Orch, project_dir: str | None = None) -> Any:
    return orch.for_project(project_dir).skills.get(skill_id).to_json()


@router.post(
    "/context",
    response_model=m.ContextOut,
    responses={
        200: {
            "content": {"text/plain": {"schema": {"type": "string"}}},
            "description": "JSON, or markdown when format is 'markdown'",
        }
    },
)
def context(body: ContextRequest, orch: Orch, by: By) -> Any:
    require_project(by, body.project)
    package = orch.for_project(body.project_dir).context(
        body.task,
        body.agent,
        body.budget_tokens,
        task_type=body.task_type,
        project=body.project,
        session=body.session,
    )
    if body.format == "markdown":
        return PlainTextResponse(package.markdown, headers={"X-Token-Count": str(package.tokens)})
    return package.to_json()


@router.get(
    "/agents-md",
    responses={200: {"content": {"text/markdown": {"schema": {"type": "string"}}}}},
)
def agents_md(orch: Orch, project_dir: str | None = None) -> Any:
    return PlainTextResponse(orch.for_project(project_dir).agents_md(), media_type="text/markdown")


@router.get("/roster", response_model=m.RosterOut)
def roster(orch: Orch, project_dir: str | None = None) -> Any:
    config = orch.for_project(project_dir).config
    return {
        "agents": [a.model_dump() for a in config.agents.values()],
        "task_types": [
            t.model_dump(exclude={"keywords", "examples"}) for t in config.task_types.values()
        ],
    }


@router.post("/tasks", status_code=201, response_model=m.TaskOut)
def create_task(body: TaskRequest, orch: Orch, by: By) -> Any:
    require_project(by, body.project)
    return (
        orch.for_project(body.project_dir)
        .start_task(body.task, body.session, project=body.project)
        .to_json()
    )


@router.post("/tasks/{task_id}/step", response_model=m.StepOut)
def task_step(task_id: str, body: StepRequest, orch: Orch, by: By) -> Any:
    if by.bound:
        require_project(by, orch.get_task(task_id).project, field="task_id")
    record, output = orch.for_task(task_id).step(task_id, body.step, body.data)
    return {"task": orch.task_view(record), "output": output}


class ResultRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    summary: str = Field(min_length=1, max_length=20_000)


class CloseRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    outcome: Literal["succeeded", "failed"] = "failed"
    summary: str | None = Field(default=None, min_length=1, max_length=20_000)


@router.post("/tasks/{task_id}/result", response_model=m.TaskOut)
def task_result(task_id: str, body: ResultRequest, orch: Orch, by: By) -> Any:
    """The delegated agent's answer, kept while the task waits for its verification."""
    if by.bound:  # a project's credential keeps answers of its own project's tasks only
        require_project(by, orch.get_task(task_id).project, field="task_id")
    return orch.task_view(orch.record_result(task_id, body.summary))


@router.post("/tasks/{task_id}/close", response_model=m.CloseOut)
def close_task(task_id: str, body: CloseRequest, orch: Orch) -> Any:
    """End a task waiting for its verification, by the user's word (`neuralgentics task close`)."""
    record, output = orch.for_task(task_id).close_task(task_id, body.outcome, body.summary)
    return {"task": orch.task_view(record), "output": output}


@router.post("/tasks/{task_id}/resume", response_model=m.TaskOut)
def resume_task(task_id: str, orch: Orch) -> Any:
    """Restart a stalled task's clock; its session's next turn reminds the orchestrator."""
    return orch.task_view(orch.resume_task(task_id))


@router.get("/tasks", response_model=m.TasksOut)
def list_tasks(
    request: Request,
    orch: Orch,
    session: str | None = None,
    limit: int = 50,
    stalled: bool = False,
) -> Any:
    # a project credential (the plugin's) sees one session's tasks, whose id it holds
    if getattr(getattr(request.state, "principal", None), "project", None) is not None and (
        not session or stalled
    ):
        raise Forbidden("a project credential lists only one session's tasks (?session=ID)")
    records = orch.stalled_tasks() if stalled else orch.list_tasks(session=session, limit=limit)
    return {"tasks": [orch.task_view(t) for t in records]}


@router.get("/tasks/{task_id}", response_model=m.TaskOut)
def get_task(task_id: str, orch: Orch) -> Any:
    return orch.task_view(orch.get_task(task_id))
