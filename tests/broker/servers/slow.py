"""A deliberately misbehaving stdio MCP server for fault tests (timeouts, crashes, drains).

Raw newline-delimited JSON-RPC on asyncio (no SDK import, so it starts in milliseconds).
Tools: `wait` sleeps for the given seconds, `hang` never answers, `pid` reports its pid,
`grow` adds a tool and sends notifications/tools/list_changed (`grow_prompt` the same for a
prompt: it has prompts, listed by prompts/list), `rid` reports the JSON-RPC id
of its own request (`typed` the same as structured content under an outputSchema;
`typed_bad` answers content that does not match it, `typed_missing` none), `fail` answers with a JSON-RPC error, `cancelled` lists the request ids
the client cancelled (notifications/cancelled).
Requests run concurrently, as a real server's would.
`--start-delay S`: a server slow to start, which answers nothing (initialize included) for its
first S seconds; like any stdio server it exits as soon as its stdin is closed.
"""

import asyncio
import json
import os
import sys

TYPED = {
    "type": "object",
    "properties": {"rid": {"type": ["string", "integer"]}},
    "required": ["rid"],
}
TOOLS = [
    {
        "name": "wait",
        "description": "Sleep, then answer",
        "inputSchema": {
            "type": "object",
            "properties": {"seconds": {"type": "number"}},
            "required": ["seconds"],
        },
    },
    {"name": "hang", "description": "Never answer", "inputSchema": {"type": "object"}},
    {"name": "pid", "description": "The server's process id", "inputSchema": {"type": "object"}},
    {
        "name": "grow",
        "description": "Add a tool and announce it (tools/list_changed)",
        "inputSchema": {"type": "object"},
    },
    {"name": "rid", "description": "The id of this request", "inputSchema": {"type": "object"}},
    {
        "name": "fail",
        "description": "Answer with a JSON-RPC error",
        "inputSchema": {"type": "object"},
    },
    {
        "name": "cancelled",
        "description": "Ids the client cancelled",
        "inputSchema": {"type": "object"},
    },
    {
        "name": "grow_prompt",
        "description": "Add a prompt and announce it (prompts/list_changed)",
        "inputSchema": {"type": "object"},
    },
    # Tools with an outputSchema: their structured content is checked by the client.
    {
        "name": "typed",
        "description": "The id of this request, as structured content",
        "inputSchema": {"type": "object"},
        "outputSchema": TYPED,
    },
    {
        "name": "typed_bad",
        "description": "Structured content that does not match the outputSchema",
        "inputSchema": {"type": "object"},
        "outputSchema": TYPED,
    },
    {
        "name": "typed_missing",
        "description": "No structured content despite the outputSchema",
        "inputSchema": {"type": "object"},
        "outputSchema": TYPED,
    },
]
PROMPTS = [{"name": "hello", "description": "Say hello"}]
CANCELLED: list = []


def text(t: str) -> dict:
    return {"content": [{"type": "text", "text": t}], "isError": False}


START_DELAY = (
    float(sys.argv[sys.argv.index("--start-delay") + 1]) if "--start-delay" in sys.argv else 0
)


async def handle(req: dict, write) -> None:
    if START_DELAY:
        await asyncio.sleep(START_DELAY - asyncio.get_running_loop().time() + STARTED)
    method, rid, params = req.get("method"), req.get("id"), req.get("params") or {}
    if method == "notifications/cancelled":
        CANCELLED.append(params.get("requestId"))
    if rid is None:
        return
    if method == "initialize":
        result = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}, "prompts": {"listChanged": True}},
            "serverInfo": {"name": "slow", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "ping":
        result = {}
    elif method == "prompts/list":
        result = {"prompts": PROMPTS}
    elif method == "prompts/get":
        name = params.get("name")
        result = {
            "messages": [{"role": "user", "content": {"type": "text", "text": f"{name}, world"}}]
        }
    elif method == "tools/call":
        name, args = params.get("name"), params.get("arguments") or {}
        if name == "wait":
            await asyncio.sleep(float(args["seconds"]))
            result = text(f"waited {float(args['seconds'])}")
        elif name == "hang":
            await asyncio.Event().wait()
            return
        elif name == "pid":
            result = text(str(os.getpid()))
        elif name == "rid":
            result = text(json.dumps(rid))
        elif name in ("typed", "typed_bad", "typed_missing"):
            result = text(json.dumps(rid))
            if name != "typed_missing":
                result["structuredContent"] = {"rid": rid if name == "typed" else None}
        elif name == "cancelled":
            result = text(json.dumps(CANCELLED))
        elif name == "fail":
            write(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "error": {"code": -32000, "message": "it failed on purpose"},
                }
            )
            return
        elif name == "grow":
            TOOLS.append({"name": f"grown{len(TOOLS)}", "inputSchema": {"type": "object"}})
            write({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            result = text("grown")
        elif name == "grow_prompt":
            PROMPTS.append({"name": f"grown{len(PROMPTS)}"})
            write({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})
            result = text("grown")
        else:
            write(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "error": {"code": -32602, "message": f"no tool {name}"},
                }
            )
            return
    else:
        write(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "error": {"code": -32601, "message": f"no method {method}"},
            }
        )
        return
    write({"jsonrpc": "2.0", "id": rid, "result": result})


STARTED = 0.0


async def main() -> None:
    global STARTED
    loop = asyncio.get_running_loop()
    STARTED = loop.time()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    def write(msg: dict) -> None:
        sys.stdout.write(json.dumps(msg) + "\n")
        sys.stdout.flush()

    tasks = set()
    while line := await reader.readline():
        if line.strip():
            t = asyncio.ensure_future(handle(json.loads(line), write))
            tasks.add(t)
            t.add_done_callback(tasks.discard)


if __name__ == "__main__":
    asyncio.run(main())
