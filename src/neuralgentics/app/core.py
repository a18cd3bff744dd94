"""memini-core's HTTP app, assembled: the memory routes, the project index, the orchestrator
and the dashboard, each given its objects here, once (`neuralgentics.provided`), behind one
HTTPGuard (size, Host/Origin, cross-site, the bearer token) and one error handler.

    settings ─► store (opened on first use) ─► MemoryService ─► memini routes
                   └──► chunk store ─► index jobs ─────────────► project routes
              embedder ─► (all of the above) ─► Orchestrator ──► orchestrator routes
              settings ─────────────────────────────────────────► dashboard routes
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import Depends, FastAPI, Request
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from neuralgentics import __version__
from neuralgentics.app.process import shared_embedder
from neuralgentics.config import Settings, get_settings
from neuralgentics.embeddings import Embedder
from neuralgentics.http_errors import install_error_handlers
from neuralgentics.httpguard import HTTPGuard
from neuralgentics.memini import generation
from neuralgentics.memini import models as m
from neuralgentics.memini import routes as memini_routes
from neuralgentics.memini.indexer import chunk_store_for
from neuralgentics.memini.indexer import routes as index_routes
from neuralgentics.memini.indexer.chunkstore import ChunkStore
from neuralgentics.memini.indexer.jobs import JobManager
from neuralgentics.memini.portability import routes as portability_routes
from neuralgentics.memini.provenance import Forbidden
from neuralgentics.memini.service import MemoryService
from neuralgentics.memini.store import open_store
from neuralgentics.memini.store.base import Store
from neuralgentics.orchestrator import http as orchestrator_routes
from neuralgentics.orchestrator.memini_direct import DirectMemory
from neuralgentics.orchestrator.service import Orchestrator
from neuralgentics.project_credentials import Authenticator
from neuralgentics.provided import provide
from neuralgentics.request_text import check_request_text
from neuralgentics.ui import routes as ui_routes
from neuralgentics.ui.session import SESSION_ROUTES as UI_SESSION_ROUTES
from neuralgentics.ui.session import DashboardSessions

_ERRORS = {"model": m.ErrorResponse}
# The dashboard's page shell and static files are open; its data routes need the token.
OPEN_PATHS: set[str | tuple[str, str]] = {"/health", *ui_routes.PUBLIC_PATHS, *UI_SESSION_ROUTES}
# What a project credential (the plugin's: project_credentials.py) may call: the plugin's own
# routes. Everything else (listing, editing, deleting, export/import, the dashboard, indexing)
# is the owner's. Each route checks the project and ownership itself (memini/provenance.py).
AGENT_ROUTES: frozenset[tuple[str, str]] = frozenset(
    {
        ("GET", "/health"),
        ("POST", "/memory/query"),
        ("POST", "/memory/add"),
        ("POST", "/memory/{memory_id}/supersede"),
        ("POST", "/memory/{memory_id}/trust"),
        ("POST", "/memory/relationship"),
        ("POST", "/project/search"),
        ("POST", "/orchestrator/route"),
        ("POST", "/orchestrator/context"),
        ("POST", "/orchestrator/tasks"),
        ("POST", "/orchestrator/tasks/{task_id}/step"),
        # the delegated answer kept while a task waits for verify, and (with ?session=, see
        # orchestrator/http.py) a session's own tasks, to take up one left waiting
        ("POST", "/orchestrator/tasks/{task_id}/result"),
        ("GET", "/orchestrator/tasks"),
    }
)


async def agent_routes_only(request: Request) -> None:
    """A project credential calls only AGENT_ROUTES (403 naming the route otherwise)."""
    principal = getattr(request.state, "principal", None)
    if getattr(principal, "project", None) is None:
        return
    route = request.scope.get("route")
    key = (request.method, getattr(route, "path", request.url.path))
    if key not in AGENT_ROUTES:
        raise Forbidden(
            f"{key[0]} {key[1]} is the owner's: a project credential (the OpenCode plugin's) "
            "may only search, save and give feedback in its project; use the CLI or the dashboard"
        )


class LazyMemory:
    """The memory service, its store opened on first use: the service starts (and answers
    503) while a database is down, and recovers on its own once it is back."""

    def __init__(self, settings: Settings, store: Store | None, embedder: Embedder) -> None:
        self.settings = settings
        self.embedder = embedder
        self._service = MemoryService(store, embedder, settings) if store else None
        self._owned = store is None  # a store handed in is closed by whoever opened it
        self._chunks: ChunkStore | None = None
        self._lock = threading.Lock()

    def __call__(self) -> MemoryService:
        if self._service is None:
            with self._lock:
                if self._service is None:
                    self._service = MemoryService(
                        open_store(self.settings), self.embedder, self.settings
                    )
        return self._service

    def chunk_store(self) -> ChunkStore:
        """The project index over the same store (the same database as the memories)."""
        if self._chunks is None:
            store = self().store
            with self._lock:
                if self._chunks is None:
                    self._chunks = chunk_store_for(store)
        return self._chunks

    def generation(self) -> str | None:
        """The store's write generation (memini/generation.py); None before it is opened."""
        service = self._service
        gen = getattr(service.store, "generation", None) if service is not None else None
        return gen.value if gen is not None else None

    def close(self) -> None:
        if self._owned and self._service is not None:
            self._service.store.close()
            self._service = None
            self._chunks = None


class GenerationHeader:
    """Every response says the memory generation after the request ran (`generation.HEADER`):
    a client that keeps what it built from memories (the plugin's context package) builds it
    again once a write changed it (issue 27 item 6). Pure ASGI: it only adds one header."""

    def __init__(self, app: ASGIApp, memory: LazyMemory) -> None:
        self.app = app
        self.memory = memory

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_generation(message: Message) -> None:
            if message["type"] == "http.response.start":
                value = self.memory.generation()
                if value is not None:
                    headers = MutableHeaders(scope=message)
                    headers[generation.HEADER] = value
            await send(message)

        await self.app(scope, receive, send_with_generation)


def create_app(
    settings: Settings | None = None,
    *,
    store: Store | None = None,
    embedder: Embedder | None = None,
    project_dir: Path | None = None,
) -> FastAPI:
    """memini-core. `settings`: default the process's. `store` and `embedder`: use these
    instead of opening the configured store and the process's model (tests, benchmarks);
    `project_dir`: the orchestrator's default project (default: the directory the app is
    built in, i.e. where the service was started)."""
    settings = settings or get_settings()
    model = embedder if embedder is not None else shared_embedder()
    memory = LazyMemory(settings, store, model)
    jobs = JobManager(memory.chunk_store, model)
    orchestrator = Orchestrator(
        embedder=model,
        project_dir=project_dir if project_dir is not None else Path.cwd(),
        config_dir=settings.config_dir,
        memory=DirectMemory(memory, memory.chunk_store),
        store_path=settings.home / "orchestrator.db",
        stall_after=settings.task_stall_seconds,
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        memory.close()

    app = FastAPI(
        title="memini-core",
        version=__version__,
        description="Semantic memory with trust, a memory graph and a project index.",
        lifespan=lifespan,
        responses={422: _ERRORS, 503: _ERRORS},
        # every route, mounted routers included: no text that cannot round-trip as JSON gets in
        dependencies=[Depends(agent_routes_only), Depends(check_request_text)],
    )
    install_error_handlers(app)
    # The dashboard's sessions, of this process alone (ui/session.py).
    sessions = DashboardSessions()
    # The root's handle on the memory service, for tests and tools that reach the store
    # (`app.state.service().store`); the routes get theirs from `provide` below.
    app.state.service = memory
    # Resolved here, once: FastAPI's dependency_overrides would rebuild every route's
    # dependencies from their signatures on every request (neuralgentics/provided.py).
    provide(
        app,
        {
            memini_routes.memory_service: memory,
            index_routes.chunk_store: memory.chunk_store,
            index_routes.index_jobs: jobs,
            index_routes.embedder: model,
            orchestrator_routes.orchestrator: orchestrator,
            ui_routes.ui_settings: settings,
            ui_routes.ui_sessions: sessions,
        },
    )
    # before memini's routes: GET /memory/export must not be read as GET /memory/{id}
    app.include_router(portability_routes.router)
    app.include_router(memini_routes.router)
    app.include_router(index_routes.router)
    app.include_router(orchestrator_routes.router)
    app.include_router(ui_routes.router)
    app.add_middleware(GenerationHeader, memory=memory)
    # The token (when the settings have one: always when served) is checked there, once.
    # A dashboard session's cookie opens the pages' reads (ui/session.py).
    app.add_middleware(
        HTTPGuard,
        bind_host=settings.host,
        token=settings.token,
        authenticate=Authenticator(settings),
        open_paths=OPEN_PATHS,
        cookie_check=sessions.grants,
        body_limits={("POST", "/memory/import"): portability_routes.IMPORT_MAX_BYTES},
    )
    return app
