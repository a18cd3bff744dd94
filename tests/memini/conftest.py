"""A memini-core per test on each store: a real SQLite file, a real PostgreSQL database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from support.postgres import drop_database, fresh_database

from neuralgentics.app.core import create_app
from neuralgentics.app.process import shared_embedder
from neuralgentics.config import Settings
from neuralgentics.memini.service import MemoryService
from neuralgentics.memini.store.base import Store


@pytest.fixture(scope="session")
def embedder():
    return shared_embedder()


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path) -> Iterator[Store]:
    if request.param == "sqlite":
        from neuralgentics.memini.store.sqlite import SQLiteStore

        s = SQLiteStore(tmp_path / "memini.db")
        yield s
        s.close()
    else:
        from neuralgentics.memini.store.postgres import PostgresStore

        url = fresh_database(request.getfixturevalue("pg_server"), "svc")
        s = PostgresStore(url)
        yield s
        s.close()
        drop_database(url)


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(home=tmp_path / "home")


@pytest.fixture
def service(store: Store, embedder, settings: Settings) -> MemoryService:
    return MemoryService(store, embedder, settings)


@pytest.fixture
def client(store: Store, embedder, settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings, store=store, embedder=embedder)) as c:
        yield c


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def refusing_client(request, tmp_path_factory, embedder):
    """One memini-core per store for a whole module, for tests whose every request is refused,
    so that none can change what the next one sees: the module ends checking that nothing was
    written (besides the tests that check it themselves)."""
    base = tmp_path_factory.mktemp("refusing")
    if request.param == "sqlite":
        from neuralgentics.memini.store.sqlite import SQLiteStore

        store, url = SQLiteStore(base / "memini.db"), None
    else:
        from neuralgentics.memini.store.postgres import PostgresStore

        url = fresh_database(request.getfixturevalue("pg_server"), "refusing")
        store = PostgresStore(url)
    # token=None as the per-test fixtures have it (tests/conftest.py unsets it per test only)
    settings = Settings(home=base / "home", token=None)
    with TestClient(create_app(settings, store=store, embedder=embedder)) as c:
        yield c
        assert c.get("/health").json()["counts"]["memories"] == 0
    store.close()
    if url:
        drop_database(url)
