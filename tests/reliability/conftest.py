"""Reliability fixtures: real memini-core processes on a real SQLite file or PostgreSQL."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.postgres import drop_database, fresh_database

# Load and soak durations: short in CI, 60 s by hand (bench/load.py). A load test runs for
# LOAD_SECONDS and until each of its clients made MIN_OPS requests: every client is in flight
# at once either way (8 memini-core clients, trust updates contending on the same memories);
# a longer run adds requests, not concurrency. The floor keeps a busy machine's run, whose
# first second goes on loading the model, mixing every kind of request.
LOAD_SECONDS = float(os.environ.get("NEURALGENTICS_LOAD_SECONDS", "2"))
MIN_OPS = 15


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    url = fresh_database(pg_server, "rel")
    yield url
    drop_database(url)


@pytest.fixture
def store_env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """Extra environment for `neuralgentics serve`: nothing for SQLite, a fresh database for PostgreSQL."""
    if getattr(request, "param", "sqlite") == "postgres":
        return {"NEURALGENTICS_DATABASE_URL": request.getfixturevalue("pg_url")}
    return {}
