"""The `neuralgentics` command against a real running memini-core, the token rule, and a
database that is down."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient
from support.cli import neuralgentics
from support.ports import free_port

from neuralgentics.app.core import create_app
from neuralgentics.config import Settings, get_settings

EXE = [sys.executable, "-m", "neuralgentics.cli"]


def run(args: list[str], env: dict, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*EXE, *args], env=env, capture_output=True, text=True, timeout=120, input=stdin
    )


@pytest.fixture
def env(tmp_path) -> dict:
    e = {k: v for k, v in os.environ.items() if not k.startswith("NEURALGENTICS_")}
    e["NEURALGENTICS_HOME"] = str(tmp_path / "home")
    # `serve` creates its token file here, and the CLI reads it from here (never ~/.config)
    e["NEURALGENTICS_CONFIG_DIR"] = str(tmp_path / "config")
    return e


@pytest.fixture
def server(env) -> Iterator[dict]:
    port = free_port()
    env = {**env, "NEURALGENTICS_PORT": str(port)}
    proc = subprocess.Popen(
        [*EXE, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        else:
            raise AssertionError("memini-core did not come up")
        yield env
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_cli_round_trip_against_the_running_service(server):
    # the service is a process of its own; the commands run in-process against it
    def run(*args: str):
        return neuralgentics("memory", *args, env=server)

    added = run("add", "Release notes live in docs/CHANGELOG.md", "-p", "demo", "--json")
    assert added.returncode == 0, added.stderr
    mid = json.loads(added.stdout)["memory"]["id"]
    found = run("query", "where is the changelog?", "--json")
    assert json.loads(found.stdout)["hits"][0]["memory"]["id"] == mid
    assert run("trust", mid, "user_confirmed").returncode == 0
    shown = json.loads(run("get", mid, "--json").stdout)
    assert shown["memory"]["trust_score"] == pytest.approx(0.6)
    table = run("list", "-p", "demo")
    assert "Release notes" in table.stdout and "1 of 1" in table.stdout


def local(*args: str, input: str | None = None):
    """A `memory` command with --local, in-process, over this test's private home."""
    return neuralgentics("memory", *args, "--local", input=input)


def test_cli_local_mode_uses_the_store_directly():
    assert local("add", "-", input="Piped from stdin").returncode == 0
    listed = json.loads(local("list", "--json").stdout)
    assert [m["content"] for m in listed["items"]] == ["Piped from stdin"]
    assert (get_settings().home / "memini.db").exists()


def test_cli_query_floor_is_settable():
    assert local("add", "Deploys go out on Tuesdays.").returncode == 0
    unrelated = local("query", "how long should bread proof?")
    assert unrelated.returncode == 0 and "none is relevant enough (--min-score" in unrelated.stdout
    lowered = local("query", "how long should bread proof?", "--min-score", "-1", "--json")
    assert [h["memory"]["content"] for h in json.loads(lowered.stdout)["hits"]] == [
        "Deploys go out on Tuesdays."
    ]
    bad = local("query", "deploys", "--min-score", "7")
    assert bad.returncode == 2 and "min_score" in bad.stderr


def test_cli_query_table_keeps_the_content_readable_at_80_columns():
    fact = "The CI moved to Buildkite; GitHub Actions is no longer used."
    assert local("add", fact, "--detection", "off").returncode == 0
    shown = local("query", "where does CI run")
    assert shown.returncode == 0
    lines = shown.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "score" in lines[1] and "contradicted by" not in shown.stdout  # nothing contradicted
    cells = " ".join(line.split("│")[5] for line in lines if line.count("│") > 5)
    assert " ".join(cells.split()) == fact  # the whole fact, a few words a line, not one


def test_cli_scopes_add_query_and_list():
    def add(*args: str) -> dict:
        done = local("add", *args, "--detection", "off", "--json")
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["memory"]

    add("Tests run with pytest -q.", "-p", "web")
    add("I want answers in British English.", "--scope", "user")
    add("Here we are fixing the login test.", "-p", "web", "--scope", "session", "--session", "s1")
    add("The build agent caches wheels.", "--scope", "agent", "--agent", "build")
    found = local("query", "tests", "-p", "web", "--session", "s1", "--min-score", "-1", "--json")
    assert {h["memory"]["scope"] for h in json.loads(found.stdout)["hits"]} == {
        "project",
        "user",
        "session",
    }
    only = local(
        "query", "tests", "--scope", "agent", "--agent", "build", "--min-score", "-1", "--json"
    )
    assert [
        (h["memory"]["scope"], h["memory"]["agent"]) for h in json.loads(only.stdout)["hits"]
    ] == [("agent", "build")]
    listed = json.loads(local("list", "--scope", "user", "--json").stdout)
    assert [m["content"] for m in listed["items"]] == ["I want answers in British English."]
    bad = local("add", "No agent named.", "--scope", "agent")
    assert bad.returncode == 2 and "agent" in bad.stderr
    assert json.loads(local("list", "--json").stdout)["total"] == 4


def test_cli_errors_exit_non_zero_with_the_reason():
    bad = local("trust", "not-a-uuid", "agent_used")
    assert bad.returncode == 2 and "neither an id nor the start of one" in bad.stderr
    down = neuralgentics("memory", "list", env={"NEURALGENTICS_PORT": str(free_port())})
    assert down.returncode == 3 and "not reachable" in down.stderr


def test_serve_refuses_a_public_address_without_a_token(env):
    refused = run(["serve", "--host", "0.0.0.0"], env)
    assert refused.returncode == 2 and "NEURALGENTICS_TOKEN" in refused.stderr


def test_a_token_guards_every_route_but_health(tmp_path):
    settings = Settings(home=tmp_path, token="s3cret")
    with TestClient(create_app(settings)) as client:
        assert client.get("/health").status_code == 200
        assert client.get("/memory").status_code == 401
        assert client.get("/memory", headers={"authorization": "Bearer wrong"}).status_code == 401
        ok = client.get("/memory", headers={"authorization": "Bearer s3cret"})
        assert ok.status_code == 200 and ok.json()["total"] == 0


def test_a_database_that_is_down_answers_503_quickly(tmp_path):
    settings = Settings(
        home=tmp_path, database_url=f"postgresql://127.0.0.1:{free_port()}/none?connect_timeout=2"
    )
    with TestClient(create_app(settings)) as client:
        r = client.get("/health")
        assert r.status_code == 503
        assert r.json()["error"]["code"] == "store_unavailable"
        r = client.post("/memory/add", json={"content": "lost?"})
        assert r.status_code == 503
