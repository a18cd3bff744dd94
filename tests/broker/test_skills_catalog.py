"""Skills in get_tool_list (issue 18, item 6): the seeds' catalog is a role-filtered view of every
server *and skill*. Through a real `broker stdio` with mcp-server-time: the role's skills with
one line each inside the token budget, a skill meant for other agents hidden (from
find_tool too), and describe_tool(skill=ID) returning its instructions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from neuralgentics.broker.catalog import count_tokens, render_catalog
from neuralgentics.broker.skillcatalog import SkillRecord, skill_records, skills_for_role
from tests.broker.conftest import base_config, time_server
from tests.broker.test_stdio_front import broker_stdio, text

DEPLOY_SKILL = """---
id: deploy-checklist
name: Deploy checklist
description: Steps to ship a release safely. Then more words that are not shown.
agents: [coder]
---
1. Run the tests. 2. Tag the release. 3. Watch the error rate for ten minutes.
"""


def test_skills_for_role_and_their_lines_in_the_budget() -> None:
    records = skill_records(
        [
            {"id": "review", "name": "Review", "description": "Reviews changes. Long tail."},
            {"id": "deploy", "name": "Deploy", "description": "Ships it.", "agents": ["coder"]},
        ]
    )
    assert [s.id for s in skills_for_role(records, "coder")] == ["review", "deploy"]
    assert [s.id for s in skills_for_role(records, "reviewer")] == ["review"]
    assert [s.id for s in skills_for_role(records, None)] == ["review", "deploy"]  # operator

    view = render_catalog({}, {}, skills=records)
    assert "- review: Reviews changes." in view.text and "Long tail" not in view.text
    tools = {f"s{i}": [] for i in range(3)}
    tight = render_catalog(tools, {}, budget_tokens=60, skills=records)
    # over budget the descriptions go first; the names stay
    assert "review, deploy" in tight.text and "Reviews changes" not in tight.text
    assert tight.tokens == count_tokens(tight.text)


@pytest.fixture
def config(write_config, home: Path) -> Path:
    skills = home / "config" / "skills"
    skills.mkdir(parents=True)
    (skills / "deploy-checklist.md").write_text(DEPLOY_SKILL)
    # brokered (one small server alone would be listed directly: expose auto)
    return write_config(base_config(time={**time_server(), "expose": "none"}))


async def test_get_tool_list_shows_the_roles_skills_and_describe_tool_loads_one(
    config: Path, home: Path
) -> None:
    async with broker_stdio(config, home, "coder") as s:
        catalog = text(await s.call_tool("get_tool_list", {}))
        assert "get_current_time" in catalog
        assert "- deploy-checklist: Steps to ship a release safely." in catalog
        assert "- reviewer: Reviews changes for correctness" in catalog  # a built-in skill
        assert count_tokens(catalog) <= 600
        loaded = json.loads(text(await s.call_tool("describe_tool", {"skill": "deploy-checklist"})))
        assert loaded["name"] == "Deploy checklist"
        assert "Watch the error rate" in loaded["instructions"]
        found = json.loads(
            text(await s.call_tool("find_tool", {"intent": "ship the release to production"}))
        )
        assert "deploy-checklist" in [k["id"] for k in found.get("skills", [])]

    async with broker_stdio(config, home, "reviewer") as s:
        catalog = text(await s.call_tool("get_tool_list", {}))
        assert "deploy-checklist" not in catalog and "reviewer" in catalog
        with pytest.raises(MCPError) as hidden:
            await s.call_tool("describe_tool", {"skill": "deploy-checklist"})
        assert hidden.value.error.code == -32004
        assert "no skill 'deploy-checklist'" in hidden.value.error.message
        found = json.loads(
            text(await s.call_tool("find_tool", {"intent": "ship the release to production"}))
        )
        assert "deploy-checklist" not in [k["id"] for k in found.get("skills", [])]
        with pytest.raises(MCPError) as both:
            await s.call_tool("describe_tool", {"skill": "reviewer", "server": "time"})
        assert both.value.error.code == -32602


def test_a_skill_record_keeps_who_it_is_for() -> None:
    class Skill:  # the orchestrator's Skill carries `agents` as a list
        id, name, description, body, agents = "x", "X", "", "", ["coder", "tester"]

    assert SkillRecord.from_any(Skill()).agents == ("coder", "tester")
