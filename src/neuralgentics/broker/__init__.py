"""The MCP broker: one MCP server in front of many, with roles, access policy and audit.

What other areas may use is ``__all__`` below (``tests/test_layers.py`` refuses an import of
anything else from another area); each name loads on first use, so importing this package
loads nothing else (``neuralgentics broker …`` commands stay light).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from neuralgentics.lazy import lazy_getattr

if TYPE_CHECKING:
    from neuralgentics.broker.access.policy import AccessPolicy
    from neuralgentics.broker.audit import AuditRecord, open_sink
    from neuralgentics.broker.catalog import tool_schema_tokens
    from neuralgentics.broker.catalog.fetch import fetch_tools, list_unlisted
    from neuralgentics.broker.config import (
        BrokerConfig,
        ConfigError,
        RoleConfig,
        default_config_path,
        load_config,
        save_config,
    )
    from neuralgentics.broker.roles import add_role

# name -> the submodule that defines it
_WHERE = {
    "AccessPolicy": "access.policy",
    "AuditRecord": "audit",
    "BrokerConfig": "config",
    "ConfigError": "config",
    "RoleConfig": "config",
    "add_role": "roles",
    "default_config_path": "config",
    "fetch_tools": "catalog.fetch",
    "list_unlisted": "catalog.fetch",
    "load_config": "config",
    "open_sink": "audit",
    "save_config": "config",
    "tool_schema_tokens": "catalog",
}

__getattr__ = lazy_getattr(__name__, _WHERE)

__all__ = [
    "AccessPolicy",
    "AuditRecord",
    "BrokerConfig",
    "ConfigError",
    "RoleConfig",
    "add_role",
    "default_config_path",
    "fetch_tools",
    "list_unlisted",
    "load_config",
    "open_sink",
    "save_config",
    "tool_schema_tokens",
]
