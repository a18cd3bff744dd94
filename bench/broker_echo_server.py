"""A minimal stdio MCP server with one `echo` tool, for bench/broker.py.

Raw newline-delimited JSON-RPC with no SDK, so its own cost is close to zero and the
benchmark measures the path (client, broker or proxy), not the server.
"""

from __future__ import annotations

import json
import sys

TOOL = {
    "name": "echo",
    "description": "Echo the message back",
    "inputSchema": {
        "type": "object",
        "properties": {"message": {"type": "string"}},
        "required": ["message"],
    },
}


def answer(req: dict) -> dict | None:
    method, rid = req.get("method"), req.get("id")
    if rid is None:
        return None  # a notification
    if method == "initialize":
        version = req.get("params", {}).get("protocolVersion", "2025-06-18")
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "bench-echo", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "tools/call":
        msg = (req.get("params", {}).get("arguments") or {}).get("message", "")
        result = {"content": [{"type": "text", "text": msg}], "isError": False}
    elif method == "ping":
        result = {}
    else:
        return {
            "jsonrpc": "2.0",
            "id": rid,
            "error": {"code": -32601, "message": f"no method {method}"},
        }
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def main() -> None:
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        resp = answer(json.loads(line))
        if resp is not None:
            out.write(json.dumps(resp) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
