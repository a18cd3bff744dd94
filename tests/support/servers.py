"""Real MCP servers as broker.yaml entries."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

PY = sys.executable
SERVERS = Path(__file__).resolve().parents[1] / "broker" / "servers"


def python_server(module: str, *args: str) -> list[str]:
    """The arguments of `python -m MODULE ARGS…` for a real Python MCP server, run through
    servers/frozen_exit.py: the same server, half a second quicker to stop."""
    return [str(SERVERS / "frozen_exit.py"), module, *args]


def time_server(summary: str = "Current time and time-zone conversion") -> dict[str, Any]:
    """mcp-server-time (PyPI), in UTC."""
    return {
        "command": PY,
        "args": python_server("mcp_server_time", "--local-timezone", "UTC"),
        "summary": summary,
    }
