"""POST /match for native callers: the same matching as the ``find_tool`` meta-tool."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from neuralgentics.broker.intent.tools import MAX_TOP_K, BrokerLike, IntentError, match_for_role


class MatchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    intent: str = Field(min_length=1, description="the task in a sentence")
    top_k: int = Field(default=5, ge=1, le=MAX_TOP_K)
    role: str | None = None


def match_router(
    get_broker: Callable[[], BrokerLike],
    role_of: Callable[[Request, str | None, str | None], str | None],
) -> APIRouter:
    """``POST /match`` -> ranked candidates, skills, confidence.

    ``role_of(request, header_role, body_role)`` is the broker's own role resolution (what the
    request's credential may assert; a pinned header wins; a mismatching body role is refused).
    """
    router = APIRouter()

    @router.post("/match")
    async def match(
        request: Request, body: MatchRequest, x_neuralgentics_role: str | None = Header(None)
    ) -> dict[str, Any]:
        role = role_of(request, x_neuralgentics_role, body.role)
        try:
            result = await match_for_role(get_broker(), role, body.intent, body.top_k)
        except IntentError as exc:
            return JSONResponse(  # type: ignore[return-value]
                {"error": {"code": "invalid_request", "message": str(exc), "field": "intent"}}, status_code=400
            )
        data = result.to_dict()
        data["role"] = role
        return data

    return router
