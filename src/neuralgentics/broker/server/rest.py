"""The broker's REST routes (``GET /tools``, ``POST /call``, ``GET|POST /servers``,
``DELETE /servers/{name}``, ``POST /reload``, ``POST /match``, ``GET /health``): a module-level
router over the `Broker` the app provides (`current_broker`, wired by `http.create_app`).

The caller's role is the ``X-Neuralgentics-Role`` header (or ``role`` in the body/query when
there is no header) when the owner asserts it, and the token's own role otherwise
(``pinned_role``). Admin routes (``POST``/``DELETE /servers``, ``/reload``) need the owner
token and write an audit record, done or refused.
"""

from __future__ import annotations

import contextlib
from dataclasses import asdict
from typing import Annotated, Any

import pydantic_core
from fastapi import APIRouter, Depends, Header, Query, Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from neuralgentics.broker.config import ConfigError
from neuralgentics.broker.errors import AccessDenied, BrokerError, InvalidRequest
from neuralgentics.broker.intent.tools import MAX_TOP_K, IntentError, match_for_role
from neuralgentics.broker.limits import check_session_id, loads_pruned
from neuralgentics.broker.server.handlers import pinned_role, principal_of
from neuralgentics.broker.service import Broker
from neuralgentics.credentials import Principal
from neuralgentics.http_errors import error as _error


def current_broker() -> Broker:
    """The running broker; provided by `http.create_app` once its lifespan opened it."""
    raise RuntimeError(
        "current_broker is not wired: build the app with broker.server.http.create_app"
    )


CurrentBroker = Annotated[Broker, Depends(current_broker)]

router = APIRouter()


class CallRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    server: str = Field(min_length=1)
    tool: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)
    role: str | None = None
    session_id: str | None = None


class AddServerRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1)
    replace: bool = False


class MatchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    intent: str = Field(min_length=1, description="the task in a sentence")
    top_k: int = Field(default=5, ge=1, le=MAX_TOP_K)
    role: str | None = None


def _validation_message(errors: list[Any]) -> tuple[str, str | None]:
    first = errors[0] if errors else {}
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
    msg = first.get("msg", "invalid request")
    return (f"{where}: {msg}" if where else msg), (where or None)


def role_of(broker: Broker, request: Request, header: str | None, other: str | None) -> str | None:
    """What the request's credential may assert: a pinned header wins; a mismatching body or
    query role is refused."""
    return broker.resolve_role(pinned_role(principal_of(request), header), other)


async def require_owner(broker: Broker, request: Request, action: str, target: str) -> Principal:
    principal = principal_of(request)
    if not principal.owner:
        message = f"{action} needs the owner credential; {principal.label!r} may only call tools as its role"
        await broker.record_admin(
            action,
            target,
            "denied",
            credential=principal.label,
            front="rest",
            error=message,
            role=principal.role,
        )
        raise AccessDenied(message, rule="admin operations: owner credential only")
    return principal


@router.get("/health")
async def health(broker: CurrentBroker) -> dict[str, Any]:
    b = broker
    states: dict[str, int] = {}
    for s in b.servers_status():
        states[s.state] = states.get(s.state, 0) + 1
    return {"status": "ok", "servers": states}


@router.get("/tools")
async def tools(
    broker: CurrentBroker,
    request: Request,
    role: str | None = Query(None),
    x_neuralgentics_role: str | None = Header(None),
) -> dict[str, Any]:
    r = role_of(broker, request, x_neuralgentics_role, role)
    b = broker
    tbs = await b.tools_by_server(r)
    summaries = b.summaries(r)
    return {
        "role": r,
        "servers": {
            name: {
                "summary": summaries.get(name, ""),
                "tools": [{"name": t.name, "description": t.description or ""} for t in ts],
            }
            for name, ts in sorted(tbs.items())
        },
        "text": await b.catalog_text(r),
    }


@router.get("/tools/{server}/{tool}")
async def describe(
    broker: CurrentBroker,
    request: Request,
    server: str,
    tool: str,
    role: str | None = Query(None),
    x_neuralgentics_role: str | None = Header(None),
) -> dict[str, Any]:
    return await broker.describe_tool(
        role_of(broker, request, x_neuralgentics_role, role), server, tool
    )


@router.post("/call")
async def call(
    broker: CurrentBroker,
    request: Request,
    x_neuralgentics_role: str | None = Header(None),
    x_neuralgentics_session: str | None = Header(None),
) -> Any:
    # The body is read here, not by FastAPI, so that a call refused for its shape (not
    # JSON, nested past the parser's limit, fields missing) is audited like any other.
    principal = principal_of(request)
    raw = await request.body()
    refused: dict[str, Any] = dict(
        front="rest", credential=principal.label, session_id=x_neuralgentics_session
    )
    try:
        data = pydantic_core.from_json(raw)
    except ValueError as exc:
        deep = "recursion" in str(exc)
        message = (
            "the request body is nested deeper than this broker reads (200 levels; arguments may have 32)"
            if deep
            else f"the request body is not JSON: {exc}"
        )
        seen: Any = None
        with contextlib.suppress(ValueError):
            seen, _ = loads_pruned(raw)
        seen = seen if isinstance(seen, dict) else {}
        await broker.audit_refused(
            error=message,
            role=x_neuralgentics_role or principal.role,
            server=seen.get("server", "-"),
            tool=seen.get("tool", "-"),
            **refused,
        )
        return _error(400, "invalid_json", message)
    try:
        body = CallRequest.model_validate(data)
    except ValidationError as exc:
        message, where = _validation_message(exc.errors())
        seen = data if isinstance(data, dict) else {}
        await broker.audit_refused(
            error=message,
            role=x_neuralgentics_role or principal.role,
            server=seen.get("server", "-"),
            tool=seen.get("tool", "-"),
            arguments=seen.get("arguments"),
            **refused,
        )
        return _error(422, "invalid_input", message, where)
    refused["session_id"] = x_neuralgentics_session or body.session_id
    try:
        r = role_of(broker, request, x_neuralgentics_role, body.role)
        session_id = check_session_id(
            x_neuralgentics_session or body.session_id,
            "X-Neuralgentics-Session" if x_neuralgentics_session else "session_id",
        )
    except BrokerError as exc:
        await broker.audit_refused(
            error=exc.message,
            role=x_neuralgentics_role or body.role,
            server=body.server,
            tool=body.tool,
            arguments=body.arguments,
            outcome="denied" if isinstance(exc, AccessDenied) else "invalid",
            rule=getattr(exc, "rule", None),
            **refused,
        )
        raise
    result = await broker.call(
        role=r,
        server=body.server,
        tool=body.tool,
        arguments=body.arguments,
        session_id=session_id,
        front="rest",
        credential=principal.label,
    )
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


@router.get("/servers")
async def servers(
    broker: CurrentBroker,
    request: Request,
    role: str | None = Query(None),
    x_neuralgentics_role: str | None = Header(None),
) -> list[dict[str, Any]]:
    """Every server for the owner; for a role (asserted, or a role token's own) only the
    servers it may see, without their process details."""
    principal = principal_of(request)
    r = pinned_role(principal, x_neuralgentics_role or role)
    statuses = broker.servers_status()
    if principal.owner and r is None:
        return [asdict(s) for s in statuses]
    policy = broker.policy
    out = []
    for s in statuses:
        if s.first_class or not policy.may_see_server(r, s.name):
            continue
        seen = asdict(s)
        for private in ("pid", "stderr_tail", "last_error"):
            seen.pop(private)
        out.append(seen)
    return out


@router.post("/servers", status_code=201)
async def add_server(
    broker: CurrentBroker, request: Request, body: AddServerRequest
) -> dict[str, Any]:
    action = "servers.replace" if body.replace else "servers.add"
    principal = await require_owner(broker, request, action, body.name)
    entry = body.model_dump(exclude={"name", "replace"})
    cfg = await broker.add_server(
        body.name,
        entry,
        replace=body.replace,
        credential=principal.label,
        front="rest",
        remote=True,
    )
    return {"name": body.name, "server": cfg.model_dump(mode="json", exclude_defaults=True)}


@router.delete("/servers/{name}")
async def remove_server(broker: CurrentBroker, request: Request, name: str) -> dict[str, Any]:
    principal = await require_owner(broker, request, "servers.remove", name)
    await broker.remove_server(name, credential=principal.label, front="rest")
    return {"removed": name}


@router.post("/reload")
async def reload(broker: CurrentBroker, request: Request) -> Any:
    principal = await require_owner(broker, request, "reload", "*")
    try:
        return await broker.reload(credential=principal.label, front="rest")
    except ConfigError as exc:
        return _error(400, "invalid_config", str(exc))


@router.post("/match")
async def match(
    broker: CurrentBroker,
    request: Request,
    body: MatchRequest,
    x_neuralgentics_role: str | None = Header(None),
) -> dict[str, Any]:
    """The same matching as the ``find_tool`` meta-tool: ranked candidates, skills, confidence."""
    role = role_of(broker, request, x_neuralgentics_role, body.role)
    try:
        result = await match_for_role(broker, role, body.intent, body.top_k)
    except IntentError as exc:
        raise InvalidRequest(str(exc), field="intent") from None
    data = result.to_dict()
    data["role"] = role
    return data
