"""Server catalog: the role-filtered, token-budgeted view of every server an agent may use.

- :func:`render_catalog` -> :class:`CatalogView` (what ``get_tool_list`` returns)
- :func:`render_server`: one server in full, still without schemas
- :class:`ToolListCache`: tools/list results on disk, keyed by each server's config
- :func:`count_tokens`: the real BPE count every figure here uses
"""

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
from neuralgentics.broker.catalog.tokens import ENCODING_NAME, count_json_tokens, count_tokens

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
