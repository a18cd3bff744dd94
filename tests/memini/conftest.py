"""A memini-core per test on each store: a real SQLite file, a real PostgreSQL database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _postgres import drop_database, fresh_database, postgres_url
from fastapi.testclient import TestClient

from neuralgentics.app.core import create_app
from neuralgentics.app.process import shared_embedder
from neuralgentics.config import Settings
from neuralgentics.memini.service import MemoryService
from neuralgentics.memini.store.base import Store


@pytest.fixture(scope="session")
def embedder():
    return shared_embedder()


@pytest.fixture(scope="session")
def pg_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    return postgres_url(tmp_path_factory, request.config)


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
