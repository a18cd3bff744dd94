"""Issue 13, finding 11: the data dir was 0755 and memini.db / *.usearch 0644, readable by every
local user. Now the dir is 0700 and every file the store keeps (database, -wal, -shm, the
vector indexes and their sidecars, the chunk index, the orchestrator's task records) 0600 —
under a permissive umask, and for files an older version left readable."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from neuralgentics.memini.indexer import index_project
from neuralgentics.memini.indexer.chunkstore_sqlite import SQLiteChunkStore
from neuralgentics.memini.store.sqlite import SQLiteStore
from neuralgentics.orchestrator.task_store import TaskStore


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def loose_umask() -> Iterator[None]:
    old = os.umask(0o022)  # the usual default: 0755 dirs, 0644 files
    yield
    os.umask(old)


def files_of(home: Path) -> dict[str, int]:
    return {p.name: mode(p) for p in home.iterdir() if p.is_file()}


def use_everything(home: Path, embedder, project: Path) -> None:
    store = SQLiteStore(home / "memini.db")
    from neuralgentics.config import Settings
    from neuralgentics.memini.service import MemoryService

    MemoryService(store, embedder, Settings(home=home)).add("a private memory")
    chunks = SQLiteChunkStore(store)
    index_project(project, chunks, embedder=embedder)
    store.vectors.save()
    assert (home / "memini.db-wal").exists() and (home / "memini.db-shm").exists()
    wal_modes = {n: m for n, m in files_of(home).items() if n.endswith(("-wal", "-shm"))}
    store.close()
    TaskStore(home / "orchestrator.db").close()
    return wal_modes


def test_a_new_data_dir_and_its_files_are_private(tmp_path, loose_umask, embedder) -> None:
    home = tmp_path / "data" / "neuralgentics"
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.py").write_text("def private():\n    return 'kept to myself'\n")
    wal_modes = use_everything(home, embedder, project)
    assert mode(home) == 0o700
    assert wal_modes and set(wal_modes.values()) == {0o600}
    found = files_of(home)
    for name in (
        "memini.db",
        "memini.db.memories.usearch",
        "memini.db.memories.usearch.json",
        "memini.db.project_chunks.usearch",
        "memini.db.project_chunks.usearch.json",
        "orchestrator.db",
    ):
        assert found.get(name) == 0o600, (name, oct(found.get(name, 0)))
    assert set(found.values()) == {0o600}, {k: oct(v) for k, v in found.items()}


def test_files_left_readable_by_an_older_version_are_tightened_on_open(
    tmp_path, loose_umask, embedder
) -> None:
    home = tmp_path / "home"
    project = tmp_path / "proj"
    project.mkdir()
    (project / "b.py").write_text("x = 1\n")
    use_everything(home, embedder, project)
    os.chmod(home, 0o755)
    for p in home.iterdir():
        os.chmod(p, 0o644)
    assert set(files_of(home).values()) == {0o644}
    SQLiteStore(home / "memini.db").close()
    TaskStore(home / "orchestrator.db").close()
    assert mode(home) == 0o700
    assert set(files_of(home).values()) == {0o600}, {k: oct(v) for k, v in files_of(home).items()}
