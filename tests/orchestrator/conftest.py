"""Fixtures for the orchestrator tests: real MiniLM (loaded once), real tokenizer, and an
in-process memory backed by real memories and real embeddings (no HTTP mock)."""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from neuralgentics.orchestrator.http import router
from neuralgentics.orchestrator.memory_client import CallableMemory, MemoryHit
from neuralgentics.orchestrator.service import Orchestrator
from neuralgentics.orchestrator.task_store import TaskStore

REPO = Path(__file__).resolve().parents[2]

_cache: dict[str, np.ndarray] = {}


def cached_embed(texts: list[str]) -> np.ndarray:
    """The real embedder, memoised for the session: examples are embedded once for all tests."""
    from neuralgentics.memini.embeddings import get_embedder

    missing = list(dict.fromkeys(t for t in texts if t not in _cache))
    if missing:
        for text, vec in zip(missing, get_embedder().embed(missing)):
            _cache[text] = vec
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    return np.stack([_cache[t] for t in texts])


@pytest.fixture(scope="session")
def embed():
    return cached_embed


@dataclass
class Stored:
    id: str
    content: str
    vec: np.ndarray
    trust_score: float = 0.5
    source_type: str | None = None
    superseded_by: str | None = None
    tags: list[str] = field(default_factory=list)
    metadata: dict = field(default_factory=dict)


class LocalMemory:
    """Memories in a list, searched by MiniLM cosine. It implements memini-core's behaviour
    the orchestrator relies on: superseded memories left out, trust events recorded and
    clamped, the same content stored once."""

    def __init__(self) -> None:
        self.items: dict[str, Stored] = {}
        self.edges: list[tuple[str, str, str, float]] = []
        self.trust_events: list[tuple[str, str, str | None]] = []
        self.queries: list[str] = []
        self.down = False

    def _check(self) -> None:
        if self.down:
            from neuralgentics.orchestrator.errors import MemoryUnavailable

            raise MemoryUnavailable("memory service at http://127.0.0.1:1 unreachable: connection refused")

    def remember(self, content: str, *, source_type: str | None = None, project: str | None = None,
                 tags: list[str] | None = None, metadata: dict | None = None, trust: float = 0.5) -> str:
        self._check()
        mid = hashlib.sha256(content.encode()).hexdigest()[:16]
        if mid not in self.items:
            self.items[mid] = Stored(mid, content, cached_embed([content])[0], trust, source_type,
                                     tags=list(tags or []), metadata=dict(metadata or {}))
        return mid

    def supersede(self, newer: str, older: str) -> None:
        self.items[older].superseded_by = newer
        self.edges.append((newer, older, "SUPERSEDES", 1.0))

    def recall(self, text: str, top_k: int, project: str | None) -> list[MemoryHit]:
        self._check()
        self.queries.append(text)
        if not self.items:
            return []
        q = cached_embed([text])[0]
        # like memini-core, superseded memories are not returned unless asked; here they are
        # returned so the context builder's own filter is exercised too
        ranked = sorted(self.items.values(), key=lambda s: float(s.vec @ q), reverse=True)[:top_k]
        return [MemoryHit(s.id, s.content, float(s.vec @ q), s.trust_score, s.source_type, s.superseded_by, s.tags)
                for s in ranked]

    def relate(self, source: str, target: str, kind: str, confidence: float) -> None:
        self._check()
        assert source in self.items and target in self.items, "relationship ends must exist"
        if (source, target, kind, confidence) not in self.edges:
            self.edges.append((source, target, kind, confidence))

    def trust(self, memory_id: str, event: str, *, actor: str | None = None, note: str | None = None) -> None:
        self._check()
        delta = {"agent_used": 0.05, "user_confirmed": 0.10}[event]
        item = self.items[memory_id]
        item.trust_score = min(1.0, max(0.0, item.trust_score + delta))
        self.trust_events.append((memory_id, event, actor))

    def client(self) -> CallableMemory:
        return CallableMemory(self.recall, self.remember, self.relate, self.trust)


PROJECT_MEMORIES = [
    ("The HTTP client retries idempotent requests 3 times with exponential backoff starting at 200 ms.", 0.8),
    ("Pagination in the API uses opaque cursor tokens, never page numbers; see api/pagination.py.", 0.9),
    ("Dates in the config loader are parsed with datetime.fromisoformat; naive dates are treated as UTC.", 0.7),
    ("Tests use a temporary SQLite file per test; never mock the database.", 0.85),
    ("The deploy command is defined in cli/deploy.py and calls the release API.", 0.6),
    ("Password reset emails are sent by services/mailer.py through the SMTP relay.", 0.5),
    ("Ruff is the linter; line length is 100.", 0.7),
    ("We decided to keep one deployable monolith until the team is larger than 20 engineers.", 0.9),
]


@pytest.fixture
def memory() -> LocalMemory:
    mem = LocalMemory()
    for content, trust in PROJECT_MEMORIES:
        mem.remember(content, source_type="fact", trust=trust)
    return mem


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project directory (no skills/ or .neuralgentics/ overrides)."""
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def orch(project: Path, tmp_path: Path, memory: LocalMemory, embed) -> Orchestrator:
    from neuralgentics.config import get_settings

    store = TaskStore(tmp_path / "tasks.db")
    o = Orchestrator(project_dir=project, config_dir=get_settings().config_dir,
                     memory=memory.client(), store=store, embed=embed, project="demo")
    yield o
    store.close()


def copy_repo_skills(dest: Path) -> None:
    shutil.copytree(REPO / "skills", dest, dirs_exist_ok=True)


@pytest.fixture
def client(orch: Orchestrator) -> TestClient:
    """The orchestrator's HTTP routes over ``orch``."""
    app = FastAPI()
    app.include_router(router)
    app.state.orchestrator = orch
    return TestClient(app)
