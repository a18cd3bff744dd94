"""The one error → exit-code contract (docs/development.md, "Exit codes"): bad input exits 2,
an unavailable part 3, anything else 1, in every area's commands; and an error of the tree
raised inside an HTTP front is answered with its status (ModelUnavailable: 503)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from support.cli import neuralgentics

from neuralgentics import errors, exits


def _dead_url() -> str:
    # a port nothing listens on: bound, then closed
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_every_kind_of_the_tree_maps_to_one_exit_code() -> None:
    from neuralgentics.app.serve import ServeError
    from neuralgentics.app.up import UpError, UpRefused
    from neuralgentics.broker.access.patterns import PatternError
    from neuralgentics.broker.catalog.toolsfile import ToolsFileError
    from neuralgentics.broker.config import ConfigError
    from neuralgentics.broker.importer.sources import SourceError
    from neuralgentics.broker.intent.tools import IntentError
    from neuralgentics.credentials import CredentialError
    from neuralgentics.embeddings import ModelUnavailable
    from neuralgentics.opencode.installer import InstallError
    from neuralgentics.opencode.jsonedit import JsonFileError
    from neuralgentics.opencode.models import ModelTierError
    from neuralgentics.opencode.tui import TuiConfigError
    from neuralgentics.opencode.update import FeedUnavailable, UpdateError
    from neuralgentics.orchestrator.errors import MemoryUnavailable, RosterError
    from neuralgentics.ui.broker_client import BrokerUnreachable

    bad_input = [
        errors.InvalidInput("x"),
        errors.NotFound("x"),
        errors.Conflict("x"),
        errors.Forbidden("x"),
        errors.Unauthorized("x"),
        errors.InvalidConfig("x"),
        ConfigError("x"),
        RosterError("x"),
        PatternError("x"),
        ToolsFileError("x"),
        SourceError("x"),
        IntentError("x"),
        CredentialError("x"),
        InstallError("x"),
        UpdateError("x"),
        JsonFileError("x"),
        ModelTierError("x"),
        TuiConfigError("x"),
        ServeError("x"),
        UpRefused("x"),
    ]
    unavailable = [
        errors.Unavailable("x"),
        MemoryUnavailable("x"),
        ModelUnavailable("x"),
        FeedUnavailable("x"),
        BrokerUnreachable("http://b", "x"),
    ]
    assert [exits.exit_code(e) for e in bad_input] == [2] * len(bad_input)
    assert [exits.exit_code(e) for e in unavailable] == [3] * len(unavailable)
    assert exits.exit_code(errors.NeuralgenticsError("x")) == 1
    assert exits.exit_code(UpError("x")) == 1  # a service died while starting: a failure
    assert exits.exit_code(RuntimeError("x")) == 1
    # callers that catch the builtin kinds still catch them
    assert isinstance(ConfigError("x"), ValueError) and isinstance(
        ModelUnavailable("x"), RuntimeError
    )
    assert [exits.status_exit_code(s) for s in (404, 422, 500, 503)] == [2, 2, 1, 3]


@pytest.mark.parametrize(
    "args",
    [
        ("broker", "check", "--config", "/nonexistent/broker.yaml"),  # broker
        ("broker", "role", "show", "nobody"),  # broker roles
        ("broker", "match", "--tools-file", "/nonexistent/tools.json", "x"),  # catalog
        ("broker", "import", "/nonexistent/mcp.json"),  # importer
        ("memory", "add", "x", "--meta", "novalue", "--local"),  # memini
        ("task", "show", "abcd"),  # orchestrator
        ("index", "/nonexistent/project"),  # project index
        ("opencode", "install", "--project", "/nonexistent/project"),  # opencode
    ],
)
def test_bad_input_exits_2_in_every_area(args: tuple[str, ...]) -> None:
    r = neuralgentics(*args)
    assert r.returncode == 2, (args, r.stdout, r.stderr)
    assert r.stderr.strip(), args  # and says why


@pytest.mark.parametrize("args", [("memory", "list"), ("memory", "export"), ("ui", "--print")])
def test_a_service_that_is_not_reachable_exits_3(args: tuple[str, ...]) -> None:
    r = neuralgentics(*args, env={"NEURALGENTICS_SERVICE_URL": _dead_url()})
    assert r.returncode == 3, (args, r.stdout, r.stderr)
    assert "not reachable" in r.stderr


def test_an_unusable_model_exits_3_from_the_commands(tmp_path: Path) -> None:
    from neuralgentics.app.process import forget_shared_embedder

    not_a_folder = tmp_path / "cache-is-a-file"
    not_a_folder.write_text("")
    env = {"NEURALGENTICS_MODEL_CACHE": str(not_a_folder)}
    forget_shared_embedder()  # this test's settings, not an embedder another test made
    try:
        build = neuralgentics("model", "build", env=env)
        route = neuralgentics("route", "fix the login bug", env=env)
    finally:
        forget_shared_embedder()
    assert build.returncode == 3 and "NEURALGENTICS_MODEL_CACHE" in build.stderr, build.stderr
    assert route.returncode == 3 and "NEURALGENTICS_MODEL_CACHE" in route.stderr, route.stderr


def test_an_unusable_model_is_answered_503_in_the_error_body(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from neuralgentics.app.core import create_app
    from neuralgentics.config import Settings
    from neuralgentics.embeddings import embedder_from_settings

    not_a_folder = tmp_path / "cache-is-a-file"
    not_a_folder.write_text("")
    monkeypatch.setenv("NEURALGENTICS_MODEL_CACHE", str(not_a_folder))
    monkeypatch.setenv("NEURALGENTICS_TOKEN", "t" * 32)
    settings = Settings()
    app = create_app(settings, embedder=embedder_from_settings(settings))
    with TestClient(app) as client:
        r = client.post(
            "/memory/add",
            json={"content": "the deploy script needs bash 5"},
            headers={"Authorization": "Bearer " + "t" * 32},
        )
    assert r.status_code == 503, r.text
    body = r.json()["error"]
    assert body["code"] == "model_unavailable" and "NEURALGENTICS_MODEL_CACHE" in body["message"]
