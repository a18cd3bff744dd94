"""The project indexer when files go away under it: a file deleted after the walk but before
it is read is reported and left out; the next run finds the index consistent. (A file rewritten
while read and an interrupted run are covered in tests/memini/indexer/test_indexing.py.)"""

from __future__ import annotations

from pathlib import Path

from neuralgentics.app.process import shared_embedder
from neuralgentics.memini.indexer import indexing
from neuralgentics.memini.indexer.chunkstore_sqlite import SQLiteChunkStore
from neuralgentics.memini.store.sqlite import SQLiteStore


def test_a_file_deleted_while_indexing_is_left_out_and_the_next_run_agrees(
    tmp_path: Path, monkeypatch
) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    for i in range(6):
        (repo / "src" / f"mod{i}.py").write_text(
            f'def handler_{i}(x):\n    """Handle case {i}."""\n    return x + {i}\n'
        )
    real = indexing._read_stable
    gone: list[str] = []

    def delete_another_first(path: Path):
        if not gone:  # the first read deletes every other file still waiting to be read
            for other in sorted((repo / "src").glob("*.py")):
                if other != path:
                    other.unlink()
                    gone.append(f"src/{other.name}")
        return real(path)

    store = SQLiteChunkStore(SQLiteStore(tmp_path / "db" / "memini.db"), owns_store=True)
    try:
        monkeypatch.setattr(indexing, "_read_stable", delete_another_first)
        report = indexing.index_project(repo, store, embedder=shared_embedder())
        reasons = {s.path: s.reason for s in report.skipped}
        assert gone and all(reasons.get(p) == "vanished while indexing" for p in gone), reasons
        project = str(repo.resolve())
        assert (
            set(store.file_states(project)) == {"src/mod0.py"}
            or len(store.file_states(project)) == 1
        )
        monkeypatch.setattr(indexing, "_read_stable", real)
        again = indexing.index_project(repo, store, embedder=shared_embedder())
        assert again.files == 1 and again.unchanged == 1 and not again.skipped
        info = store.project(project)
        assert info.chunks == sum(s.chunks for s in store.file_states(project).values())
    finally:
        store.close()
