"""A downstream server's resources, resource templates and prompts, listed over its session.

Listed once when the server starts (only what its ``initialize`` capabilities say it has),
kept on the launcher's entry across stops like the tool list, and listed again when the
server sends ``notifications/resources/list_changed`` or ``notifications/prompts/list_changed``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any, Literal

import mcp.types as types
from mcp import ClientSession
from mcp.shared.exceptions import MCPError

logger = logging.getLogger(__name__)

# Bounded: a server that pages forever does not hang the broker.
_MAX_PAGES = 100

ContentKind = Literal["resources", "prompts"]


@dataclass(frozen=True)
class ServerContent:
    """What a server offers besides tools; ``None``: it does not offer that at all."""

    resources: tuple[types.Resource, ...] | None = None
    templates: tuple[types.ResourceTemplate, ...] | None = None
    prompts: tuple[types.Prompt, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        def dump(items: tuple[Any, ...] | None) -> list[dict[str, Any]] | None:
            if items is None:
                return None
            return [i.model_dump(mode="json", by_alias=True, exclude_none=True) for i in items]

        return {
            "resources": dump(self.resources),
            "templates": dump(self.templates),
            "prompts": dump(self.prompts),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ServerContent:
        def load(key: str, model: Any) -> tuple[Any, ...] | None:
            items = data.get(key)
            return None if items is None else tuple(model.model_validate(i) for i in items)

        return cls(
            resources=load("resources", types.Resource),
            templates=load("templates", types.ResourceTemplate),
            prompts=load("prompts", types.Prompt),
        )


async def _pages(fetch: Any, field: str) -> tuple[Any, ...] | None:
    """Every page of one list; None when the server refuses it (a server whose tools work
    must not fail to start because, say, its templates/list is missing)."""
    items: list[Any] = []
    cursor: str | None = None
    try:
        for _ in range(_MAX_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            result = await fetch(params=params)
            items.extend(getattr(result, field))
            cursor = result.next_cursor
            if not cursor:
                break
    except MCPError as exc:
        logger.warning("listing %s failed: %s", field, exc.message)
        return None
    return tuple(items)


async def list_content(
    session: ClientSession,
    capabilities: types.ServerCapabilities | None,
    kinds: tuple[ContentKind, ...] = ("resources", "prompts"),
    current: ServerContent | None = None,
) -> ServerContent:
    """List ``kinds`` the server declares (``current`` keeps the others as they were)."""
    out = current or ServerContent()
    if capabilities is None:
        return out
    if "resources" in kinds and capabilities.resources is not None:
        out = replace(
            out,
            resources=await _pages(session.list_resources, "resources"),
            templates=await _pages(session.list_resource_templates, "resource_templates"),
        )
    if "prompts" in kinds and capabilities.prompts is not None:
        out = replace(out, prompts=await _pages(session.list_prompts, "prompts"))
    return out
