"""Broker errors as the JSON-RPC errors its MCP fronts send."""

from __future__ import annotations

from typing import Any

from mcp.shared.exceptions import MCPError

from neuralgentics.broker.errors import BrokerError


def as_mcp_error(exc: BrokerError) -> MCPError:
    """``rpc_code`` and message; ``data.status`` (the HTTP equivalent) and ``data.rule``."""
    data: dict[str, Any] = {"status": exc.status}
    rule = getattr(exc, "rule", None)
    if rule:
        data["rule"] = rule
    return MCPError(code=exc.rpc_code, message=exc.message, data=data)
