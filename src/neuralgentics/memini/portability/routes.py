"""`GET /memory/export` and `POST /memory/import`: the same library calls as the CLI's
`memory export` / `memory import`, behind the service's credential like every route."""

from __future__ import annotations

import tempfile
from typing import Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from neuralgentics.memini import models as m
from neuralgentics.memini import scopes
from neuralgentics.memini.portability.exporter import export_lines
from neuralgentics.memini.portability.importer import import_file, model_id
from neuralgentics.memini.routes import Service

# The import route takes bodies this large (the service's other routes: 4 MiB); the body is
# spooled to a temporary file, not held in memory.
IMPORT_MAX_BYTES = 1 << 30
NDJSON = "application/x-ndjson"
_ERRORS = {"model": m.ErrorResponse}

router = APIRouter(tags=["memory"])


@router.get("/memory/export", responses={200: {"content": {NDJSON: {}}}})
def export(
    svc: Service,
    project: str | None = None,
    agent: str | None = Query(None, description="The agent whose agent memories are exported"),
    session: str | None = Query(None, description="The session whose memories are exported"),
    scope: list[m.ScopeName] | None = Query(
        None, description="Only these scopes (repeatable; as the query's `scopes`)"
    ),
    embeddings: bool = Query(True, description="false: leave vectors out (import re-embeds)"),
) -> StreamingResponse:
    """Every memory (of `project`, when given) as JSON Lines, with trust history and the
    relationships among them (docs/memini.md, "Export and import"). `agent`, `session` and
    `scope` choose memories as a query's do (docs/memini.md, "Scopes")."""
    service = svc()
    owners = scopes.search_owners(project, agent, session, scope)
    lines = export_lines(
        service.store,
        project=project,
        owners=owners,
        embedding_model=model_id(service.embedder),
        with_embeddings=embeddings,
    )
    return StreamingResponse(lines, media_type=NDJSON)


@router.post("/memory/import", responses={409: _ERRORS})
async def import_(
    request: Request,
    svc: Service,
    on_conflict: Literal["fail", "skip"] = "fail",
) -> dict:
    """An export file as the body (JSON Lines). One transaction: a bad line (422, with its
    number) or a conflict with on_conflict=fail (409, each one listed) writes nothing."""
    with tempfile.SpooledTemporaryFile(max_size=8 << 20) as body:
        async for chunk in request.stream():
            body.write(chunk)
        service = svc()
        report = await run_in_threadpool(
            import_file, service.store, service.embedder, body, on_conflict=on_conflict
        )
    return report.to_dict()
