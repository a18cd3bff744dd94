"""Project search says when nothing matches well instead of passing far hits off as answers:
in the library (both stores), on the CLI and over HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from neuralgentics.app.process import shared_embedder
from neuralgentics.memini.indexer import cli
from neuralgentics.memini.indexer.indexing import index_project
from neuralgentics.memini.indexer.search import NOTHING_WELL, answer

NONSENSE = "quantum chromodynamics lattice simulation"


def test_nonsense_gets_no_ordinary_hits_and_no_perfect_score(chunks, repo: Path) -> None:
    index_project(repo, chunks, embedder=shared_embedder())
    project = str(repo.resolve())
    found = answer(chunks, project, NONSENSE, embedder=shared_embedder())
    assert found.hits == [] and found.note == NOTHING_WELL
    assert 0 < len(found.closest) <= 3
    # the fusion scales by the query's best; the far best must not read as a perfect match
    assert all(h.score < 0.5 for h in found.closest)
    good = answer(chunks, project, "charge a credit card", embedder=shared_embedder())
    assert good.hits[0].symbol == "PaymentGateway" and good.note is None
    assert good.hits[0].score >= 0.99
    # a name spelled out matches well by its words even where meaning is far
    named = answer(chunks, project, "count_vowels", mode="keyword", embedder=shared_embedder())
    assert named.hits[0].symbol == "count_vowels"


def test_cli_and_route_say_nothing_matches_well(repo: Path) -> None:
    from neuralgentics.app.core import create_app
    from neuralgentics.config import get_settings

    app = typer.Typer()
    cli.register(app)
    runner = CliRunner()
    assert runner.invoke(app, ["index", str(repo)]).exit_code == 0
    shown = runner.invoke(app, ["search", "--project", str(repo), NONSENSE])
    assert shown.exit_code == 0
    assert f"nothing matches {NONSENSE!r} well" in shown.output
    as_json = json.loads(
        runner.invoke(app, ["search", "--project", str(repo), "--json", NONSENSE]).output
    )
    assert as_json["hits"] == [] and as_json["matches_well"] is False
    assert as_json["closest"] and as_json["note"] == NOTHING_WELL

    with TestClient(create_app(get_settings())) as client:
        body = client.post("/project/search", json={"query": NONSENSE, "project": str(repo)}).json()
        assert body["hits"] == [] and body["matches_well"] is False
        assert body["note"] == NOTHING_WELL and body["closest"]
        assert all(h["score"] < 0.5 for h in body["closest"])
        assert body["chunks"] == body["embedded"] > 0
        good = client.post(
            "/project/search", json={"query": "charge a credit card", "project": str(repo)}
        ).json()
        assert good["matches_well"] and good["hits"][0]["symbol"] == "PaymentGateway"
