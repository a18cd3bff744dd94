"""A tiny stand-in for memini-core's HTTP routes, used only while the real service is absent.

It keeps what it is sent (memories in a list) and answers the routes the plugin calls with
the same JSON shapes, so the plugin's Node tests assert on service state either way.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from fastapi import FastAPI, HTTPException
from pydantic import BaseModel, Field

# The shipped routing matrix, reduced to what the tests exercise.
_RULES = [
    (re.compile(r"\b(architecture|design|trade-?offs?)\b", re.I), "architecture", "architect", {"general", "coder"}),
    (re.compile(r"\b(implement|add|build|create|write|fix)\b", re.I), "implementation", "coder", {"general"}),
]


class MemoryIn(BaseModel):
    content: str = Field(min_length=1)
    source_type: str = "agent"
    project: str | None = None
    tags: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    actor: str | None = None


class QueryIn(BaseModel):
    query: str
    project: str | None = None
    top_k: int = 10


class RouteIn(BaseModel):
    task: str
    agent: str | None = None


class ContextIn(BaseModel):
    agent: str
    task: str = ""


def create_app() -> FastAPI:
    app = FastAPI()
    memories: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/memory/add")
    def add(body: MemoryIn) -> dict[str, Any]:
        m = {"id": str(uuid.uuid4()), **body.model_dump(exclude={"actor"}), "trust_score": 0.5}
        memories.append(m)
        calls.append({"route": "/memory/add", "body": body.model_dump()})
        return {"memory": m, "created": True, "similar": [], "superseded": None}

    @app.get("/memory/{memory_id}")
    def get(memory_id: str) -> dict[str, Any]:
        for m in memories:
            if m["id"] == memory_id:
                return {"memory": m, "trust_history": [], "relationships": []}
        raise HTTPException(404, "no such memory")

    @app.post("/memory/query")
    def query(body: QueryIn) -> dict[str, Any]:
        words = {w for w in re.findall(r"\w+", body.query.lower()) if len(w) > 2}
        hits = [
            m
            for m in memories
            if (body.project in (None, m["project"]))
            and (not words or words & set(re.findall(r"\w+", m["content"].lower())))
        ]
        return {"query": body.query, "hits": [{"memory": m, "score": 1.0} for m in hits[: body.top_k]]}

    @app.post("/orchestrator/route")
    def route(body: RouteIn) -> dict[str, Any]:
        calls.append({"route": "/orchestrator/route", "body": body.model_dump()})
        for pattern, task_type, primary, forbidden in _RULES:
            if pattern.search(body.task):
                allowed = body.agent not in forbidden
                reason = f"{task_type} forbids {body.agent}: delegate to {primary} instead"
                return {"task_type": task_type, "label": task_type, "primary_agent": primary,
                        "forbidden_agents": sorted(forbidden), "agent": body.agent, "allowed": allowed,
                        "allowed_reason": None if allowed else reason,
                        "suggested_agents": [] if allowed else [primary]}
        return {"task_type": "general", "primary_agent": "general", "agent": body.agent, "allowed": True}

    @app.post("/orchestrator/context")
    def context(body: ContextIn) -> dict[str, Any]:
        return {"agent": body.agent, "text": f"# Neuralgentics context for {body.agent}\nTask: {body.task}"}

    @app.get("/_calls")
    def recorded() -> list[dict[str, Any]]:
        return calls

    return app
