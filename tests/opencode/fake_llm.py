"""A scripted OpenAI-compatible chat endpoint (the only fake in these tests: the LLM).

`POST /v1/chat/completions` answers with whatever the test's `script(request) -> Reply`
decides from the conversation so far, streamed as server-sent events like the real API.
Every request is kept in `requests` so a test can see what OpenCode sent.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class ToolCall:
    name: str
    arguments: dict[str, Any]


@dataclass
class Reply:
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)


Script = Callable[[dict[str, Any]], Reply]


def _chunks(reply: Reply, model: str) -> list[dict[str, Any]]:
    cid = f"chatcmpl-{uuid.uuid4().hex[:12]}"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    out = [chunk({"role": "assistant", "content": ""})]
    if reply.text:
        out.append(chunk({"content": reply.text}))
    for i, call in enumerate(reply.tool_calls):
        out.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": i,
                            "id": f"call_{uuid.uuid4().hex[:8]}",
                            "type": "function",
                            "function": {
                                "name": call.name,
                                "arguments": json.dumps(call.arguments),
                            },
                        }
                    ]
                }
            )
        )
    last = chunk({}, "tool_calls" if reply.tool_calls else "stop")
    last["usage"] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    out.append(last)
    return out


class FakeLLM:
    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.errors: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_GET(self) -> None:  # noqa: N802 - models list, if anything asks
                body = json.dumps(
                    {"object": "list", "data": [{"id": "fake-model", "object": "model"}]}
                ).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length") or 0)
                req = json.loads(self.rfile.read(length) or b"{}")
                outer.requests.append(req)
                try:
                    reply = outer.script(req)
                except Exception as exc:  # a script bug must show in the test, not hang OpenCode
                    outer.errors.append(repr(exc))
                    reply = Reply(text=f"script error: {exc!r}")
                model = req.get("model", "fake-model")
                if req.get("stream"):
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("cache-control", "no-cache")
                    self.end_headers()
                    for c in _chunks(reply, model):
                        self.wfile.write(f"data: {json.dumps(c)}\n\n".encode())
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                    return
                message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
                if reply.tool_calls:
                    message["tool_calls"] = [
                        {
                            "id": f"call_{i}",
                            "type": "function",
                            "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                        }
                        for i, c in enumerate(reply.tool_calls)
                    ]
                body = json.dumps(
                    {
                        "id": "chatcmpl-x",
                        "object": "chat.completion",
                        "created": 0,
                        "model": model,
                        "choices": [
                            {
                                "index": 0,
                                "message": message,
                                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        # shutdown() waits for the loop to look at its flag: every 0.5 s by default
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> FakeLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def tool_names(req: dict[str, Any]) -> set[str]:
    return {t.get("function", {}).get("name", "") for t in req.get("tools") or []}


def system_text(req: dict[str, Any]) -> str:
    return "\n".join(
        m["content"] if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
        for m in req.get("messages", [])
        if m.get("role") == "system"
    )


def tool_results(req: dict[str, Any]) -> list[str]:
    """Contents of the tool-result messages so far, oldest first."""
    out = []
    for m in req.get("messages", []):
        if m.get("role") == "tool":
            c = m.get("content")
            out.append(c if isinstance(c, str) else json.dumps(c))
    return out


def opencode_config(
    base_url: str, models: Mapping[str, str] | None = None, default: str | None = None
) -> dict[str, Any]:
    """An opencode.json whose provider ``fake`` is this endpoint: ``models`` maps model ids to
    display names (default one ``fake-model``), ``default`` (else the first) is the model and the
    small model; no autoupdate, no sharing."""
    models = models or {"fake-model": "Fake"}
    chosen = f"fake/{default or next(iter(models))}"
    return {
        "provider": {
            "fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Fake",
                "options": {"baseURL": base_url, "apiKey": "test"},
                "models": {m: {"name": name, "tool_call": True} for m, name in models.items()},
            }
        },
        "model": chosen,
        "small_model": chosen,
        "autoupdate": False,
        "share": "disabled",
    }
