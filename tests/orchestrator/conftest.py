"""Fixtures for the orchestrator tests: real MiniLM (loaded once), real tokenizer, and the real
memory service on a temporary SQLite file, reached the way memini-core's process reaches it
(`DirectMemory`) — or, while "down", over HTTP at a closed port (a real refused connection)."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from neuralgentics.app.process import shared_embedder
from neuralgentics.config import Settings
from neuralgentics.http_errors import install_error_handlers
from neuralgentics.memini.service import MemoryDetail, MemoryService
from neuralgentics.memini.store.base import Memory
from neuralgentics.memini.store.sqlite import SQLiteStore
from neuralgentics.memini.trust import DEFAULT_TRUST, EVENTS_MILLI
from neuralgentics.orchestrator import http as orchestrator_routes
from neuralgentics.orchestrator.memini_direct import DirectMemory
from neuralgentics.orchestrator.memory_client import HttpMemoryClient, MemoryClient
from neuralgentics.orchestrator.service import Orchestrator
from neuralgentics.orchestrator.task_store import TaskStore

REPO = Path(__file__).resolve().parents[2]
PROJECT = "demo"


@pytest.fixture(scope="session")
def embed():
    """The real embedder (its own cache embeds each example once for the session)."""
    return shared_embedder()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed once this returns: connections are refused


class RealMemory:
    """memini-core's MemoryService on a SQLite file of its own, and the helpers the tests use
    to arrange memories (at a given trust, superseded) and to read back what a step stored."""

    def __init__(self, home: Path) -> None:
        self.store = SQLiteStore(home / "memini.db")
        self.service = MemoryService(self.store, shared_embedder(), Settings(home=home))
        self.down = False
        self._direct = DirectMemory(lambda: self.service)
        self._unreachable = HttpMemoryClient(f"http://127.0.0.1:{_closed_port()}", timeout=2.0)

    def close(self) -> None:
        self._unreachable.close()
        self.store.close()

    def remember(
        self,
        content: str,
        *,
        source_type: str = "fact",
        trust: float = DEFAULT_TRUST,
        tags: list[str] | None = None,
        metadata: dict | None = None,
    ) -> str:
        """Add (or find: the same content is stored once) and bring its trust to `trust` with
        the trust events that sum to it. Arranged as given: no update detection, which would
        supersede a near-restatement the test wants the context builder to see."""
        result = self.service.add(
            content,
            source_type=source_type,
            project=PROJECT,
            tags=tags or [],
            metadata=metadata or {},
            detection="off",
        )
        memory_id = result.memory.id
        if result.created:
            for event in _events_to(trust):
                self.service.apply_trust(memory_id, event, actor="test setup")
        return memory_id

    def supersede(self, newer: str, older: str) -> None:
        self.service.relate(newer, older, "SUPERSEDES")

    def get(self, memory_id: str) -> Memory:
        return self.service.get(memory_id).memory

    def detail(self, memory_id: str) -> MemoryDetail:
        return self.service.get(memory_id)

    def client(self) -> MemoryClient:
        return _Switch(self)


class _Switch:
    """The memory client the orchestrator holds: the real in-process client, or while the test
    says memory is down, the real HTTP client at an address where nothing listens."""

    def __init__(self, memory: RealMemory) -> None:
        self._memory = memory

    def __getattr__(self, name: str):
        m = self._memory
        return getattr(m._unreachable if m.down else m._direct, name)


def _events_to(trust: float) -> list[str]:
    """Trust events that move the default trust to `trust` (a multiple of 0.05)."""
    delta = round((trust - DEFAULT_TRUST) * 1000)  # thousandths, as the stores count
    if delta >= 0:
        confirmed, rest = divmod(delta, EVENTS_MILLI["user_confirmed"])
        assert rest in (0, EVENTS_MILLI["agent_used"]), f"trust {trust} is not reachable by events"
        return ["user_confirmed"] * confirmed + ["agent_used"] * (rest > 0)
    lower = -delta  # made of contradicted (100) and user_rejected (150) steps
    contradicted = -EVENTS_MILLI["contradicted"]
    rejected = next(
        n for n in range(8) if (lower - n * -EVENTS_MILLI["user_rejected"]) % contradicted == 0
    )
    rest = lower - rejected * -EVENTS_MILLI["user_rejected"]
    return ["user_rejected"] * rejected + ["contradicted"] * (rest // contradicted)


PROJECT_MEMORIES = [
    (
        "The HTTP client retries idempotent requests 3 times with exponential backoff starting at 200 ms.",
        0.8,
    ),
    (
        "Pagination in the API uses opaque cursor tokens, never page numbers; see api/pagination.py.",
        0.9,
    ),
    (
        "Dates in the config loader are parsed with datetime.fromisoformat; naive dates are treated as UTC.",
        0.7,
    ),
    ("Tests use a temporary SQLite file per test; never mock the database.", 0.85),
    ("The deploy command is defined in cli/deploy.py and calls the release API.", 0.6),
    ("Password reset emails are sent by services/mailer.py through the SMTP relay.", 0.5),
    ("Ruff is the linter; line length is 100.", 0.7),
    ("We decided to keep one deployable monolith until the team is larger than 20 engineers.", 0.9),
]


@pytest.fixture
def memory(tmp_path: Path):
    mem = RealMemory(tmp_path)
    for content, trust in PROJECT_MEMORIES:
        mem.remember(content, trust=trust)
    yield mem
    mem.close()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project directory (no skills/ or .neuralgentics/ overrides)."""
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def orch(project: Path, tmp_path: Path, memory: RealMemory, embed) -> Orchestrator:
    store = TaskStore(tmp_path / "tasks.db")
    o = Orchestrator(
        embedder=embed,
        project_dir=project,
        config_dir=Settings().config_dir,
        memory=memory.client(),
        store=store,
        project=PROJECT,
    )
    yield o
    store.close()


def copy_repo_skills(dest: Path) -> None:
    shutil.copytree(REPO / "skills", dest, dirs_exist_ok=True)


def orchestrator_app(orch: Orchestrator) -> FastAPI:
    """The orchestrator's routes over `orch`, with the error handler every front has."""
    app = FastAPI()
    install_error_handlers(app)
    app.dependency_overrides[orchestrator_routes.orchestrator] = lambda: orch
    app.include_router(orchestrator_routes.router)
    return app


@pytest.fixture
def client(orch: Orchestrator) -> TestClient:
    """The orchestrator's HTTP routes over ``orch``."""
    return TestClient(orchestrator_app(orch))
