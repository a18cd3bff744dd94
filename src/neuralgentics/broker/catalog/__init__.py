"""Server catalog: the role-filtered, token-budgeted view of every server an agent may use.

- :func:`render_catalog` -> :class:`CatalogView` (what ``get_tool_list`` returns)
- :func:`render_server`: one server in full, still without schemas
- :class:`ToolListCache`: tools/list results on disk, keyed by each server's config
- :func:`count_tokens`: the real BPE count every figure here uses

The names below load on first use: importing ``neuralgentics.broker.catalog.cli`` (every
``neuralgentics broker …`` command registers it) must not load the MCP SDK, about a second.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from neuralgentics.lazy import lazy_getattr

if TYPE_CHECKING:
    from neuralgentics.broker.catalog.cache import ToolListCache, config_hash
    from neuralgentics.broker.catalog.render import (
        DEFAULT_BUDGET_TOKENS,
        SERVER_DETAIL_HINT,
        CatalogServer,
        CatalogView,
        render_catalog,
        render_server,
    )
    from neuralgentics.broker.catalog.schemas import full_schema_tokens, tool_schema_tokens
    from neuralgentics.token_counts import ENCODING_NAME, count_json_tokens, count_tokens

# name -> the submodule that defines it
_WHERE = {
    "ToolListCache": "cache",
    "config_hash": "cache",
    "DEFAULT_BUDGET_TOKENS": "render",
    "SERVER_DETAIL_HINT": "render",
    "CatalogServer": "render",
    "CatalogView": "render",
    "render_catalog": "render",
    "render_server": "render",
    "full_schema_tokens": "schemas",
    "tool_schema_tokens": "schemas",
    "ENCODING_NAME": "neuralgentics.token_counts",
    "count_json_tokens": "neuralgentics.token_counts",
    "count_tokens": "neuralgentics.token_counts",
}


__getattr__ = lazy_getattr(__name__, _WHERE)

__all__ = [
    "DEFAULT_BUDGET_TOKENS",
    "ENCODING_NAME",
    "SERVER_DETAIL_HINT",
    "CatalogServer",
    "CatalogView",
    "ToolListCache",
    "config_hash",
    "count_json_tokens",
    "count_tokens",
    "full_schema_tokens",
    "render_catalog",
    "render_server",
    "tool_schema_tokens",
]
