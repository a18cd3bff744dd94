"""The scripted model of bench/session_tokens.py: it decides every step from the request alone.

The same script plays every configuration (no MCP, the servers attached natively, behind the
broker, behind the broker with the plugin), because it looks at what it is offered:

- a native MCP tool (`time_get_current_time`, or the broker's passthrough
  `neuralgentics_time_get_current_time`) is called directly when it is in the request's
  tools; otherwise the broker's router (`<server>_mcp_router_call`) is called with
  `{server, tool, arguments}`; with neither it answers in text;
- "catalog first" routes the call straight away when the server that offers the tool is in the
  system prompt's `<mcp_instructions>` (the broker's catalog); otherwise it asks
  `<broker>_get_tool_list`, reads the server from the catalog text, then routes the call;
- a delegation calls `task` for the built-in `general` subagent; the subagent's requests are
  recognised by the SUBTASK marker in its prompt and play the direct call;
- the memory chat is three user turns in one session (store a fact, recall it, close).

Tasks are recognised by a marker in the user's message, so one endpoint serves every session.
Requests without tools are OpenCode's own (title generation) and get a short title.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fake_llm import Reply, ToolCall, tool_names

SUBTASK = "SUBTASK:"
CODENAME = "AURORA-7"


@dataclass(frozen=True)
class TurnCall:
    name: str
    arguments: dict[str, Any]
    result: str | None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return "" if content is None else json.dumps(content)


def last_user_text(req: dict[str, Any]) -> str:
    for m in reversed(req.get("messages") or []):
        if m.get("role") == "user":
            return _text(m.get("content"))
    return ""


def turn_calls(req: dict[str, Any]) -> list[TurnCall]:
    """Tool calls the model made since the last user message, with their results."""
    msgs = req.get("messages") or []
    start = max((i for i, m in enumerate(msgs) if m.get("role") == "user"), default=-1) + 1
    results = {
        m.get("tool_call_id"): _text(m.get("content"))
        for m in msgs[start:]
        if m.get("role") == "tool"
    }
    out = []
    for m in msgs[start:]:
        for c in m.get("tool_calls") or []:
            fn = c.get("function") or {}
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except json.JSONDecodeError:
                args = {}
            out.append(TurnCall(fn.get("name", ""), args, results.get(c.get("id"))))
    return out


def _sanitize(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)


def _suffixed(names: set[str], suffix: str) -> str | None:
    found = sorted(n for n in names if n.endswith(suffix))
    return found[0] if found else None


def mcp_call(names: set[str], server: str, tool: str, arguments: dict[str, Any]) -> ToolCall | None:
    """The call of `server`/`tool` with what is offered: natively, or through the broker's router."""
    native = f"{_sanitize(server)}_{_sanitize(tool)}"
    if native in names:
        return ToolCall(native, arguments)
    # listed directly by the broker (passthrough, `expose: auto`): `<broker>_<server>_<tool>`
    passthrough = _suffixed(names, f"_{native}")
    if passthrough:
        return ToolCall(passthrough, arguments)
    router = _suffixed(names, "_mcp_router_call")
    if router:
        return ToolCall(router, {"server": server, "tool": tool, "arguments": arguments})
    return None


def server_offering(catalog: str, tool: str) -> str | None:
    """Which server the catalog lists `tool` under (a line `server: … tool …`, or a server
    heading followed by indented tool lines)."""
    current = None
    for line in catalog.splitlines():
        head = re.match(r"^\s*[-*]?\s*`?([A-Za-z0-9][A-Za-z0-9_.-]*)`?\s*(?:\(|:|—|-\s)", line)
        if head and not line.startswith(("  ", "\t")):
            current = head.group(1)
        listed = line.split("Tools:", 1)[1] if "Tools:" in line else line  # not the summary's words
        if re.search(rf"(?<![A-Za-z0-9_-]){re.escape(tool)}(?![A-Za-z0-9_-])", listed):
            if head:
                return head.group(1)
            return current
    return None


def found_server(result: str | None, tool: str) -> str | None:
    """The server of ``tool`` among a find_tool answer's candidates (JSON), if there."""
    try:
        data = json.loads(result or "")
    except json.JSONDecodeError:
        return None
    for c in data.get("candidates") or [] if isinstance(data, dict) else []:
        if isinstance(c, dict) and c.get("tool") == tool and isinstance(c.get("server"), str):
            return c["server"]
    return None


def mcp_instructions(system: str) -> str:
    """The <mcp_instructions> block OpenCode puts into the system prompt ('' when none)."""
    m = re.search(r"<mcp_instructions>(.*?)</mcp_instructions>", system, re.DOTALL)
    return m.group(1) if m else ""


def _done(calls: list[TurnCall], name_part: str) -> TurnCall | None:
    found = [c for c in calls if name_part in c.name]
    return found[-1] if found else None


def _summary(call: TurnCall | None, fallback: str) -> str:
    if call is None or call.result is None:
        return fallback
    return f"{fallback} Result: {call.result.strip()[:200]}"


def _direct_time(names: set[str], calls: list[TurnCall]) -> Reply:
    if not calls:
        call = mcp_call(names, "time", "get_current_time", {"timezone": "UTC"})
        if call is None:
            return Reply(text="I have no clock tool here, so I cannot tell the current UTC time.")
        return Reply(tool_calls=[call])
    return Reply(text=_summary(calls[-1], "Here is the current time in UTC."))


def task_direct(names: set[str], calls: list[TurnCall], user: str, system: str = "") -> Reply:
    return _direct_time(names, calls)


def task_catalog(names: set[str], calls: list[TurnCall], user: str, system: str = "") -> Reply:
    args = {"path": user.split("DIR=", 1)[1].split()[0].strip('"') if "DIR=" in user else "."}
    native = mcp_call(names, "filesystem", "list_directory", args)
    if native is not None and native.name != _suffixed(names, "_mcp_router_call"):
        return (
            Reply(tool_calls=[native])
            if not calls
            else Reply(text=_summary(calls[-1], "These are the files."))
        )
    catalog_tool = _suffixed(names, "_get_tool_list")
    if catalog_tool is None or native is None:
        return Reply(text="I have no tool that lists a directory here.")
    # The catalog may already be in the system prompt (the broker's MCP instructions): then
    # the model routes the call straight away; otherwise it asks get_tool_list first.
    known = server_offering(mcp_instructions(system), "list_directory")
    listed = _done(calls, "_get_tool_list")
    if listed is None and known is None:
        return Reply(tool_calls=[ToolCall(catalog_tool, {})])
    routed = _done(calls, "_mcp_router_call")
    if routed is None:
        server = known or server_offering(listed.result if listed else "", "list_directory")
        # a long catalog names some tools only by count: search, as its last line says
        searched = _done(calls, "_find_tool")
        if server is None and searched is not None:
            server = found_server(searched.result, "list_directory")
        search = _suffixed(names, "_find_tool")
        if server is None and searched is None and search is not None and listed is not None:
            return Reply(tool_calls=[ToolCall(search, {"intent": "list the files of a directory"})])
        if server is None:
            return Reply(text="The catalog lists no server with list_directory.")
        return Reply(
            tool_calls=[
                ToolCall(
                    native.name, {"server": server, "tool": "list_directory", "arguments": args}
                )
            ]
        )
    return Reply(text=_summary(routed, "These are the files."))


def redirected_to(result: str | None) -> str | None:
    """The agent a refused delegation names instead (the plugin's routing check says
    'call the task tool again with subagent_type "X"'), as a model would read it."""
    m = re.search(r'subagent_type "([A-Za-z0-9_-]+)"', result or "")
    return m.group(1) if m else None


def task_delegate(names: set[str], calls: list[TurnCall], user: str, system: str = "") -> Reply:
    if SUBTASK in user:  # the subagent's own session
        return _direct_time(names, calls)
    if "task" not in names:
        return _direct_time(names, calls)
    delegation = {
        "description": "Current UTC time",
        "prompt": f"{SUBTASK} What time is it in UTC? Use the time tool and answer with the time.",
    }
    if not calls:
        return Reply(tool_calls=[ToolCall("task", {**delegation, "subagent_type": "general"})])
    last = calls[-1]
    instead = redirected_to(last.result) if last.name == "task" else None
    if instead and len(calls) < 3 and instead != last.arguments.get("subagent_type"):
        return Reply(tool_calls=[ToolCall("task", {**delegation, "subagent_type": instead})])
    return Reply(text=_summary(last, "The subagent reported the time."))


def task_chat(names: set[str], calls: list[TurnCall], user: str, system: str = "") -> Reply:
    if "CHAT-1" in user:
        if not calls:
            call = mcp_call(
                names,
                "memory",
                "create_entities",
                {
                    "entities": [
                        {
                            "name": "release",
                            "entityType": "project",
                            "observations": [f"the release codename is {CODENAME}"],
                        }
                    ]
                },
            )
            if call:
                return Reply(tool_calls=[call])
        return Reply(text=f"Noted: the release codename is {CODENAME}.")
    if "CHAT-2" in user:
        if not calls:
            call = mcp_call(names, "memory", "search_nodes", {"query": "release"})
            if call:
                return Reply(tool_calls=[call])
            return Reply(text=f"You told me earlier: {CODENAME}.")
        return Reply(text=_summary(calls[-1], f"The release codename is {CODENAME}."))
    return Reply(text="You're welcome.")


@dataclass(frozen=True)
class Task:
    name: str
    title: str
    turns: tuple[str, ...]  # user messages, in one session
    play: Callable[[set[str], list[TurnCall], str, str], Reply]
    uses_mcp: bool = True


def tasks(project_dir: str) -> dict[str, Task]:
    return {
        t.name: t
        for t in (
            Task(
                "direct",
                "direct tool call (time in UTC)",
                ("TASK-DIRECT What time is it in UTC?",),
                task_direct,
            ),
            Task(
                "catalog",
                "catalog first, then the call (list the project)",
                (f"TASK-CATALOG List the files of the project directory DIR={project_dir}",),
                task_catalog,
            ),
            Task(
                "delegate",
                "delegation to a subagent that calls the tool",
                ("TASK-DELEGATE Ask a subagent for the current UTC time.",),
                task_delegate,
            ),
            Task(
                "chat",
                "three-turn chat with the memory server",
                (
                    "TASK-CHAT CHAT-1 Remember for later: the release codename is "
                    + CODENAME
                    + ".",
                    "TASK-CHAT CHAT-2 What is the release codename?",
                    "TASK-CHAT CHAT-3 Thanks, that's all.",
                ),
                task_chat,
            ),
        )
    }


def script(all_tasks: dict[str, Task], errors: list[str]) -> Callable[[dict[str, Any]], Reply]:
    """The fake LLM's `script(request) -> Reply` for every task at once."""

    def play(req: dict[str, Any]) -> Reply:
        names = tool_names(req)
        if not names:
            return Reply(
                text="Token benchmark session"
            )  # title generation (and any tool-less request)
        user = last_user_text(req)
        first_user = next(
            (_text(m.get("content")) for m in req.get("messages") or [] if m.get("role") == "user"),
            "",
        )
        system = "\n".join(
            _text(m.get("content")) for m in req.get("messages") or [] if m.get("role") == "system"
        )
        for t in all_tasks.values():
            marker = f"TASK-{t.name.upper()}"
            if marker in user or marker in first_user or (t.name == "delegate" and SUBTASK in user):
                return t.play(names, turn_calls(req), user, system)
        errors.append(f"no task matches the user message {user[:120]!r}")
        return Reply(text="(bench script: no task matches this message)")

    return play
