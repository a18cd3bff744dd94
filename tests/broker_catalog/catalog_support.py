"""Fixtures for the catalog and intent tests: real servers from PyPI, the evaluation catalog."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from neuralgentics.app.process import shared_embedder

sys.path.insert(0, str(Path(__file__).parent))

PY = sys.executable
# `python -m MODULE` for a real Python MCP server, through tests/broker/servers/frozen_exit.py:
# the same server, without the half second its interpreter's last collections take at exit
FROZEN_EXIT = str(Path(__file__).resolve().parents[1] / "broker" / "servers" / "frozen_exit.py")


@pytest.fixture(scope="session")
def shared_embeddings():
    """One in-memory embedding cache for the session: each tool text is embedded once."""
    from neuralgentics.broker.intent.embedcache import EmbeddingCache

    return EmbeddingCache()


@pytest.fixture(scope="session")
def eval_catalog():
    import evalset

    return evalset.catalog()


@pytest.fixture(scope="session")
def eval_matcher(eval_catalog, shared_embeddings):
    from neuralgentics.broker.intent import IntentMatcher

    tools, summaries = eval_catalog
    matcher = IntentMatcher(tools, summaries, cache=shared_embeddings, embedder=shared_embedder())
    matcher.warm()
    return matcher


def time_server() -> dict[str, Any]:
    return {
        "command": PY,
        "args": [FROZEN_EXIT, "mcp_server_time", "--local-timezone", "UTC"],
        "summary": "Current time and time-zone conversion",
    }


def git_server(repo: Path) -> dict[str, Any]:
    return {"command": PY, "args": [FROZEN_EXIT, "mcp_server_git", "--repository", str(repo)]}


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    import subprocess

    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    return repo
