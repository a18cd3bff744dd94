"""The broker: config + access control + launcher + proxy + audit behind one object, a thin
front over its parts — `views` (what a role sees), `calls` (tool calls), `admin` (config edits),
`trail` (the audit records).

Both fronts (MCP over stdio / streamable HTTP, and REST) call these methods; nothing in a
front decides policy. Stable surface for the catalog and intent parts:

- ``await broker.tools_by_server(role) -> dict[str, list[mcp.types.Tool]]`` (only what
  ``role`` may call), ``broker.summaries(role) -> dict[str, str]``
- ``broker.may_call(role, server, tool) -> bool`` (its `AccessPolicy`, swapped on reload)
- ``await broker.call(role=, server=, tool=, arguments=, ...) -> mcp.types.CallToolResult``
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import mcp.types as types

from neuralgentics.broker.access import AccessPolicy
from neuralgentics.broker.admin import ConfigAdmin, warn_about_rules
from neuralgentics.broker.audit import AuditSink, open_sink
from neuralgentics.broker.audit.gate import FloodGate
from neuralgentics.broker.audit.trail import AuditTrail
from neuralgentics.broker.calls import ProgressFn, ToolCalls
from neuralgentics.broker.catalog import ToolListCache
from neuralgentics.broker.catalog.content_cache import ContentCache
from neuralgentics.broker.config import BrokerConfig, default_config_path, load_config
from neuralgentics.broker.errors import AccessDenied, InvalidRequest
from neuralgentics.broker.exposure import Exposure
from neuralgentics.broker.forward import Forwarder
from neuralgentics.broker.fronts import Fronts
from neuralgentics.broker.intent.tools import Intents, MatcherPool
from neuralgentics.broker.launcher import Launcher
from neuralgentics.broker.passthrough import Passthrough
from neuralgentics.broker.views import CatalogViews, ServerStatus
from neuralgentics.config import Settings
from neuralgentics.embeddings import embedder_from_settings

logger = logging.getLogger(__name__)

__all__ = ["Broker", "ProgressFn", "ServerStatus"]


class Broker:
    """`settings`: where its files go (tool lists, audit log) and the database a PostgreSQL
    audit sink falls back to. `intents`: the matchers behind find_tool and intent calls, and
    the skills they offer (the composer's; default: a model of its own, no skills)."""

    def __init__(
        self,
        config: BrokerConfig,
        config_path: Path | None = None,
        *,
        settings: Settings,
        intents: Intents | None = None,
    ) -> None:
        self.config = config
        self.config_path = config_path
        self.settings = settings
        warn_about_rules(config)
        self.intents = intents or Intents(MatcherPool(embedder_from_settings(settings)))
        self.policy = AccessPolicy(config.roles, self.tool_hints)
        # Sampling and elicitation requests of downstream servers, to the client whose call
        # is in flight (forward.py).
        self.trail = AuditTrail(
            open_sink(config.audit, settings),
            FloodGate(config.audit.flood_burst, config.audit.flood_per_second),
        )
        self.forwarder = Forwarder(self.trail.write, self._call_timeout_of)
        self.launcher = Launcher(
            config.brokered(),
            on_tools_changed=self._tools_changed,
            tool_cache=ToolListCache(settings.home / "broker" / "tools"),
            egress_gateway=settings.egress_gateway_url,
            content_cache=ContentCache(settings.home / "broker" / "content"),
            on_content_changed=self._content_changed,
            request_handlers=self.forwarder.handlers,
        )
        # Bumped when what a catalog shows may have changed (a reload, a server's tools).
        self.catalog_generation = 0
        # Client connections to tell when a downstream server's tools, resources or prompts
        # change (fronts.py).
        self.front_sessions = Fronts()
        # Tools of servers with `expose: tools`, listed directly (passthrough.py).
        self.passthrough = Passthrough(self)
        # Which servers' tools are listed directly: `expose:`, else by token cost (exposure.py).
        self.exposure = Exposure(self)
        # The parts, each one job; their public methods are the broker's (a thin front: the
        # fronts, the CLI and the dashboard call `broker.call`, `broker.catalog_text`, ...).
        self.views = CatalogViews(self)
        self.calls = ToolCalls(self)
        self.admin = ConfigAdmin(self)
        self.summaries = self.views.summaries
        self.tools_by_server = self.views.tools_by_server
        self.tools_by_server_within = self.views.tools_by_server_within
        self.list_unlisted = self.views.list_unlisted
        self.catalog_text = self.views.catalog_text
        self.skills = self.views.skills
        self.describe_skill = self.views.describe_skill
        self.find_tool = self.views.find_tool
        self.describe_tool = self.views.describe_tool
        self.servers_status = self.views.servers_status
        self.known_tools = self.views.known_tools
        self.call = self.calls.call
        self.call_json = self.calls.call_json
        self.audited = self.trail.audited
        self.audit_refused = self.trail.refused
        self.record_admin = self.trail.admin
        self.apply_config = self.admin.apply_config
        self.reload = self.admin.reload
        self.add_server = self.admin.add_server
        self.remove_server = self.admin.remove_server
        self.edit_roles = self.admin.edit_roles

    @property
    def audit(self) -> AuditSink:
        """Where the records go (read back by `broker audit` and the dashboard)."""
        return self.trail.sink

    @classmethod
    @contextlib.asynccontextmanager
    async def open(
        cls,
        config_path: Path | str | None = None,
        config: BrokerConfig | None = None,
        *,
        settings: Settings,
        intents: Intents | None = None,
    ) -> AsyncIterator[Broker]:
        """Load the config (or use ``config``) and run the broker until the block exits.
        Without either, the default file (``<config dir>/broker.yaml``; missing: empty)."""
        # An in-memory config without a path is not persisted by add/remove (nor reloadable).
        path: Path | None
        if config is not None:
            path = Path(config_path) if config_path else None
            loaded = config
        elif config_path:
            path = Path(config_path)
            loaded = load_config(path)
        else:
            path = default_config_path(settings)
            loaded = load_config(path, missing_ok=True)
        broker = cls(loaded, path, settings=settings, intents=intents)
        try:
            yield broker
        finally:
            await broker.aclose()

    async def aclose(self) -> None:
        await self.launcher.aclose()
        await self.trail.close()

    # -- access --------------------------------------------------------------------

    def resolve_role(self, fixed: str | None, argument: str | None = None) -> str | None:
        """The caller's role: pinned by ``--role`` / header, else the stamped argument, else default.

        A pinned role cannot be overridden by an argument (that would be privilege escalation).
        """
        if argument is not None and not isinstance(argument, str):
            raise InvalidRequest("'role' must be a string")
        if fixed and argument and argument != fixed:
            raise AccessDenied(
                f"role {argument!r} in the call does not match this connection's role {fixed!r}",
                rule="role pinned by --role or the X-Neuralgentics-Role header",
            )
        return fixed or argument or self.config.default_role

    def may_call(self, role: str | None, server: str, tool: str) -> bool:
        return self.policy.may_call(role, server, tool)

    def tool_hints(self, server: str, tool: str) -> types.ToolAnnotations | None:
        """The annotations ``server`` listed for ``tool`` (for read-only roles), if listed."""
        entry = self.launcher.entries.get(server) if hasattr(self, "launcher") else None
        for t in (entry.tools if entry is not None else None) or ():
            if t.name == tool:
                return t.annotations
        return None

    # -- what the launcher reports ------------------------------------------------

    async def _tools_changed(self, server: str) -> None:
        self.catalog_generation += 1
        await self.front_sessions.notify("tools")

    async def _content_changed(self, server: str, kind: str) -> None:
        await self.front_sessions.notify("resources" if kind == "resources" else "prompts")

    def _call_timeout_of(self, server: str) -> float | None:
        entry = self.launcher.entries.get(server)
        return entry.config.call_timeout if entry is not None else None
