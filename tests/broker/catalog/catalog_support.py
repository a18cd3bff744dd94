"""Fixtures for the catalog and intent tests: real servers from PyPI, the evaluation catalog."""

from __future__ import annotations

import fcntl
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from support.servers import time_server  # noqa: F401 (the catalog tests import it from here)

from neuralgentics.app.process import shared_embedder

sys.path.insert(0, str(Path(__file__).parent))

PY = sys.executable
# `python -m MODULE` for a real Python MCP server, through tests/broker/servers/frozen_exit.py:
# the same server, without the half second its interpreter's last collections take at exit
FROZEN_EXIT = str(Path(__file__).resolve().parents[1] / "servers" / "frozen_exit.py")


def _run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """Under pytest-xdist, the folder this run's workers share (each has its own basetemp in
    it; a new run gets a new one); None in a run of one process."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return None
    return tmp_path_factory.getbasetemp().parent


@pytest.fixture(scope="session")
def shared_embeddings(tmp_path_factory: pytest.TempPathFactory):
    """One embedding cache for the session: each tool text is embedded once — once per run,
    not once per worker, under pytest-xdist: the workers keep it in one file of this run's
    shared folder (written atomically; made empty by each new run)."""
    from neuralgentics.broker.intent.embedcache import EmbeddingCache

    run_dir = _run_dir(tmp_path_factory)
    return EmbeddingCache(None if run_dir is None else run_dir / "intent-embeddings.npz")


@pytest.fixture(scope="session")
def eval_catalog():
    import evalset

    return evalset.catalog()


@pytest.fixture(scope="session")
def eval_matcher(eval_catalog, shared_embeddings):
    from neuralgentics.broker.intent import IntentMatcher

    tools, summaries = eval_catalog
    matcher = IntentMatcher(tools, summaries, cache=shared_embeddings, embedder=shared_embedder())
    if shared_embeddings.path is None:
        matcher.warm()
    else:
        # the first worker to get here embeds the catalog (~8 s) and saves it; another waits
        # for it, then reads the vectors instead of computing them again
        with open(f"{shared_embeddings.path}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # let go when the file closes
            matcher.warm()
    return matcher


def git_server(repo: Path) -> dict[str, Any]:
    return {"command": PY, "args": [FROZEN_EXIT, "mcp_server_git", "--repository", str(repo)]}


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    import subprocess

    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    return repo
