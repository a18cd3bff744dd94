"""What the full tools/list costs an agent: the baseline the catalog is measured against."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcp.types import Tool

from neuralgentics.token_counts import count_json_tokens


def function_definition(server: str, tool: Tool) -> dict[str, Any]:
    """The tool as a chat-completions function definition, the way OpenCode hands MCP tools
    to a model: named ``<server>_<tool>``, with the description and the full input schema."""
    definition: dict[str, Any] = {"name": f"{server}_{tool.name}"}
    if tool.description:
        definition["description"] = tool.description
    definition["parameters"] = tool.input_schema
    return {"type": "function", "function": definition}


def tool_schema_tokens(server: str, tool: Tool) -> int:
    return count_json_tokens(function_definition(server, tool))


def full_schema_tokens(tools_by_server: Mapping[str, Sequence[Tool]]) -> int:
    """Tokens an agent spends when every tool's schema is in its context."""
    return sum(tool_schema_tokens(s, t) for s, tools in tools_by_server.items() for t in tools)
