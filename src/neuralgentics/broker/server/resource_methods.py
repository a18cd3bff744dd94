"""The broker's own ``resources/*`` and ``prompts/*`` methods, over `broker.resources_prompts`.

``resources/list``, ``resources/templates/list`` and ``prompts/list`` list what servers with
``expose: resources`` / ``prompts`` offer (namespaced); ``resources/read`` and ``prompts/get``
take any namespaced URI or name the caller's role may use, exposed or not (the catalog
names the others). The role is the connection's (``--role``, the HTTP credential or header,
else ``default_role``): these requests carry no role argument.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import mcp.types as types
from mcp.server.context import ServerRequestContext

from neuralgentics.broker import resources_prompts
from neuralgentics.broker.errors import BrokerError
from neuralgentics.broker.forward import current_peer
from neuralgentics.broker.server.peer import SessionPeer, track
from neuralgentics.broker.server.rpc_errors import as_mcp_error
from neuralgentics.broker.service import Broker

T = TypeVar("T")
Ctx = ServerRequestContext[Any, Any]


def content_handlers(broker: Broker, caller_of: Callable[[Ctx], Any]) -> dict[str, Any]:
    """The ``on_*`` handlers of the low-level ``Server`` for resources and prompts."""

    async def as_caller(ctx: Ctx, run: Callable[[str | None, Any], Awaitable[T]]) -> T:
        track(broker, ctx)
        caller = caller_of(ctx)
        try:
            role = broker.resolve_role(caller.role, None)
            return await run(role, caller)
        except BrokerError as exc:
            raise as_mcp_error(exc) from None

    async def on_list_resources(
        ctx: Ctx, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        async def run(role: str | None, caller: Any) -> types.ListResourcesResult:
            return types.ListResourcesResult(
                resources=await resources_prompts.listed_resources(broker, role)
            )

        return await as_caller(ctx, run)

    async def on_list_resource_templates(
        ctx: Ctx, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        async def run(role: str | None, caller: Any) -> types.ListResourceTemplatesResult:
            return types.ListResourceTemplatesResult(
                resource_templates=await resources_prompts.listed_templates(broker, role)
            )

        return await as_caller(ctx, run)

    async def on_read_resource(
        ctx: Ctx, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        async def run(role: str | None, caller: Any) -> types.ReadResourceResult:
            return await _as_peer(
                broker, ctx, role, caller, resources_prompts.read_resource, uri=params.uri
            )

        return await as_caller(ctx, run)

    async def on_list_prompts(
        ctx: Ctx, params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        async def run(role: str | None, caller: Any) -> types.ListPromptsResult:
            return types.ListPromptsResult(
                prompts=await resources_prompts.listed_prompts(broker, role)
            )

        return await as_caller(ctx, run)

    async def on_get_prompt(
        ctx: Ctx, params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        async def run(role: str | None, caller: Any) -> types.GetPromptResult:
            return await _as_peer(
                broker,
                ctx,
                role,
                caller,
                resources_prompts.get_prompt,
                name=params.name,
                arguments=params.arguments,
            )

        return await as_caller(ctx, run)

    return {
        "on_list_resources": on_list_resources,
        "on_list_resource_templates": on_list_resource_templates,
        "on_read_resource": on_read_resource,
        "on_list_prompts": on_list_prompts,
        "on_get_prompt": on_get_prompt,
    }


def _peer(ctx: Ctx, role: str | None, caller: Any) -> SessionPeer:
    return SessionPeer(
        ctx,
        role=role,
        session_id=caller.session_id,
        front=caller.front,
        credential=caller.credential,
    )


async def _as_peer(
    broker: Broker,
    ctx: Ctx,
    role: str | None,
    caller: Any,
    request: Callable[..., Awaitable[T]],
    **params: Any,
) -> T:
    """Run one `broker.resources_prompts` request for the caller, with its session as the peer a
    server's sampling/elicitation requests are forwarded to meanwhile."""
    token = current_peer.set(_peer(ctx, role, caller))
    try:
        return await request(
            broker,
            role=role,
            session_id=caller.session_id,
            front=caller.front,
            credential=caller.credential,
            **params,
        )
    finally:
        current_peer.reset(token)
