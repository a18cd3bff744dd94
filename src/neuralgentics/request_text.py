"""One check in front of every route of memini-core (memory, project, orchestrator, dashboard;
the composition root installs it app-wide): no text that cannot round-trip as UTF-8 JSON gets past the edge, whichever route it is sent to.

Runs as an app-wide dependency, so it sees the parsed JSON body (Starlette caches it; the route
reads the same object), the query parameters and the path parameters before any route code —
and so before anything is written. The routes' own models and the service check their fields
too; this is the rule no new route can forget.
"""

from __future__ import annotations

import json

from fastapi import Request

from neuralgentics import jsonsafe
from neuralgentics.errors import InvalidInput

# More than any route takes (the longest list filter allows 50 tags); a flood of repeated
# parameters is refused before a route turns each into SQL.
MAX_QUERY_ITEMS = 500
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def _is_json(request: Request) -> bool:
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return kind in ("", "application/json") or kind.endswith("+json")


async def check_request_text(request: Request) -> None:
    items = request.query_params.multi_items()
    if len(items) > MAX_QUERY_ITEMS:
        raise InvalidInput(
            f"{len(items)} query parameters; at most {MAX_QUERY_ITEMS} are accepted", field="query"
        )
    for key, value in items:
        for part in (key, value):
            why = jsonsafe.text_problem(part)
            if why:
                raise InvalidInput(
                    f"query parameter {jsonsafe.shown(key, 40)!r} {why}",
                    field=jsonsafe.shown(key, 40),
                )
    for key, value in request.path_params.items():
        why = jsonsafe.text_problem(value) if isinstance(value, str) else None
        if why:
            raise InvalidInput(f"{key} {why}", field=key)
    if request.method not in _BODY_METHODS or not _is_json(request):
        return
    if not await request.body():
        return
    try:
        body = await request.json()
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise InvalidInput(
            f"the request body is not valid JSON: {_why(exc)}", field="body"
        ) from None
    found = jsonsafe.problem(body)
    if found is not None:
        raise InvalidInput(str(found), field=found.field or "body")


def _why(exc: BaseException) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} (line {exc.lineno}, column {exc.colno})"
    if isinstance(exc, RecursionError):
        return "nested too deeply to parse"
    return jsonsafe.shown(str(exc), 200)
