"""The SDK server's side of one client connection: told about list changes, and asked the
downstream servers' sampling and elicitation requests (`broker.forward`).

``track(broker, ctx)`` registers the request's connection once (and forgets it when the
connection closes); ``SessionPeer(ctx, caller)`` is what a call in flight offers the
forwarder: it sends the request on that call's own back-channel (the POST's response stream
on streamable HTTP), as the SDK does for a handler's ``ctx.session.create_message``.
"""

from __future__ import annotations

from typing import Any

import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.shared.message import ServerMessageMetadata

from neuralgentics.broker import mcp_sdk
from neuralgentics.broker.forward import ELICITATION, SAMPLING
from neuralgentics.broker.service import Broker


def connection_key(session: ServerSession) -> object:
    """What identifies the client connection behind a (per-request) ServerSession
    (``mcp_sdk.connection_key``)."""
    return mcp_sdk.connection_key(session)


def track(broker: Broker, ctx: ServerRequestContext[Any, Any]) -> None:
    """Register the connection of ``ctx`` for list-changed notifications (once)."""
    key = connection_key(ctx.session)
    if key in broker.front_sessions:
        return
    broker.front_sessions.add(ctx.session, key=key)
    mcp_sdk.on_connection_close(key, broker.front_sessions.discard, key)


class SessionPeer:
    """A call's client, as the forwarder sees it."""

    def __init__(
        self,
        ctx: ServerRequestContext[Any, Any],
        *,
        role: str | None,
        session_id: str | None,
        front: str,
        credential: str | None,
    ) -> None:
        self._ctx = ctx
        self.key = connection_key(ctx.session)
        self.role, self.session_id, self.front, self.credential = (
            role,
            session_id,
            front,
            credential,
        )

    def refusal(self, method: str, params: Any) -> str | None:
        caps = self._ctx.session.client_capabilities
        if method == SAMPLING:
            if caps is None or caps.sampling is None:
                return "the client did not declare the sampling capability"
            if getattr(params, "tools", None) and caps.sampling.tools is None:
                return "the client does not take tools in sampling requests (sampling.tools)"
        elif method == ELICITATION:
            if caps is None or caps.elicitation is None:
                return "the client did not declare the elicitation capability"
            if getattr(params, "mode", "form") == "url" and caps.elicitation.url is None:
                return "the client does not take URL-mode elicitation (elicitation.url)"
        if not self._ctx.session.can_send_request:
            return "this connection has no channel for requests to the client"
        return None

    async def request(self, method: str, params: Any, timeout: float | None) -> Any:
        related = ServerMessageMetadata(related_request_id=self._ctx.request_id)
        if method == SAMPLING:
            result_type: Any = (
                types.CreateMessageResultWithTools
                if getattr(params, "tools", None)
                else types.CreateMessageResult
            )
            return await self._ctx.session.send_request(
                types.CreateMessageRequest(params=params),
                result_type,
                request_read_timeout_seconds=timeout,
                metadata=related,
            )
        return await self._ctx.session.send_request(
            types.ElicitRequest(params=params),
            types.ElicitResult,
            request_read_timeout_seconds=timeout,
            metadata=related,
        )
