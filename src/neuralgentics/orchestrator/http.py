"""HTTP routes of the orchestrator, mounted by memini-core under /orchestrator.

The orchestrator object comes from `request.app.state.orchestrator` when the host app sets
one; inside memini-core one is made that calls its MemoryService directly; in any other app
the process default (memory over HTTP) is used.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field

from neuralgentics.orchestrator.context import DEFAULT_BUDGET, MAX_BUDGET, MIN_BUDGET
from neuralgentics.orchestrator.errors import OrchestratorError
from neuralgentics.orchestrator.service import Orchestrator, default_orchestrator

router = APIRouter(prefix="/orchestrator", tags=["orchestrator"])


_host_lock = threading.Lock()


def _host_orchestrator(request: Request) -> Orchestrator:
    """The app's orchestrator: the one the host set, or, inside memini-core (which exposes its
    MemoryService as `app.state.service`), one that calls memory directly instead of over HTTP."""
    state = request.app.state
    found = getattr(state, "orchestrator", None)
    if isinstance(found, Orchestrator):
        return found
    service = getattr(state, "service", None)
    if not callable(service):
        return default_orchestrator()
    with _host_lock:
        found = getattr(state, "orchestrator", None)
        if not isinstance(found, Orchestrator):
            from neuralgentics.config import get_settings
            from neuralgentics.orchestrator.memini_direct import DirectMemory

            settings = get_settings()
            found = Orchestrator(project_dir=Path.cwd(), config_dir=settings.config_dir,
                                 memory=DirectMemory(service),
                                 store_path=settings.home / "orchestrator.db")
            state.orchestrator = found
        return found


def _orchestrator(request: Request, project_dir: str | None = None) -> Orchestrator:
    return _host_orchestrator(request).for_project(project_dir)


PROJECT_DIR = Field(default=None, max_length=4096,
                    description="Absolute path of the project whose overrides and skills apply (default: the service's)")


def _error(exc: OrchestratorError) -> JSONResponse:
    return JSONResponse(status_code=exc.status, content=exc.to_json())


class RouteRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    project_dir: str | None = PROJECT_DIR
    task: str = Field(min_length=1, max_length=20_000)
    agent: str | None = Field(default=None, min_length=1, max_length=64)


class ContextRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    project_dir: str | None = PROJECT_DIR
    task: str = Field(min_length=1, max_length=20_000)
    agent: str = Field(min_length=1, max_length=64)
    budget_tokens: int = Field(default=DEFAULT_BUDGET, ge=MIN_BUDGET, le=MAX_BUDGET)
    task_type: str | None = None
    format: Literal["json", "markdown"] = "json"


class TaskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    project_dir: str | None = PROJECT_DIR
    task: str = Field(min_length=1, max_length=20_000)
    session: str = Field(min_length=1, max_length=200)


class StepRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    step: str = Field(min_length=1, max_length=32)
    data: dict[str, Any] = Field(default_factory=dict)


@router.post("/route")
def route(body: RouteRequest, request: Request) -> Any:
    try:
        return _orchestrator(request, body.project_dir).route(body.task, body.agent).to_json()
    except OrchestratorError as exc:
        return _error(exc)


@router.get("/skills")
def list_skills(request: Request, project_dir: str | None = None) -> Any:
    try:
        registry = _orchestrator(request, project_dir).skills
        return {
            "skills": [s.to_json(with_body=False) for s in registry.skills()],
            "problems": [p.__dict__ for p in registry.problems()],
        }
    except OrchestratorError as exc:
        return _error(exc)


@router.get("/skills/{skill_id}")
def show_skill(skill_id: str, request: Request, project_dir: str | None = None) -> Any:
    try:
        return _orchestrator(request, project_dir).skills.get(skill_id).to_json()
    except OrchestratorError as exc:
        return _error(exc)


@router.post(
    "/context",
    responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}},
                     "description": "JSON, or markdown when format is 'markdown'"}},
)
def context(body: ContextRequest, request: Request) -> Any:
    try:
        package = _orchestrator(request, body.project_dir).context(body.task, body.agent, body.budget_tokens, task_type=body.task_type)
    except OrchestratorError as exc:
        return _error(exc)
    if body.format == "markdown":
        return PlainTextResponse(package.markdown, headers={"X-Token-Count": str(package.tokens)})
    return package.to_json()


@router.get(
    "/agents-md",
    responses={200: {"content": {"text/markdown": {"schema": {"type": "string"}}}}},
)
def agents_md(request: Request, project_dir: str | None = None) -> Any:
    try:
        return PlainTextResponse(_orchestrator(request, project_dir).agents_md(), media_type="text/markdown")
    except OrchestratorError as exc:
        return _error(exc)


@router.get("/roster")
def roster(request: Request, project_dir: str | None = None) -> Any:
    try:
        config = _orchestrator(request, project_dir).config
        return {
            "agents": [a.model_dump() for a in config.agents.values()],
            "task_types": [t.model_dump(exclude={"keywords", "examples"}) for t in config.task_types.values()],
        }
    except OrchestratorError as exc:
        return _error(exc)


@router.post("/tasks", status_code=201)
def create_task(body: TaskRequest, request: Request) -> Any:
    try:
        return _orchestrator(request, body.project_dir).start_task(body.task, body.session).to_json()
    except OrchestratorError as exc:
        return _error(exc)


@router.post("/tasks/{task_id}/step")
def task_step(task_id: str, body: StepRequest, request: Request) -> Any:
    try:
        record, output = _orchestrator(request).for_task(task_id).step(task_id, body.step, body.data)
    except OrchestratorError as exc:
        return _error(exc)
    return {"task": record.to_json(), "output": output}


@router.get("/tasks")
def list_tasks(request: Request, session: str | None = None, limit: int = 50) -> Any:
    try:
        return {"tasks": [t.to_json() for t in _orchestrator(request).list_tasks(session=session, limit=limit)]}
    except OrchestratorError as exc:
        return _error(exc)


@router.get("/tasks/{task_id}")
def get_task(task_id: str, request: Request) -> Any:
    try:
        return _orchestrator(request).get_task(task_id).to_json()
    except OrchestratorError as exc:
        return _error(exc)
