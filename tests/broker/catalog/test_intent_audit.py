"""Intent calls (issue 29, "also from the feature check"): a confident match is dispatched only
when the agent's arguments fit the tool's schema — "look up what the knowledge graph knows
about Alice" went to memory/read_graph (no arguments) with ``query`` silently dropped — and
every intent call leaves an audit record, dispatched or answered with candidates. Against the
real server-memory (npm) and mcp-server-time (PyPI) behind a real broker."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from catalog_support import time_server
from support.parts import missing

from neuralgentics.broker.config import BrokerConfig
from neuralgentics.broker.intent.tools import call_by_intent
from neuralgentics.broker.service import Broker
from neuralgentics.config import Settings
from tests.broker.conftest import NPM_MISSING, ROOT

MEMORY = ROOT / "node_modules" / ".bin" / "mcp-server-memory"
on_module_loop = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def broker(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Broker]:
    if not MEMORY.exists():
        missing(NPM_MISSING)
    base = tmp_path_factory.mktemp("intent-audit")
    config = BrokerConfig.model_validate(
        {
            "servers": {
                "time": time_server(),
                "memory": {
                    "command": str(MEMORY),
                    "env": {"MEMORY_FILE_PATH": str(base / "memory.jsonl")},
                    "summary": "Knowledge graph memory: entities, relations, observations",
                },
            },
            "roles": {"coder": {"allow": ["time/*", "memory/*"]}},
        }
    )
    settings = Settings(home=base / "home", config_dir=base / "config")
    async with Broker.open(config=config, settings=settings) as b:
        yield b


@pytest.fixture
def audited(broker: Broker, monkeypatch: pytest.MonkeyPatch) -> list:
    seen: list = []
    real_write = broker.audit.write

    async def record(rec):
        seen.append(rec)
        await real_write(rec)

    monkeypatch.setattr(broker.audit, "write", record)
    return seen


@on_module_loop
async def test_arguments_that_do_not_fit_the_matched_tool_get_candidates_not_a_call(
    broker: Broker, audited: list
) -> None:
    out = await call_by_intent(
        broker,
        role="coder",
        intent="look up what the knowledge graph knows about Alice",
        arguments={"query": "Alice"},
        front="test",
        session_id="s-1",
    )
    assert out.is_error and "nothing was called" in out.content[0].text
    assert "the arguments do not fit memory/" in out.content[0].text
    assert "not 'query'" in out.content[0].text
    names = [(c["server"], c["tool"]) for c in out.structured_content["candidates"]]
    assert ("memory", "search_nodes") in names  # the tool that takes a query is offered
    # one record: the intent, unresolved, with why and the candidates; no downstream call
    assert [(r.kind, r.outcome) for r in audited] == [("intent", "unresolved")]
    rec = audited[0].to_dict()
    assert rec["args"]["intent"] == "look up what the knowledge graph knows about Alice"
    assert rec["args"]["arguments"] == {"query": "Alice"}
    assert "do not fit" in rec["error"] and "memory/" in rec["error"]
    assert rec["session_id"] == "s-1" and rec["role"] == "coder"


@on_module_loop
async def test_a_confident_fitting_intent_call_is_dispatched_and_audited_twice(
    broker: Broker, audited: list
) -> None:
    done = await call_by_intent(
        broker,
        role="coder",
        intent="get_current_time in Tokyo",
        arguments={"timezone": "Asia/Tokyo"},
        front="test",
    )
    assert not done.is_error and "Asia/Tokyo" in done.content[0].text
    assert [(r.kind, r.server, r.tool, r.outcome) for r in audited] == [
        ("intent", "time", "get_current_time", "dispatched"),
        ("call", "time", "get_current_time", "ok"),
    ]
    assert audited[0].to_dict()["args"]["confidence"] == 1.0


@on_module_loop
async def test_an_unsure_intent_call_is_audited_with_its_candidates(
    broker: Broker, audited: list
) -> None:
    unsure = await call_by_intent(
        broker, role="coder", intent="do the thing with the stuff", arguments={}
    )
    assert unsure.is_error and "nothing was called" in unsure.content[0].text
    assert [(r.kind, r.outcome) for r in audited] == [("intent", "unresolved")]
    assert "candidates: " in audited[0].error


@on_module_loop
async def test_a_missing_required_argument_is_not_dispatched(broker: Broker, audited: list) -> None:
    out = await call_by_intent(broker, role="coder", intent="get_current_time", arguments={})
    assert out.is_error and "it needs 'timezone'" in out.content[0].text
    assert [(r.kind, r.outcome) for r in audited] == [("intent", "unresolved")]


def test_misfit_reasons() -> None:
    from mcp.types import Tool

    from neuralgentics.broker.intent.fit import misfit

    def tool(schema: dict) -> Tool:
        return Tool(name="t", input_schema=schema)

    assert misfit(tool({"type": "object", "properties": {}}), {"query": "x"}) == (
        "it takes no arguments, not 'query'"
    )
    assert misfit(tool({"type": "object", "properties": {}}), None) is None
    open_schema = {"type": "object", "additionalProperties": True}
    assert misfit(tool(open_schema), {"anything": 1}) is None
    typed = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert "is not of type 'integer'" in (misfit(tool(typed), {"n": "x"}) or "")
    assert misfit(tool(typed), [1]) == "arguments must be an object, got list"
