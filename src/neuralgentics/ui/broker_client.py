"""memini-core as the browser's single origin for the broker's REST front.

The page never talks to the broker itself: memini-core forwards a fixed set of read-only
routes (plus POST /match, which reads too) to the broker URL from the settings, adding the
bearer token the two services share. So the browser needs one origin, one token, and no
CORS rules on the broker.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, unquote

import httpx

from neuralgentics import errors
from neuralgentics.config import Settings
from neuralgentics.service_client import async_service_client

# (method, path pattern) the dashboard may reach on the broker.
ALLOWED: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("GET", re.compile(r"health|servers|tools|tools/[^/]+/[^/]+|audit|catalog")),
    ("POST", re.compile(r"match")),
)
TIMEOUT = httpx.Timeout(40.0, connect=2.0)  # /tools may cold-start servers (start_timeout 30 s)
DESCRIBE_CONCURRENCY = 8


class BrokerUnreachable(errors.Unavailable):
    code = "broker_unreachable"

    def __init__(self, url: str, detail: str) -> None:
        super().__init__(detail)
        self.url = url
        self.reason = detail  # not `detail`: that is the error body (NeuralgenticsError.detail)


def normalise(raw: str) -> str | None:
    """The broker path a dashboard request names, in canonical form, or None when it is not a
    plain relative path. The proxy forwards only what the allow-list accepts *after* this.

    `tools/../openapi.json` reached the broker's /openapi.json (the HTTP client resolves dot
    segments), carrying the broker token. So: percent-decoding is undone until nothing changes
    (`%252e%252e` → `%2e%2e` → `..`), backslashes count as slashes, `.` segments go, and a
    path with `..`, an empty segment (`//`, a leading or trailing `/`) or a control character
    is refused rather than guessed at."""
    text = raw
    for _ in range(4):
        decoded = unquote(text)
        if decoded == text:
            break
        text = decoded
    else:
        return None  # still encoded after four rounds: no honest path looks like that
    if any(ord(c) < 0x20 or c == "\x7f" for c in text):
        return None
    segments = [seg for seg in text.replace("\\", "/").split("/") if seg != "."]
    if not segments or any(seg in ("", "..") for seg in segments):
        return None
    return "/".join(segments)


def allowed(method: str, path: str) -> bool:
    """`path` must already be normalised (see `normalise`)."""
    return any(method == m and pattern.fullmatch(path) for m, pattern in ALLOWED)


def segment(text: str) -> str:
    """One path segment, percent-encoded so that nothing in it is a separator or a dot
    segment the HTTP client would resolve (it keeps `%2E`)."""
    out = quote(text, safe="")
    return out.replace(".", "%2E") if out in (".", "..") else out


def encoded(path: str) -> str:
    """A normalised path with each segment encoded (see `segment`): the broker receives
    exactly the segments the allow-list accepted."""
    return "/" + "/".join(segment(seg) for seg in path.split("/"))


def _token_counting() -> tuple[Any, Callable[[str], int], Callable[[str, Any], int]]:
    from mcp.types import Tool

    from neuralgentics.broker import tool_schema_tokens
    from neuralgentics.token_counts import count_tokens

    return Tool, count_tokens, tool_schema_tokens


class BrokerClient:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.base = settings.broker_base_url

    def _client(self) -> httpx.AsyncClient:
        # The owner token: the served broker needs it on every route but /health.
        return async_service_client(self.settings, "broker", timeout=TIMEOUT)

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Any = None,
        json: Any = None,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        try:
            async with self._client() as client:
                return await client.request(
                    method, encoded(path), params=params, json=json, headers=headers
                )
        except httpx.TransportError as exc:
            raise BrokerUnreachable(self.base, str(exc) or exc.__class__.__name__) from None

    async def catalog(self, role: str | None) -> dict[str, Any]:
        """The role's catalog (GET /tools) with its token count next to the full schemas'."""
        params = {"role": role} if role else None
        async with self._client() as client:
            try:
                resp = await client.get("/tools", params=params)
            except httpx.TransportError as exc:
                raise BrokerUnreachable(self.base, str(exc) or exc.__class__.__name__) from None
            if resp.status_code != 200:
                return {"status": resp.status_code, "body": _json(resp)}
            body = resp.json()
            servers = body.get("servers") or {}
            sem = asyncio.Semaphore(DESCRIBE_CONCURRENCY)
            # the token counter and the MCP SDK (about a second) load with the first catalog
            # the broker answers, not with memini-core, and off the event loop
            Tool, count_tokens, tool_schema_tokens = await asyncio.to_thread(_token_counting)

            async def schema_tokens(server: str, tool: str) -> int | None:
                # The broker's describe route returns the tool exactly as tools/list gave it.
                async with sem:
                    # names come from downstream MCP servers: encoded, never a path of their own
                    try:
                        r = await client.get(
                            f"/tools/{segment(server)}/{segment(tool)}", params=params
                        )
                    except httpx.TransportError:
                        # one describe lost (a loaded machine, a broker restarting) costs that
                        # tool's count, never the page: the row says how many are unknown
                        return None
                if r.status_code != 200:
                    return None
                d = _json(r)
                if not isinstance(d, dict):
                    return None
                t = Tool(
                    name=str(d.get("name") or tool),
                    description=d.get("description") or None,
                    input_schema=d.get("inputSchema") or {"type": "object"},
                )
                return tool_schema_tokens(server, t)

            rows = []
            for name, entry in sorted(servers.items()):
                tools = [t["name"] for t in entry.get("tools", [])]
                counts = await asyncio.gather(*(schema_tokens(name, t) for t in tools))
                rows.append(
                    {
                        "name": name,
                        "summary": entry.get("summary", ""),
                        "tools": tools,
                        "schema_tokens": sum(c for c in counts if c is not None),
                        "schema_tokens_unknown": sum(c is None for c in counts),
                    }
                )
        text = body.get("text", "")
        return {
            "status": 200,
            "body": {
                "role": body.get("role"),
                "text": text,
                "tokens": body.get("tokens")
                if isinstance(body.get("tokens"), int)
                else count_tokens(text),
                "full_schema_tokens": sum(r["schema_tokens"] for r in rows),
                "servers": rows,
            },
        }


def _json(resp: httpx.Response) -> Any:
    try:
        return resp.json()
    except ValueError:
        return {"error": {"code": "bad_gateway", "message": resp.text[:500]}}
