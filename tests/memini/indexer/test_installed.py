"""What the Neuralgentics installer writes into a project never reaches the project's index, and
what an uninstall removes leaves it on the next run (on both stores)."""

from __future__ import annotations

from pathlib import Path

import pytest
from indexer_support import write

from neuralgentics.app.process import shared_embedder
from neuralgentics.config import Settings, get_settings
from neuralgentics.memini.indexer.indexing import index_project
from neuralgentics.memini.indexer.installed import REASON
from neuralgentics.memini.indexer.search import search_project
from neuralgentics.memini.indexer.selection import select_files


@pytest.fixture
def installed(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from neuralgentics.opencode.installer import install

    # the installer also writes outside the project (plugin, token, OpenCode's global dir)
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "user" / ".config"))
    get_settings.cache_clear()
    install(Settings(), repo)
    return repo


def test_the_manifest_is_where_the_installer_writes_it(tmp_path: Path) -> None:
    from neuralgentics.memini.indexer.installed import MANIFEST
    from neuralgentics.opencode.installer import Target

    target = Target(tmp_path / "opencode.json", tmp_path / ".opencode", tmp_path)
    assert target.manifest == tmp_path / MANIFEST


def test_every_file_the_installer_wrote_is_left_out_with_its_reason(installed: Path) -> None:
    import json

    manifest = json.loads((installed / ".opencode/neuralgentics-install.json").read_text())
    written = {
        str(Path(f["path"]).relative_to(installed))
        for f in manifest["files"]
        if Path(f["path"]).is_relative_to(installed)
    }
    # the agents and the brand file at least; whatever else the manifest lists counts too
    assert ".opencode/agent/orchestrator.md" in written
    assert any(p.endswith(".tsx") for p in written)
    sel = select_files(installed)
    kept = {c.path for c in sel.candidates}
    skipped = {s.path: s.reason for s in sel.skipped}
    for path in written | {".opencode/neuralgentics-install.json", "opencode.json"}:
        assert path not in kept
        assert skipped[path] == REASON
    assert "billing/invoice.py" in kept
    # a file of the user's own next to them is still indexed
    write(installed, ".opencode/agent/mine.md", "---\ndescription: my reviewer\n---\nreview\n")
    assert ".opencode/agent/mine.md" in {c.path for c in select_files(installed).candidates}


def test_installed_files_never_answer_and_uninstalled_ones_leave(
    chunks, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from neuralgentics.opencode.installer import install, uninstall

    project = str(repo.resolve())
    write(repo, ".opencode/agent/mine.md", "---\ndescription: my own agent\n---\nreads files\n")
    index_project(repo, chunks, embedder=shared_embedder())
    assert ".opencode/agent/mine.md" in chunks.file_states(project)

    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "user" / ".config"))
    get_settings.cache_clear()
    install(Settings(), repo)
    index_project(repo, chunks, embedder=shared_embedder())
    files = set(chunks.file_states(project))
    assert not {f for f in files if f.startswith(".opencode/") and f != ".opencode/agent/mine.md"}
    assert "opencode.json" not in files
    hits = search_project(
        chunks, project, "agent that may not edit files", top_k=20, embedder=shared_embedder()
    )
    assert all(not h.file_path.startswith(".opencode/agent/o") for h in hits)

    uninstall(Settings(), repo)
    (repo / ".opencode/agent/mine.md").unlink()
    report = index_project(repo, chunks, embedder=shared_embedder())
    assert report.removed == 1
    assert not any(f.startswith(".opencode/") for f in chunks.file_states(project))
