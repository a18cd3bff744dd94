"""memini-core's HTTP API (FastAPI). Each route is a thin call into MemoryService."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from neuralgentics import __version__
from neuralgentics.config import Settings, get_settings
from neuralgentics.errors import NeuralgenticsError
from neuralgentics.httpguard import HTTPGuard
from neuralgentics.memini import models as m
from neuralgentics.memini.embeddings import Embedder, get_embedder
from neuralgentics.memini.http_errors import http_response, validation_response
from neuralgentics.memini.request_text import check_request_text
from neuralgentics.memini.service import MAX_OFFSET, MemoryService
from neuralgentics.memini.store import open_store
from neuralgentics.memini.indexer.routes import create_router as create_index_router
from neuralgentics.memini.store.base import MemoryFilter, Store
from neuralgentics.orchestrator.http import router as orchestrator_router
from neuralgentics.ui import PUBLIC_PATHS as UI_PUBLIC_PATHS
from neuralgentics.ui import router as ui_router
from neuralgentics.ui.session import SESSION_ROUTES as UI_SESSION_ROUTES
from neuralgentics.ui.session import cookie_grants

_ERRORS = {"model": m.ErrorResponse}
# The dashboard's page shell and static files are open; its data routes need the token.
OPEN_PATHS = {"/health", *UI_PUBLIC_PATHS, *UI_SESSION_ROUTES}


class _Lazy:
    """Opens the store on first use, so the service starts (and answers 503) while a
    database is down, and recovers on its own once it is back."""

    def __init__(self, settings: Settings, store: Store | None, embedder: Embedder) -> None:
        self.settings = settings
        self.embedder = embedder
        self._service = MemoryService(store, embedder, settings) if store else None
        self._owned = store is None  # a store handed in is closed by whoever opened it
        self._lock = threading.Lock()

    def __call__(self) -> MemoryService:
        if self._service is None:
            with self._lock:
                if self._service is None:
                    self._service = MemoryService(
                        open_store(self.settings), self.embedder, self.settings
                    )
        return self._service

    def close(self) -> None:
        if self._owned and self._service is not None:
            self._service.store.close()
            self._service = None


def create_app(
    settings: Settings | None = None,
    *,
    store: Store | None = None,
    embedder: Embedder | None = None,
) -> FastAPI:
    settings = settings or get_settings()
    lazy = _Lazy(settings, store, embedder or get_embedder())
    svc: Callable[[], MemoryService] = lazy

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        lazy.close()

    app = FastAPI(
        title="memini-core",
        version=__version__,
        description="Semantic memory with trust, a memory graph and a project index.",
        lifespan=lifespan,
        responses={422: _ERRORS, 503: _ERRORS},
        # every route, mounted routers included: no text that cannot round-trip as JSON gets in
        dependencies=[Depends(check_request_text)],
    )
    app.state.service = lazy

    @app.exception_handler(NeuralgenticsError)
    async def _known_error(_: Request, exc: NeuralgenticsError) -> JSONResponse:
        return JSONResponse(status_code=exc.status, content=exc.to_json())

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        return validation_response(exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return http_response(exc)

    @app.get("/health", tags=["service"])
    def health() -> dict:
        """Liveness, store kind, embedding model and row counts."""
        return svc().health()

    @app.post("/memory/query", response_model=m.QueryResponse, tags=["memory"])
    def query(body: m.QueryRequest) -> m.QueryResponse:
        """Hybrid semantic + keyword search, weighted by trust; each hit says why it ranked."""
        return m.query_response(body.query, svc().query(body.query, body.to_filter(), top_k=body.top_k))

    @app.post("/memory/add", response_model=m.AddResponse, status_code=201, tags=["memory"])
    def add(body: m.AddRequest, response: Response) -> m.AddResponse:
        """Store a memory (embedded on the way in). The same content twice returns the first (200)."""
        result = svc().add(
            body.content,
            source_type=body.source_type,
            project=body.project,
            tags=body.tags,
            metadata=body.metadata,
            actor=body.actor,
            supersede_similar=body.supersede_similar,
            similar_threshold=body.similar_threshold,
        )
        if not result.created:
            response.status_code = 200
        return m.add_response(result)

    @app.get("/memory", response_model=m.ListResponse, tags=["memory"])
    def list_memories(
        project: str | None = None,
        source_type: str | None = None,
        tag: list[str] = Query(default_factory=list),
        min_trust: float | None = Query(None, ge=0, le=1),
        include_superseded: bool = False,
        limit: int = Query(50, ge=1, le=1000),
        offset: int = Query(0, ge=0, le=MAX_OFFSET),
    ) -> m.ListResponse:
        """Newest first, with filters and pagination."""
        flt = MemoryFilter(project, source_type, tag, min_trust, include_superseded)
        items, total = svc().list(flt, limit=limit, offset=offset)
        return m.ListResponse(
            items=[m.memory_out(x) for x in items], total=total, limit=limit, offset=offset
        )

    @app.get("/memory/related/{memory_id}", response_model=m.RelatedResponse, tags=["graph"])
    def related(
        memory_id: str,
        depth: int = Query(1, ge=1, le=5),
        types: list[str] = Query(default_factory=list, description="Relationship types (repeat or comma-separate)"),
    ) -> m.RelatedResponse:
        """Breadth-first walk of the memory graph from one memory."""
        wanted = [t for part in types for t in part.split(",") if t]
        reached, edges, memories = svc().related(memory_id, depth=depth, types=wanted)
        return m.related_response(memory_id, depth, reached, edges, memories)

    @app.post("/memory/relationship", response_model=m.RelationshipOut, status_code=201, tags=["graph"])
    def relate(body: m.RelationshipRequest) -> m.RelationshipOut:
        """Link two memories. CONTRADICTS lowers the older one's trust; SUPERSEDES hides the target."""
        rel = svc().relate(
            body.source_id,
            body.target_id,
            body.relationship_type,
            confidence=body.confidence,
            metadata=body.metadata,
            actor=body.actor,
        )
        return m.relationship_out(rel)

    @app.delete("/memory/relationship/{relationship_id}", status_code=204, tags=["graph"])
    def unrelate(relationship_id: str) -> Response:
        svc().unrelate(relationship_id)
        return Response(status_code=204)

    @app.get("/memory/{memory_id}", response_model=m.MemoryDetailOut, tags=["memory"])
    def get(memory_id: str) -> m.MemoryDetailOut:
        """One memory with its trust history and relationships."""
        return m.detail_out(svc().get(memory_id))

    @app.patch("/memory/{memory_id}", response_model=m.MemoryOut, tags=["memory"])
    def update(memory_id: str, body: m.UpdateRequest) -> m.MemoryOut:
        """Change content (re-embedded), tags, metadata or source type."""
        return m.memory_out(
            svc().update(
                memory_id,
                content=body.content,
                source_type=body.source_type,
                tags=body.tags,
                metadata=body.metadata,
            )
        )

    @app.delete("/memory/{memory_id}", status_code=204, tags=["memory"])
    def delete(memory_id: str) -> Response:
        svc().delete(memory_id)
        return Response(status_code=204)

    @app.post("/memory/{memory_id}/trust", response_model=m.TrustResponse, tags=["trust"])
    def adjust_trust(memory_id: str, body: m.TrustRequest) -> m.TrustResponse:
        """Record a trust event: agent_used +0.05, user_confirmed +0.10, user_rejected -0.15, contradicted -0.10."""
        memory, event = svc().apply_trust(memory_id, body.event, actor=body.actor, note=body.note)
        return m.TrustResponse(memory=m.memory_out(memory), event=m.trust_event_out(event))

    app.include_router(create_index_router())
    app.include_router(orchestrator_router)
    app.include_router(ui_router)
    # The token (when the settings have one: always when served) is checked there, once.
    # The dashboard's session cookie opens its read routes (ui/session.py).
    app.add_middleware(HTTPGuard, bind_host=settings.host, token=settings.token,
                       open_paths=OPEN_PATHS, cookie_check=cookie_grants)
    return app
