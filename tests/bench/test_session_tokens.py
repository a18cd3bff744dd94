"""bench/session_tokens.py's scripted model and token accounting (no OpenCode run here)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests" / "opencode"))

from session_script import SUBTASK, redirected_to, script, server_offering, tasks
from session_tokens import count_request, request_kind, tokens

# The catalog as `get_tool_list` answers it (copied from a real run, shortened).
CATALOG = (
    "Tools by server; call with mcp_router_call, see arguments with describe_tool, search with find_tool.\n"
    "- everything: Topics: resource, toggle, content. Tools: echo, get-env, get-sum\n"
    "- filesystem: Topics: file, directory, text. Tools: read_file, list_directory_with_sizes, list_directory\n"
    "- time: Topics: convert. Tools: get_current_time, convert_time"
)


def tool(name: str, description: str = "d") -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": {}},
        },
    }


def request(
    user: str, tools: list[str], turn: list[dict] | None = None, system: str = "You are opencode"
) -> dict:
    return {
        "model": "fake-model",
        "tools": [tool(t) for t in tools],
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
            *(turn or []),
        ],
    }


def call(cid: str, name: str, args: dict, result: str) -> list[dict]:
    return [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": cid,
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": cid, "content": result},
    ]


def play(req: dict, errors: list[str] | None = None):
    return script(tasks("/p/proj"), [] if errors is None else errors)(req)


BUILTIN = ["bash", "read", "task"]
ROUTER = [
    "neuralgentics_get_tool_list",
    "neuralgentics_mcp_router_call",
    "neuralgentics_describe_tool",
]


def test_the_direct_call_goes_to_the_native_tool_when_it_is_offered_else_through_the_router() -> (
    None
):
    user = tasks("/p")["direct"].turns[0]
    native = play(request(user, [*BUILTIN, "time_get_current_time", "time_convert_time"]))
    assert [(c.name, c.arguments) for c in native.tool_calls] == [
        ("time_get_current_time", {"timezone": "UTC"})
    ]
    routed = play(request(user, [*BUILTIN, *ROUTER]))
    assert [(c.name, c.arguments) for c in routed.tool_calls] == [
        (
            "neuralgentics_mcp_router_call",
            {"server": "time", "tool": "get_current_time", "arguments": {"timezone": "UTC"}},
        )
    ]
    nothing = play(request(user, BUILTIN))
    assert not nothing.tool_calls and "cannot" in nothing.text
    done = play(
        request(
            user,
            [*BUILTIN, *ROUTER],
            call("c1", "neuralgentics_mcp_router_call", {}, '{"timezone": "UTC"}'),
        )
    )
    assert not done.tool_calls and "UTC" in done.text


def test_catalog_first_reads_the_server_from_the_catalog_then_routes_the_call() -> None:
    user = tasks("/p/proj")["catalog"].turns[0]
    first = play(request(user, [*BUILTIN, *ROUTER]))
    assert [c.name for c in first.tool_calls] == ["neuralgentics_get_tool_list"]
    turn = call("c1", "neuralgentics_get_tool_list", {}, CATALOG)
    second = play(request(user, [*BUILTIN, *ROUTER], turn))
    assert [(c.name, c.arguments) for c in second.tool_calls] == [
        (
            "neuralgentics_mcp_router_call",
            {"server": "filesystem", "tool": "list_directory", "arguments": {"path": "/p/proj"}},
        )
    ]
    # natively the full schema is already offered: no catalog, the tool straight away
    native = play(request(user, [*BUILTIN, "filesystem_list_directory"]))
    assert [(c.name, c.arguments) for c in native.tool_calls] == [
        ("filesystem_list_directory", {"path": "/p/proj"})
    ]


def test_with_the_catalog_in_the_mcp_instructions_the_call_is_routed_without_a_round_trip() -> None:
    user = tasks("/p/proj")["catalog"].turns[0]
    system = f"You are opencode\n<mcp_instructions>\n{CATALOG}\n</mcp_instructions>"
    first = play(request(user, [*BUILTIN, *ROUTER], system=system))
    assert [(c.name, c.arguments) for c in first.tool_calls] == [
        (
            "neuralgentics_mcp_router_call",
            {"server": "filesystem", "tool": "list_directory", "arguments": {"path": "/p/proj"}},
        )
    ]
    # instructions that name no server with the tool: get_tool_list first, as before
    guide = "You are opencode\n<mcp_instructions>\nGet the catalog with get_tool_list.\n</mcp_instructions>"
    assert [c.name for c in play(request(user, [*BUILTIN, *ROUTER], system=guide)).tool_calls] == [
        "neuralgentics_get_tool_list"
    ]


def test_server_offering_matches_whole_tool_names_only() -> None:
    assert server_offering(CATALOG, "list_directory") == "filesystem"
    assert server_offering(CATALOG, "get_current_time") == "time"
    assert server_offering(CATALOG, "get") is None
    assert server_offering(CATALOG, "no_such_tool") is None


def test_a_refused_delegation_is_retried_with_the_agent_the_refusal_names() -> None:
    user = tasks("/p")["delegate"].turns[0]
    first = play(request(user, [*BUILTIN, *ROUTER]))
    assert (
        first.tool_calls[0].name == "task"
        and first.tool_calls[0].arguments["subagent_type"] == "general"
    )
    refusal = (
        'Neuralgentics routing: agent "general" may not take this task. Delegate it to "coder": '
        'call the task tool again with subagent_type "coder".'
    )
    assert redirected_to(refusal) == "coder"
    turn = call("c1", "task", first.tool_calls[0].arguments, refusal)
    again = play(request(user, [*BUILTIN, *ROUTER], turn))
    assert again.tool_calls[0].arguments["subagent_type"] == "coder"
    # the subagent's own session plays the direct call
    sub = play(request(f"{SUBTASK} What time is it in UTC?", [*BUILTIN, *ROUTER]))
    assert sub.tool_calls[0].name == "neuralgentics_mcp_router_call"


def test_the_chat_stores_then_recalls_then_closes_and_unknown_prompts_are_reported() -> None:
    chat = tasks("/p")["chat"]
    store = play(
        request(chat.turns[0], [*BUILTIN, "memory_create_entities", "memory_search_nodes"])
    )
    assert store.tool_calls[0].name == "memory_create_entities"
    recall = play(request(chat.turns[1], [*BUILTIN, *ROUTER]))
    assert recall.tool_calls[0].arguments["tool"] == "search_nodes"
    assert not play(request(chat.turns[2], [*BUILTIN, *ROUTER])).tool_calls
    errors: list[str] = []
    play(request("something else entirely", BUILTIN), errors)
    assert errors and "no task matches" in errors[0]
    assert play(
        {"messages": [{"role": "user", "content": "title this"}]}
    ).text  # tool-less: a title


def test_count_request_separates_tools_system_messages_and_the_mcp_part() -> None:
    instructions = '<mcp_instructions>\n<server name="time">use it</server>\n</mcp_instructions>'
    req = request(
        "hi",
        ["bash", "time_get_current_time", "list_mcp_resources", "neuralgentics_mcp_router_call"],
        system=f"You are opencode.\n{instructions}",
    )
    got = count_request(req, {"time", "neuralgentics"})
    assert got.kind == "main"
    assert (got.tools_offered, got.mcp_tools_offered) == (4, 3)
    assert got.tools == tokens(req["tools"])
    assert got.mcp_tool_defs == tokens(req["tools"][1:])
    assert got.mcp_instructions == tokens(instructions)
    assert got.system == tokens(req["messages"][:1]) and got.messages == tokens(req["messages"][1:])
    assert got.total == got.tools + got.system + got.messages
    assert 0 < got.mcp_share < 1
    title = {
        "messages": [
            {"role": "system", "content": "You are a title generator. Output a title."},
            {"role": "user", "content": "x"},
        ]
    }
    assert request_kind(title) == "title"
    assert request_kind(request(f"{SUBTASK} go", ["bash"])) == "subagent"
    assert count_request(title, set()).tools == 0


def test_a_tool_the_broker_lists_directly_is_called_as_it_is_not_through_the_router() -> None:
    user = tasks("/p")["direct"].turns[0]
    names = [*BUILTIN, "neuralgentics_describe_tool", "neuralgentics_time_get_current_time"]
    reply = play(request(user, names))
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("neuralgentics_time_get_current_time", {"timezone": "UTC"})
    ]


def test_server_counts_take_the_first_servers_and_only_the_tasks_they_can_play() -> None:
    from opencode_harness import SERVER_ORDER
    from session_tokens import tasks_for

    assert len(SERVER_ORDER) == 20 and len(set(SERVER_ORDER)) == 20
    assert SERVER_ORDER[:3] == ("time", "filesystem", "memory")
    everything = ["direct", "catalog", "delegate", "chat"]
    assert tasks_for(1, everything) == ["direct", "delegate"]
    assert tasks_for(3, everything) == everything


def test_a_catalog_that_names_the_tool_only_by_count_is_searched_with_find_tool() -> None:
    user = tasks("/p/proj")["catalog"].turns[0]
    router = [*ROUTER, "neuralgentics_find_tool"]
    short = (
        "- filesystem (14 tools): read_file +13 more\n- time (2 tools): get_current_time +1 more"
    )
    turn = call("c1", "neuralgentics_get_tool_list", {}, short)
    searched = play(request(user, [*BUILTIN, *router], turn))
    assert [c.name for c in searched.tool_calls] == ["neuralgentics_find_tool"]
    found = json.dumps({"candidates": [{"server": "filesystem", "tool": "list_directory"}]})
    turn += call("c2", "neuralgentics_find_tool", {"intent": "x"}, found)
    routed = play(request(user, [*BUILTIN, *router], turn))
    assert [(c.name, c.arguments) for c in routed.tool_calls] == [
        (
            "neuralgentics_mcp_router_call",
            {"server": "filesystem", "tool": "list_directory", "arguments": {"path": "/p/proj"}},
        )
    ]
