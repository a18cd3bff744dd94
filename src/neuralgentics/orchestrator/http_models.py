"""The orchestrator routes' answers as pydantic models: what /openapi.json documents, and what
FastAPI checks each answer against. They mirror the dataclasses the orchestrator returns
(`routing.RouteDecision`, `context.ContextPackage`, `protocol.TaskRecord`, `skills.Skill`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class TypeRouteOut(BaseModel):
    task_type: str
    label: str
    probability: float
    primary: str
    forbidden: list[str]
    verify_with: list[str]


class RouteOut(BaseModel):
    task: str
    task_type: str
    label: str
    confidence: float
    ambiguous: bool
    primary_agent: str
    forbidden_agents: list[str]
    verify_with: list[str]
    candidates: list[TypeRouteOut]
    reasons: list[str]
    delegable: bool = True
    recognised: bool = True
    agent: str | None = None
    allowed: bool | None = None
    allowed_reason: str | None = None
    suggested_agents: list[str] = []


class SkillSummaryOut(BaseModel):
    id: str
    name: str
    description: str
    model: str | None = None
    agents: list[str] = []
    task_types: list[str] = []
    path: str = ""
    origin: str = ""
    form: str = ""
    shadows: list[str] = []
    extra: dict[str, Any] = {}


class SkillOut(SkillSummaryOut):
    body: str


class SkillProblemOut(BaseModel):
    path: str
    line: int
    problem: str


class SkillsOut(BaseModel):
    skills: list[SkillSummaryOut]
    problems: list[SkillProblemOut]


class ContextItemOut(BaseModel):
    kind: str
    id: str
    title: str
    text: str
    value: float
    tokens: int = 0
    why: str = ""
    trust_score: float | None = None
    relevance: float | None = None
    truncated: bool = False


class DroppedItemOut(BaseModel):
    kind: str
    id: str
    reason: str


class ContextOut(BaseModel):
    task: str
    agent: str
    task_type: str
    budget_tokens: int
    tokens: int
    items: list[ContextItemOut]
    dropped: list[DroppedItemOut]
    markdown: str
    memory_ids: list[str]
    warnings: list[str] = []


class RosterOut(BaseModel):
    agents: list[dict[str, Any]]
    task_types: list[dict[str, Any]]


class StepRecordOut(BaseModel):
    step: str
    number: int
    at: str
    data: dict[str, Any] = {}


class TaskOut(BaseModel):
    id: str
    session: str
    task: str
    project: str | None
    created_at: str
    updated_at: str
    steps: list[StepRecordOut] = []
    status: str = "open"
    task_type: str | None = None
    agent: str | None = None
    context_memory_ids: list[str] = []
    result_summary: str | None = None
    result_memory_id: str | None = None
    project_dir: str | None = None
    version: int = 0
    next_step: str | None = None
    # waiting for its verification longer than NEURALGENTICS_TASK_STALL_SECONDS
    stalled: bool = False
    # while it waits for its verification: the agents that may verify it
    waiting_for: list[str] = []


class TasksOut(BaseModel):
    tasks: list[TaskOut]


class StepOut(BaseModel):
    task: TaskOut
    output: dict[str, Any]


class CloseOut(BaseModel):
    task: TaskOut
    output: dict[str, Any]
