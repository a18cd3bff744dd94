"""`neuralgentics broker catalog | refresh | match` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
import yaml
from catalog_support import git_server, time_server
from support.cli import invoke

from neuralgentics.broker.catalog.cli import register
from neuralgentics.broker.catalog.toolsfile import dump_tools


@pytest.fixture
def cli() -> typer.Typer:
    root = typer.Typer()
    broker = typer.Typer()
    register(broker)
    root.add_typer(broker, name="broker")
    return root


def run(cli: typer.Typer, *args: str, input: str | None = None):
    return invoke(cli, ["broker", *args], input=input, catch_exceptions=False)


@pytest.fixture
def tools_file(tmp_path: Path, eval_catalog) -> Path:
    tools, summaries = eval_catalog
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(dump_tools(tools, summaries)))
    return path


@pytest.fixture
def config_file(tmp_path: Path, git_repo: Path) -> Path:
    path = tmp_path / "broker.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "servers": {"time": time_server(), "git": git_server(git_repo)},
                "roles": {
                    "coder": {"allow": ["time/*", "git/*", "github/*"]},
                    "timekeeper": {"allow": ["time/*"]},
                },
            }
        )
    )
    return path


def test_match_on_a_tools_file(cli, tools_file: Path) -> None:
    r = run(
        cli,
        "match",
        "--tools-file",
        str(tools_file),
        "--top",
        "3",
        "--json",
        "scale the api deployment to 3 replicas",
    )
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert [c["server"] for c in data["candidates"]][0] == "kubernetes"
    assert data["candidates"][0]["tool"] == "deployment_scale"
    assert len(data["candidates"]) == 3 and {"server", "tool", "score"} <= set(
        data["candidates"][0]
    )
    human = run(
        cli, "match", "--tools-file", str(tools_file), "scale the api deployment to 3 replicas"
    )
    assert "1. kubernetes/deployment_scale" in human.output


def test_queries_file_gives_one_json_line_per_intent(cli, tools_file: Path, tmp_path: Path) -> None:
    queries = tmp_path / "q.txt"
    queries.write_text(
        "what time is it in Tokyo\n\nlist the open pull requests on github\npost hi in #general on slack\n"
    )
    r = run(cli, "match", "--tools-file", str(tools_file), "--queries-file", str(queries))
    assert r.exit_code == 0, r.output
    lines = [json.loads(line) for line in r.output.splitlines()]
    assert [d["intent"] for d in lines] == [
        "what time is it in Tokyo",
        "list the open pull requests on github",
        "post hi in #general on slack",
    ]
    assert lines[1]["candidates"][0]["server"] == "github"
    assert lines[2]["candidates"][0]["tool"] == "slack_post_message"
    piped = run(
        cli,
        "match",
        "--tools-file",
        str(tools_file),
        "--queries-file",
        "-",
        input="what time is it\n",
    )
    assert len(piped.output.splitlines()) == 1


def test_match_with_a_role_sees_only_its_tools(cli, tools_file: Path, config_file: Path) -> None:
    r = run(
        cli,
        "match",
        "--tools-file",
        str(tools_file),
        "--config",
        str(config_file),
        "--role",
        "timekeeper",
        "--top",
        "10",
        "--json",
        "open a pull request",
    )
    data = json.loads(r.output)
    assert data["role"] == "timekeeper" and data["considered"] == 2
    assert {c["server"] for c in data["candidates"]} == {"time"}


def test_match_errors_name_the_problem(
    cli, tools_file: Path, config_file: Path, tmp_path: Path
) -> None:
    r = run(cli, "match", "--tools-file", str(tools_file))
    assert r.exit_code == 2 and "give either an INTENT or --queries-file" in r.output
    r = run(cli, "match", "--tools-file", str(tmp_path / "missing.json"), "x")
    assert r.exit_code == 2 and "missing.json: cannot read tools file" in r.output
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"srv": [{"description": "no name"}]}))
    r = run(cli, "match", "--tools-file", str(bad), "x")
    assert r.exit_code == 2 and "srv[0].name" in r.output
    bad.write_text(
        json.dumps({"srv": [{"name": "a", "inputSchema": {}}, {"name": "a", "inputSchema": {}}]})
    )
    r = run(cli, "match", "--tools-file", str(bad), "x")
    assert r.exit_code == 2 and "duplicate tool name 'a'" in r.output
    r = run(
        cli,
        "match",
        "--tools-file",
        str(tools_file),
        "--config",
        str(config_file),
        "--role",
        "ghost",
        "x",
    )
    assert r.exit_code == 2 and "roles.ghost: no such role" in r.output
    r = run(cli, "match", "--tools-file", str(tools_file), "--mode", "magic", "x")
    assert r.exit_code == 2 and "--mode must be" in r.output


def test_catalog_from_a_tools_file_prints_both_token_counts(cli, tools_file: Path) -> None:
    r = run(cli, "catalog", "--tools-file", str(tools_file))
    assert r.exit_code == 0, r.output
    assert "- github" in r.output and "- kubernetes" in r.output
    assert "tokens of full tools/list schemas for 311 tools" in r.output
    data = json.loads(run(cli, "catalog", "--tools-file", str(tools_file), "--json").output)
    assert data["tokens"] <= 600 < data["full_schema_tokens"]
    assert data["tool_count"] == 311


def test_refresh_fills_the_cache_and_catalog_reads_it_without_starting_servers(
    cli, config_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = run(cli, "catalog", "--config", str(config_file))
    assert before.exit_code == 0, before.output
    assert "tools not listed yet" in before.output and "not listed yet: git, time" in before.output
    unlisted = run(cli, "match", "--config", str(config_file), "what time is it in Paris")
    assert unlisted.exit_code == 0, unlisted.output
    assert "0 tools considered" in unlisted.output
    assert "not listed yet (their tools are not ranked): git, time" in unlisted.stderr
    assert "broker refresh" in unlisted.stderr

    r = run(cli, "refresh", "--config", str(config_file))
    assert r.exit_code == 0, r.output
    assert "time: 2 tools" in r.output and "git: " in r.output

    # From here on, starting a server is impossible: catalog and match read the cache alone.
    import neuralgentics.broker.catalog.fetch as fetch

    def no_start(*args, **kwargs):
        raise AssertionError("a catalog read started a server")

    monkeypatch.setattr(fetch, "open_session", no_start)
    after = run(cli, "catalog", "--config", str(config_file), "--json")
    data = json.loads(after.output)
    by_name = {s["name"]: s for s in data["servers"]}
    assert by_name["time"]["tools"] == ["get_current_time", "convert_time"]
    assert "git_status" in by_name["git"]["tools"]

    role = json.loads(
        run(cli, "catalog", "--config", str(config_file), "--role", "timekeeper", "--json").output
    )
    assert [s["name"] for s in role["servers"]] == ["time"] and role["role"] == "timekeeper"

    matched = json.loads(
        run(cli, "match", "--config", str(config_file), "--json", "what time is it in Paris").output
    )
    assert matched["candidates"][0]["tool"] == "get_current_time"


def test_refresh_reports_each_failure(cli, tmp_path: Path) -> None:
    path = tmp_path / "broker.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "servers": {
                    "time": time_server(),
                    "broken": {"command": str(tmp_path / "no-such-binary")},
                }
            }
        )
    )
    r = run(cli, "refresh", "--config", str(path))
    assert r.exit_code == 1
    assert "time: 2 tools" in r.output and "broken: failed" in r.output
    r = run(cli, "refresh", "--config", str(path), "nope")
    assert r.exit_code == 2 and "no brokered server named 'nope'" in r.output


def test_match_keeps_the_tools_vectors_for_the_next_match(
    cli, tools_file: Path, eval_catalog
) -> None:
    # `match` ranks as the broker's find_tool does, with its vectors file: a second `match` (or
    # the broker) embeds no tool text the first one did
    import numpy as np

    from neuralgentics.config import get_settings

    cache = get_settings().home / "broker" / "embeddings.npz"
    ask = ("match", "--tools-file", str(tools_file), "--json", "scale the api deployment")
    first = run(cli, *ask)
    assert first.exit_code == 0, first.output
    with np.load(cache) as saved:
        assert len(saved["keys"]) >= sum(len(t) for t in eval_catalog[0].values())
    stamp = cache.stat().st_mtime_ns
    second = run(cli, *ask)
    assert json.loads(second.output) == json.loads(first.output)
    assert cache.stat().st_mtime_ns == stamp  # nothing new was embedded, nothing written


def test_match_refuses_an_unknown_query_backend(
    cli, tools_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from neuralgentics.config import get_settings

    monkeypatch.setenv("NEURALGENTICS_INTENT_QUERY_BACKEND", "abacus")
    get_settings.cache_clear()
    r = run(cli, "match", "--tools-file", str(tools_file), "x")
    assert r.exit_code == 2
    assert "abacus" in r.output and "onnx" in r.output
