"""Static catalogs from a file: server name -> what its tools/list returns.

Shape (JSON, or YAML — JSON is YAML)::

    {"time": [{"name": "get_current_time", "description": "...", "inputSchema": {...}}],
     "git":  {"summary": "Git repository operations", "tools": [...]}}

Used by ``neuralgentics broker match --tools-file`` / ``catalog --tools-file`` to evaluate
offline, without starting a server.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from mcp.types import Tool
from pydantic import ValidationError

from neuralgentics import errors


class ToolsFileError(errors.InvalidInput, ValueError):
    """The tools file is unreadable or malformed; the message names the file and the entry."""


def parse_tools(data: Any, source: str = "<tools>") -> tuple[dict[str, list[Tool]], dict[str, str]]:
    if not isinstance(data, Mapping):
        raise ToolsFileError(f"{source}: the top level must map server names to tool lists")
    tools_by_server: dict[str, list[Tool]] = {}
    summaries: dict[str, str] = {}
    for server, entry in data.items():
        if not isinstance(server, str) or not server:
            raise ToolsFileError(
                f"{source}: server names must be non-empty strings (got {server!r})"
            )
        if isinstance(entry, Mapping):
            summary = entry.get("summary", "")
            if not isinstance(summary, str):
                raise ToolsFileError(f"{source}: {server}.summary must be a string")
            summaries[server] = summary
            raw_tools = entry.get("tools")
            where = f"{server}.tools"
        else:
            raw_tools, where = entry, server
        if not isinstance(raw_tools, list):
            raise ToolsFileError(f"{source}: {where} must be a list of MCP tool objects")
        tools: list[Tool] = []
        seen: set[str] = set()
        for i, raw in enumerate(raw_tools):
            try:
                tool = Tool.model_validate(raw)
            except ValidationError as exc:
                first = exc.errors()[0]
                field = ".".join(str(x) for x in first["loc"]) or "(tool)"
                raise ToolsFileError(f"{source}: {where}[{i}].{field}: {first['msg']}") from None
            if tool.name in seen:
                raise ToolsFileError(f"{source}: {where}[{i}]: duplicate tool name {tool.name!r}")
            seen.add(tool.name)
            tools.append(tool)
        tools_by_server[server] = tools
    return tools_by_server, summaries


def load_tools_file(path: Path | str) -> tuple[dict[str, list[Tool]], dict[str, str]]:
    """(tools_by_server, summaries) from a tools file; raise :class:`ToolsFileError` if bad."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ToolsFileError(f"{p}: cannot read tools file ({exc.strerror or exc})") from None
    try:
        data = json.loads(text) if p.suffix.lower() == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise ToolsFileError(
            f"{p}: not valid {'JSON' if p.suffix.lower() == '.json' else 'YAML'}: {exc}"
        ) from None
    return parse_tools(data, str(p))


def dump_tools(
    tools_by_server: Mapping[str, list[Tool]], summaries: Mapping[str, str] | None = None
) -> dict[str, Any]:
    summaries = summaries or {}
    out: dict[str, Any] = {}
    for server, tools in tools_by_server.items():
        listed = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
        out[server] = (
            {"summary": summaries[server], "tools": listed} if summaries.get(server) else listed
        )
    return out
