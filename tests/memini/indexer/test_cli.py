"""`neuralgentics index` and `neuralgentics search` as a user types them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from support.cli import invoke

from neuralgentics.memini.indexer import cli


@pytest.fixture
def app() -> typer.Typer:
    app = typer.Typer()
    cli.register(app)
    return app


def run(app: typer.Typer, *args: str, cwd: Path | None = None, monkeypatch=None):
    if cwd is not None and monkeypatch is not None:
        monkeypatch.chdir(cwd)
    return invoke(app, list(args), catch_exceptions=False)


def test_index_explain_list_search_forget(app, repo: Path, monkeypatch) -> None:
    first = run(app, "index", str(repo), "--explain")
    assert first.exit_code == 0, first.output
    assert "skipped\tdebug.log\tignored by .gitignore:1 (*.log)" in first.output
    assert "skipped\tpackage-lock.json\tlock file" in first.output
    summary = first.output.strip().splitlines()[-1]
    assert summary.startswith(f"{repo.resolve()}: 9 files indexed (9 new, 0 changed, 0 unchanged)")

    # from inside the repository, PATH defaults to its top
    again = run(app, "index", cwd=repo / "billing", monkeypatch=monkeypatch)
    assert "(0 new, 0 changed, 9 unchanged)" in again.output and "0 embedded" in again.output

    listed = run(app, "index", "--list", "--json")
    assert json.loads(listed.output)[0]["root"] == str(repo.resolve())

    found = run(app, "search", "--json", "--top", "2", "count vowels")
    answer = json.loads(found.output)
    assert answer["project"] == str(repo.resolve()) and len(answer["hits"]) == 2
    assert answer["hits"][0]["symbol"] == "count_vowels"
    assert answer["hits"][0]["file_path"] == "c/vowels.c"

    text = run(app, "search", "--project", str(repo), "ring buffer")
    assert "src/ring.rs:6-11" in text.output and "impl RingBuffer" in text.output

    forgot = run(app, "index", "--forget", str(repo))
    assert forgot.exit_code == 0
    assert "no project is indexed" in run(app, "index", "--list").output


def test_queries_file_answers_one_json_line_per_query(app, repo: Path, tmp_path) -> None:
    run(app, "index", str(repo))
    queries = tmp_path / "q.txt"
    queries.write_text("parse user profile\n\nliveness probe handler\ndeploy strategy\n")
    result = run(
        app, "search", "--project", str(repo), "--queries-file", str(queries), "--top", "1"
    )
    lines = [json.loads(line) for line in result.output.strip().splitlines()]
    assert [line["query"] for line in lines] == [
        "parse user profile",
        "liveness probe handler",
        "deploy strategy",
    ]
    assert [line["hits"][0]["file_path"] for line in lines] == [
        "web/profile.ts",
        "server/health.go",
        "docs/handbook.md",
    ]


def test_errors_are_clear_and_change_nothing(app, repo: Path, tmp_path) -> None:
    missing = run(app, "index", str(tmp_path / "missing"))
    assert missing.exit_code == 2 and "does not exist" in missing.output
    not_dir = run(app, "index", str(repo / "billing/invoice.py"))
    assert not_dir.exit_code == 2 and "is not a directory" in not_dir.output
    assert "no project is indexed" in run(app, "index", "--list").output
    assert run(app, "index", "--forget", str(repo)).exit_code == 1
    unindexed = run(app, "search", "--project", str(repo), "anything")
    assert unindexed.exit_code == 2 and "no indexed project contains" in unindexed.output
    assert run(app, "search").exit_code == 2
    no_file = run(app, "search", "--queries-file", str(tmp_path / "none.txt"))
    assert no_file.exit_code == 2 and "cannot read" in no_file.output


def test_one_of_anything_is_singular_and_no_hit_says_so(app, tmp_path: Path) -> None:
    project = tmp_path / "tiny"
    project.mkdir()
    (project / "notes.md").write_text("# Notes\n\nThe release train leaves on Thursdays.\n")
    first = run(app, "index", str(project))
    assert first.exit_code == 0, first.output
    summary = first.output.strip().splitlines()[-1]
    assert ": 1 file indexed (1 new," in summary and "; 1 chunk written" in summary
    empty = project / "empty"
    empty.mkdir()
    assert ": 0 files indexed" in run(app, "index", str(empty)).output
    nothing = run(app, "search", "--project", str(project), "--mode", "keyword", "zyzzyva")
    assert nothing.exit_code == 0 and "no match for 'zyzzyva'" in nothing.output
