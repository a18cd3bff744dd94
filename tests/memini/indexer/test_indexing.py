"""Indexing and searching real repositories, on SQLite and PostgreSQL alike (contract tests)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from indexer_support import git, no_model, write
from support.parts import missing

from neuralgentics.app.process import shared_embedder
from neuralgentics.memini.errors import InvalidInput, NotFound
from neuralgentics.memini.indexer import indexing
from neuralgentics.memini.indexer.indexing import index_project
from neuralgentics.memini.indexer.search import find_project, search_project


def top(store, project: str, query: str, mode: str = "hybrid", k: int = 5):
    return search_project(store, project, query, top_k=k, mode=mode, embedder=shared_embedder())


def consistent(store, project: str) -> None:
    """Every file row's chunk count matches the chunks stored for it, and no chunk is orphaned."""
    states = store.file_states(project)
    info = store.project(project)
    assert info is not None and info.chunks == sum(s.chunks for s in states.values())


def test_index_then_search_by_keyword_and_by_meaning(chunks, repo: Path) -> None:
    report = index_project(repo, chunks, embedder=shared_embedder())
    project = str(repo.resolve())
    assert report.new == report.files == 9 and report.embedded > 0
    assert {"debug.log", "package-lock.json", "logo.png", "data.weird"} <= {
        s.path for s in report.skipped
    }
    consistent(chunks, project)

    hit = top(chunks, project, "PaymentGateway charge_card")[0]
    assert (hit.file_path, hit.symbol, hit.language) == (
        "billing/invoice.py",
        "PaymentGateway",
        "python",
    )
    assert (hit.start_line, hit.end_line) == (12, 19)
    assert "keyword #1" in hit.why
    assert hit.content.startswith("billing/invoice.py · class PaymentGateway\n")

    # by meaning only: none of these words is in the code
    by_meaning = top(chunks, project, "endpoint for kubernetes liveness probe", mode="vector")
    assert by_meaning[0].symbol == "HealthHandler"
    assert top(chunks, project, "how to ship a release without downtime")[0].file_path == (
        "docs/handbook.md"
    )
    # camelCase identifiers are found by their words
    assert top(chunks, project, "parse user profile", mode="keyword")[0].symbol == (
        "parseUserProfile"
    )
    for query, symbol in [
        ("ring buffer push byte", "RingBuffer"),
        ("apply discount percent", "OrderService"),
        ("count vowels in a string", "count_vowels"),
        ("greet visitor welcome", "Greeter"),
    ]:
        assert top(chunks, project, query)[0].symbol == symbol
    # nothing of the ignored files is searchable
    assert not [
        h
        for h in top(chunks, project, "hunter2 noise left-pad", k=20)
        if h.file_path in ("secrets/key.txt", "debug.log") or h.file_path.startswith("node_modules")
    ]


def test_rerun_of_unchanged_repo_reads_nothing_and_never_loads_the_model(chunks, repo) -> None:
    index_project(repo, chunks, embedder=shared_embedder())
    again = index_project(repo, chunks, embedder=no_model)
    assert (again.new, again.changed, again.removed, again.chunks, again.embedded) == (
        0,
        0,
        0,
        0,
        0,
    )
    assert again.unchanged == 9
    # a touched but identical file is re-stamped, not re-chunked
    os.utime(repo / "billing/invoice.py", ns=(1, 1))
    touched = index_project(repo, chunks, embedder=no_model)
    assert (touched.changed, touched.chunks, touched.unchanged) == (0, 0, 9)
    assert index_project(repo, chunks, embedder=no_model, rehash=True).chunks == 0


def test_an_edit_re_embeds_only_the_chunks_it_touched(chunks, repo: Path) -> None:
    index_project(repo, chunks, embedder=shared_embedder())
    project = str(repo.resolve())
    path = repo / "billing/invoice.py"
    path.write_text(
        path.read_text().replace(
            '    """Charge a credit card and return the transaction id."""',
            '    """Charge a credit card; refuse expired cards."""',
        )
    )
    report = index_project(repo, chunks, embedder=shared_embedder())
    assert report.changed == 1 and report.new == 0
    assert report.embedded == 1  # the class chunk; the function and imports are reused
    assert report.reused >= 2
    hit = top(chunks, project, "refuse expired cards")[0]
    assert hit.symbol == "PaymentGateway" and "refuse expired cards" in hit.content
    assert not any(
        "return the transaction id" in h.content
        for h in top(chunks, project, "return the transaction id", k=20)
    )
    consistent(chunks, project)


def test_rename_delete_and_newly_ignored_files_leave_the_index(chunks, repo: Path) -> None:
    index_project(repo, chunks, embedder=shared_embedder())
    project = str(repo.resolve())
    git(repo, "mv", "server/health.go", "server/probes.go")
    (repo / "lib/greeter.rb").unlink()
    write(repo, ".neuralgenticsignore", "java/\n")
    report = index_project(repo, chunks, embedder=shared_embedder())
    assert report.removed == 3 and report.new == 2  # probes.go and .neuralgenticsignore
    paths = {h.file_path for h in top(chunks, project, "health handler greet order", k=30)}
    assert "server/probes.go" in paths
    assert not paths & {"server/health.go", "lib/greeter.rb", "java/OrderService.java"}
    assert set(chunks.file_states(project)) == {
        ".gitignore",
        ".neuralgenticsignore",
        "billing/invoice.py",
        "c/vowels.c",
        "docs/handbook.md",
        "server/probes.go",
        "src/ring.rs",
        "web/profile.ts",
    }
    consistent(chunks, project)


def test_identical_text_is_embedded_once_across_projects(chunks, repo: Path, tmp_path) -> None:
    first = index_project(repo, chunks, embedder=shared_embedder())
    copy = tmp_path / "copy"
    shutil.copytree(repo, copy, symlinks=True)
    second = index_project(copy, chunks, embedder=no_model)
    assert second.new == first.new and second.embedded == 0 and second.reused == second.chunks
    # each project is its own scope
    assert {p.root for p in chunks.projects()} == {str(repo.resolve()), str(copy.resolve())}
    hits = top(chunks, str(copy.resolve()), "PaymentGateway", k=20)
    assert hits and all(h.file_path for h in hits)
    assert chunks.forget(str(copy.resolve())) is True
    assert chunks.forget(str(copy.resolve())) is False
    assert [p.root for p in chunks.projects()] == [str(repo.resolve())]
    assert top(chunks, str(repo.resolve()), "PaymentGateway")[0].symbol == "PaymentGateway"


def test_an_interrupted_run_is_finished_by_the_next(chunks, repo: Path, monkeypatch) -> None:
    project = str(repo.resolve())
    monkeypatch.setattr(indexing, "BATCH_CHUNKS", 3)
    seen = []

    def stop_midway(status) -> None:
        if status.phase == "indexing" and status.chunks > 0:
            seen.append(status.files_done)
            raise KeyboardInterrupt  # what Ctrl-C raises

    with pytest.raises(KeyboardInterrupt):
        index_project(repo, chunks, progress=stop_midway, embedder=shared_embedder())
    info = chunks.project(project)
    assert info.status == "indexing" and 0 < info.files < 9
    consistent(chunks, project)  # whole files only: no half-written file
    done = index_project(repo, chunks, embedder=shared_embedder())
    assert chunks.project(project).status == "ready"
    assert done.files == 9 and done.new == 9 - info.files
    assert done.reused == 0 or done.embedded > 0
    consistent(chunks, project)


def test_a_file_changing_while_read_keeps_its_old_chunks(chunks, repo, monkeypatch) -> None:
    index_project(repo, chunks, embedder=shared_embedder())
    project = str(repo.resolve())
    target = repo / "src/ring.rs"
    target.write_text(target.read_text() + "\n// edited\n")
    real_fstat = os.fstat
    calls = {"n": 0}

    def busy_fstat(fd):
        st = real_fstat(fd)
        if os.path.realpath(f"/proc/self/fd/{fd}") == str(target.resolve()):
            calls["n"] += 1
            with open(target, "a") as fh:  # another writer appends between our two looks
                fh.write(f"// write {calls['n']}\n")
        return st

    monkeypatch.setattr(indexing.os, "fstat", busy_fstat)
    report = index_project(repo, chunks, embedder=shared_embedder())
    assert {s.path: s.reason for s in report.skipped}["src/ring.rs"] == (
        "changed while being read (indexed on the next run)"
    )
    assert "src/ring.rs" in chunks.file_states(project)  # old chunks kept, not dropped
    monkeypatch.setattr(indexing.os, "fstat", real_fstat)
    assert index_project(repo, chunks, embedder=shared_embedder()).changed == 1
    consistent(chunks, project)


def test_non_utf8_and_binary_content(chunks, tmp_path: Path) -> None:
    root = tmp_path / "r"
    write(
        root,
        "legacy.c",
        "/* auteur: Ren\xe9 */\nint legacy_checksum(int x) { return x * 31; }\n".encode("latin-1"),
    )
    write(root, "blob.txt", bytes(range(256)) * 8)
    write(root, "utf16.txt", "hello".encode("utf-16"))
    report = index_project(root, chunks, embedder=shared_embedder())
    skipped = {s.path: s.reason for s in report.skipped}
    assert skipped["blob.txt"] == "binary file (NUL bytes)"
    assert skipped["utf16.txt"] == "binary file (NUL bytes)"
    hit = top(chunks, str(root.resolve()), "legacy checksum")[0]
    assert hit.symbol == "legacy_checksum" and "Ren\ufffd" in hit.content


def test_a_file_that_becomes_binary_is_removed(chunks, tmp_path: Path) -> None:
    root = tmp_path / "r"
    write(root, "a.py", "def alpha(): pass\n")
    write(root, "b.py", "def beta(): pass\n")
    index_project(root, chunks, embedder=shared_embedder())
    write(root, "b.py", b"\x00\x01binary now")
    report = index_project(root, chunks, embedder=shared_embedder())
    assert report.removed == 1 and set(chunks.file_states(str(root.resolve()))) == {"a.py"}


def test_bad_paths_change_nothing(chunks, repo: Path, tmp_path: Path) -> None:
    index_project(repo, chunks, embedder=shared_embedder())
    before = [(p.root, p.files, p.chunks) for p in chunks.projects()]
    for bad in (tmp_path / "missing", repo / "billing/invoice.py"):
        with pytest.raises(InvalidInput) as info:
            index_project(bad, chunks, embedder=shared_embedder())
        assert info.value.field == "path" and str(bad) in info.value.message
    assert [(p.root, p.files, p.chunks) for p in chunks.projects()] == before
    with pytest.raises(NotFound):
        find_project(chunks, tmp_path)
    assert find_project(chunks, repo / "billing") == str(repo.resolve())
    with pytest.raises(InvalidInput):
        search_project(chunks, str(repo.resolve()), "   ", embedder=shared_embedder())


def test_an_unreadable_file_is_skipped_with_its_reason() -> None:
    """Root reads everything, so the run happens as `nobody` in a child process."""
    if shutil.which("setpriv") is None:
        missing("needs setpriv (util-linux) to drop root")
    import json
    import subprocess
    import sys
    import tempfile

    # pytest's own temp root is private to root; nobody needs a world-reachable place
    base = Path(tempfile.mkdtemp(prefix="ng-unreadable-", dir="/tmp"))
    try:
        base.chmod(0o777)
        work = base / "repo"
        # only files that stay unindexed, so the child never needs the model
        write(work, "notes.log", "ignored\n")
        write(work, ".git/info/exclude", "*.log\n")
        secret = write(work, "billing/secret.py", "def hidden(): pass\n")
        home = base / "home"
        home.mkdir()
        for dirpath, _dirs, filenames in os.walk(base):
            os.chmod(dirpath, 0o777)
            for name in filenames:
                os.chmod(os.path.join(dirpath, name), 0o644)
        secret.chmod(0)
        code = (
            "import json, sys\n"
            "from neuralgentics.app.process import shared_embedder\n"
            "from neuralgentics.config import Settings\n"
            "from neuralgentics.memini.indexer import open_chunk_store, index_project\n"
            "r = index_project(sys.argv[1], open_chunk_store(Settings()), embedder=shared_embedder())\n"
            "print(json.dumps({s.path: s.reason for s in r.skipped}))\n"
        )
        env = {**os.environ, "NEURALGENTICS_HOME": str(home), "HOME": str(home)}
        done = subprocess.run(
            [
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                sys.executable,
                "-c",
                code,
                str(work),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd=home,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        skipped = json.loads(done.stdout.strip().splitlines()[-1])
        assert skipped["billing/secret.py"] == "unreadable: Permission denied"
        assert skipped["notes.log"] == "ignored by .git/info/exclude:1 (*.log)"
    finally:
        shutil.rmtree(base, ignore_errors=True)
