"""find_tool, mcp_router_call with an intent, and POST /match against the real broker with real
downstream servers (mcp-server-time, mcp-server-git)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
import pytest_asyncio
from catalog_support import git_server, time_server
from fastapi import FastAPI

from neuralgentics.app.process import shared_embedder
from neuralgentics.broker.catalog.names import expand_group
from neuralgentics.broker.config import BrokerConfig
from neuralgentics.broker.intent.tools import (
    FIND_TOOL,
    UNSURE_CANDIDATES,
    UNSURE_DETAILED,
    IntentError,
    MatcherPool,
    find_tool,
    match_for_role,
    resolve_intent,
)
from neuralgentics.broker.server import rest
from neuralgentics.broker.service import Broker
from neuralgentics.config import Settings
from neuralgentics.http_errors import install_error_handlers


def _config(repo) -> BrokerConfig:
    return BrokerConfig.model_validate(
        {
            "servers": {"time": time_server(), "git": git_server(repo)},
            "roles": {
                "coder": {"allow": ["time/*", "git/*"]},
                "reviewer": {
                    "allow": ["time/get_current_time", "git/*"],
                    "deny": ["git/git_commit"],
                },
                "nobody": {"allow": []},
            },
        }
    )


# The tests below only read the broker (rank, resolve, call read-only tools): one broker, with
# its real time and git servers started once, serves the module, on the module's event loop.
on_module_loop = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[Broker, Path]]:
    """(the broker, its git server's repository)."""
    base = tmp_path_factory.mktemp("intent-tools")
    repo = base / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    settings = Settings(home=base / "home", config_dir=base / "config")
    async with Broker.open(config=_config(repo), settings=settings) as broker:
        yield broker, repo


@on_module_loop
async def test_find_tool_ranks_what_the_role_may_call(served: tuple[Broker, Path]) -> None:
    broker, _ = served
    text = await find_tool(
        broker, "coder", {"intent": "which files did I modify but not stage yet"}
    )
    data = json.loads(text)
    assert data["candidates"][0]["server"] == "git"
    assert data["candidates"][0]["tool"] in ("git_status", "git_diff_unstaged")
    assert all({"server", "tool", "score", "why"} <= set(c) for c in data["candidates"])

    denied = json.loads(
        await find_tool(broker, "reviewer", {"intent": "commit the staged changes", "top_k": 20})
    )
    assert all(c["tool"] != "git_commit" for c in denied["candidates"])
    assert all(c["tool"] != "convert_time" for c in denied["candidates"])

    none = json.loads(await find_tool(broker, "nobody", {"intent": "what time is it"}))
    assert none["candidates"] == [] and "no tool your role may call" in none["note"]


@on_module_loop
async def test_find_tool_rejects_bad_arguments(served: tuple[Broker, Path]) -> None:
    broker, _ = served
    with pytest.raises(IntentError, match="'intent' is required"):
        await find_tool(broker, "coder", {})
    with pytest.raises(IntentError, match="'top_k' must be an integer from 1 to 20"):
        await find_tool(broker, "coder", {"intent": "x", "top_k": 0})
    with pytest.raises(IntentError, match="unknown argument"):
        await find_tool(broker, "coder", {"intent": "x", "server": "git"})
    assert FIND_TOOL.input_schema["required"] == ["intent"]


@on_module_loop
async def test_router_intent_resolves_when_confident_and_asks_when_not(
    served: tuple[Broker, Path],
) -> None:
    broker, git_repo = served
    repo = {"repo_path": str(git_repo)}
    named = await resolve_intent(broker, "coder", "run git_status on the repo", repo)
    assert named.resolved and (named.server, named.tool) == ("git", "git_status")
    # The resolved pair is a real call through the broker.
    result = await broker.call(
        role="coder",
        server=named.server,
        tool=named.tool,
        arguments={"repo_path": str(git_repo)},
    )
    assert not result.is_error

    vague = await resolve_intent(broker, "coder", "do the thing with the stuff")
    assert not vague.resolved and vague.message is not None
    assert "nothing was called" in vague.message and "mcp_router_call" in vague.message
    assert "1. " in vague.message and "/" in vague.message  # numbered server/tool choices
    # UNSURE_CANDIDATES of them (the role may call more): the first UNSURE_DETAILED on
    # numbered lines with why, the rest by server on an "Also:" line; no repeats
    lines = [ln for ln in vague.message.splitlines() if ln[:1].isdigit()]
    assert len(lines) == UNSURE_DETAILED
    shown = [ln.split(" — ")[0].split(". ", 1)[1] for ln in lines]
    (also,) = [ln for ln in vague.message.splitlines() if ln.startswith("Also: ")]
    for group in also.removeprefix("Also: ").split("; "):
        server, names = group.split(": ", 1)
        shown += [f"{server}/{n}" for item in names.split(", ") for n in expand_group(item)]
    ranked = [f"{c.server}/{c.tool}" for c in vague.result.candidates]
    assert len(shown) == len(set(shown)) == min(UNSURE_CANDIDATES, len(ranked)) > 10
    assert set(shown) == set(ranked[:UNSURE_CANDIDATES]) and shown[:3] == ranked[:3]

    # A tool that deletes or resets runs from an intent only when the intent names it.
    reset = await resolve_intent(broker, "coder", "reset the staging area")
    assert reset.result.best.tool == "git_reset" and reset.result.best.action == "delete"
    assert not reset.resolved and "deletes or stops something" in reset.message
    # ... and any tool only when the arguments fit it (issue 29): git_reset needs repo_path
    unfit = await resolve_intent(broker, "coder", "git_reset please")
    assert not unfit.resolved and "it needs 'repo_path'" in (unfit.message or "")
    named_reset = await resolve_intent(broker, "coder", "git_reset please", repo)
    assert named_reset.resolved and named_reset.tool == "git_reset"

    nobody = await resolve_intent(broker, "nobody", "what time is it")
    assert not nobody.resolved and "No tool your role may call" in nobody.message


@on_module_loop
async def test_the_pool_rebuilds_only_when_tools_change(served: tuple[Broker, Path]) -> None:
    pool = MatcherPool(shared_embedder())
    broker, _ = served
    await match_for_role(broker, "coder", "what time is it", pool=pool, skills=[])
    first = pool.get(await broker.tools_by_server("coder"), broker.summaries("coder"))
    await match_for_role(broker, "coder", "show the log", pool=pool, skills=[])
    assert pool.get(await broker.tools_by_server("coder"), broker.summaries("coder")) is first
    other = pool.get(await broker.tools_by_server("reviewer"), broker.summaries("reviewer"))
    assert other is not first

    from neuralgentics.broker.intent.tools import _matcher_for, warm_for_role

    reviewer = await _matcher_for(broker, "reviewer", None, pool)
    assert reviewer._tools.vectors is None  # built lazily...
    await warm_for_role(broker, "reviewer", pool=pool)
    assert reviewer._tools.vectors is not None  # ...or ahead of the first find_tool


@on_module_loop
async def test_post_match_route(served: tuple[Broker, Path]) -> None:
    holder: dict[str, Broker] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        holder["b"] = served[0]  # the module's broker
        yield

    app = FastAPI(lifespan=lifespan)
    install_error_handlers(app)
    app.dependency_overrides[rest.current_broker] = lambda: holder["b"]
    app.include_router(rest.router)
    async with lifespan(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            r = await client.post(
                "/match",
                json={"intent": "convert 9am Berlin time to New York"},
                headers={"X-Neuralgentics-Role": "coder"},
            )
            assert r.status_code == 200, r.text
            body = r.json()
            assert body["role"] == "coder"
            assert (body["candidates"][0]["server"], body["candidates"][0]["tool"]) == (
                "time",
                "convert_time",
            )
            assert {"confidence", "confident", "skills"} <= set(body)

            r = await client.post("/match", json={"intent": "", "role": "coder"})
            assert r.status_code == 422 and "intent" in r.text
            r = await client.post("/match", json={"intent": "x", "role": "coder", "top_k": 99})
            assert r.status_code == 422 and "top_k" in r.text
            r = await client.post("/match", json={"intent": "x", "role": "coder", "bogus": 1})
            assert r.status_code == 422 and "bogus" in r.text


@on_module_loop
async def test_router_call_with_an_intent_calls_only_when_confident(
    served: tuple[Broker, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from neuralgentics.broker.intent.tools import call_by_intent

    broker, _ = served
    audited: list = []
    real_write = broker.audit.write

    async def record(rec):
        audited.append((rec.server, rec.tool, rec.outcome))
        await real_write(rec)

    monkeypatch.setattr(broker.audit, "write", record)  # undone after the test
    done = await call_by_intent(
        broker,
        role="coder",
        intent="get_current_time in Tokyo",
        arguments={"timezone": "Asia/Tokyo"},
        front="test",
    )
    assert not done.is_error
    assert "Asia/Tokyo" in done.content[0].text
    assert done.meta["neuralgentics/resolved"] == {
        "server": "time",
        "tool": "get_current_time",
        "confidence": 1.0,
    }
    # how it was resolved (issue 29), then the call itself
    assert audited == [
        ("time", "get_current_time", "dispatched"),
        ("time", "get_current_time", "ok"),
    ]

    unsure = await call_by_intent(
        broker, role="coder", intent="do the thing with the stuff", arguments={}
    )
    assert unsure.is_error and "nothing was called" in unsure.content[0].text
    assert (
        unsure.structured_content["resolved"] is False and unsure.structured_content["candidates"]
    )
    assert audited[2:] == [("-", "-", "unresolved")]  # audited; no call went downstream


def test_meta_tools_gain_find_tool_and_an_intent_argument() -> None:
    from neuralgentics.broker.intent.tools import with_intent_tools
    from neuralgentics.broker.server.handlers import META_TOOLS

    tools = {t.name: t for t in with_intent_tools(META_TOOLS)}
    assert "find_tool" in tools
    router = tools["mcp_router_call"].input_schema
    assert "intent" in router["properties"] and "required" not in router
    # Idempotent: the broker may already have wrapped its meta-tools.
    again = {t.name: t for t in with_intent_tools(list(tools.values()))}
    assert again == tools
