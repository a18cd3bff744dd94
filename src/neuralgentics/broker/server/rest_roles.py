"""``/roles``: the role commands over REST, owner credential only (``broker.roles`` functions,
applied to the running broker by ``Broker.edit_roles``: validated, persisted, audited).

| route | what |
|---|---|
| ``GET /roles`` | every role with its rules, tokens and what it may use |
| ``GET /roles/{name}`` | one role |
| ``POST /roles`` | body ``{name, allow?, deny?, replace?, default?}`` → 201 |
| ``DELETE /roles/{name}`` | drop it (refused while a token is bound to it or it is the default) |
| ``POST /roles/{name}/grant`` | body ``{rules, deny?}``: add rules to allow (deny) |
| ``POST /roles/{name}/revoke`` | body ``{rules, deny?}``: remove rules from allow (deny) |
| ``PUT /default_role`` | body ``{role}`` (null: callers naming no role are denied) |
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from neuralgentics.broker import roles
from neuralgentics.broker.errors import NotFound
from neuralgentics.broker.server.rest import CurrentBroker, require_owner

router = APIRouter()


class AddRoleRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    allow: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)
    replace: bool = False
    default: bool = False
    read_only: bool = False


class DefaultRoleRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: str | None


class RulesRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rules: list[str] = Field(min_length=1)
    deny: bool = False


async def _owner_edit(
    broker: Any,
    request: Request,
    action: str,
    name: str,
    edit: Callable[[Any, roles.KnownTools], roles.Edit],
) -> roles.Edit:
    """One role edit on the running broker (``Broker.edit_roles``), owner credential only."""
    principal = await require_owner(broker, request, action, name)
    result: roles.Edit = await broker.edit_roles(
        action, name, edit, credential=principal.label, front="rest"
    )
    return result


def _answer(broker: Any, name: str, edit: roles.Edit) -> dict[str, Any]:
    view = roles.role_view(edit.config, name, broker.known_tools(), broker.tool_hints)
    return {"role": view.to_dict(), "notes": [str(n) for n in edit.notes]}


@router.get("/roles")
async def list_roles(broker: CurrentBroker, request: Request) -> dict[str, Any]:
    await require_owner(broker, request, "roles.list", "*")
    views = roles.list_roles(broker.config, broker.known_tools(), broker.tool_hints)
    return {"default_role": broker.config.default_role, "roles": [v.to_dict() for v in views]}


@router.get("/roles/{name}")
async def show_role(broker: CurrentBroker, request: Request, name: str) -> dict[str, Any]:
    await require_owner(broker, request, "roles.show", name)
    try:
        return roles.role_view(
            broker.config, name, broker.known_tools(), broker.tool_hints
        ).to_dict()
    except roles.UnknownRole as exc:
        raise NotFound(str(exc)) from None


@router.post("/roles", status_code=201)
async def add_role(broker: CurrentBroker, request: Request, body: AddRoleRequest) -> dict[str, Any]:
    action = "roles.replace" if body.replace else "roles.add"

    def edit(config: Any, known: roles.KnownTools) -> roles.Edit:
        return roles.add_role(
            config,
            body.name,
            body.allow,
            body.deny,
            known=known,
            replace=body.replace,
            default=body.default,
            read_only=body.read_only,
        )

    result = await _owner_edit(broker, request, action, body.name, edit)
    return _answer(broker, body.name, result)


@router.delete("/roles/{name}")
async def remove_role(broker: CurrentBroker, request: Request, name: str) -> dict[str, Any]:
    await _owner_edit(
        broker, request, "roles.remove", name, lambda config, known: roles.remove_role(config, name)
    )
    return {"removed": name}


@router.post("/roles/{name}/grant")
async def grant(
    broker: CurrentBroker, request: Request, name: str, body: RulesRequest
) -> dict[str, Any]:
    result = await _owner_edit(
        broker,
        request,
        "roles.grant",
        name,
        lambda config, known: roles.grant(config, name, body.rules, deny=body.deny, known=known),
    )
    return _answer(broker, name, result)


@router.post("/roles/{name}/revoke")
async def revoke(
    broker: CurrentBroker, request: Request, name: str, body: RulesRequest
) -> dict[str, Any]:
    result = await _owner_edit(
        broker,
        request,
        "roles.revoke",
        name,
        lambda config, known: roles.revoke(config, name, body.rules, deny=body.deny),
    )
    return _answer(broker, name, result)


@router.put("/default_role")
async def default_role(
    broker: CurrentBroker, request: Request, body: DefaultRoleRequest
) -> dict[str, Any]:
    await _owner_edit(
        broker,
        request,
        "roles.default",
        body.role or "-",
        lambda config, known: roles.set_default(config, body.role),
    )
    return {"default_role": body.role}
