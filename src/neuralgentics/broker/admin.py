"""Config edits on the running broker: reload, servers added and removed, role edits — each
validated, persisted, applied at once and audited, done or refused (`Broker` is the front that
holds the parts)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from neuralgentics.broker.access import AccessPolicy
from neuralgentics.broker.audit.record import redact
from neuralgentics.broker.config import (
    BrokerConfig,
    ConfigError,
    ServerConfig,
    env_references,
    load_config,
    save_config,
    with_server,
    without_server,
)
from neuralgentics.broker.errors import BrokerError, Conflict, InvalidRequest, NotFound
from neuralgentics.broker.roles import Edit, KnownTools, RoleExists, UnknownRole, check_roles

if TYPE_CHECKING:
    from neuralgentics.broker.service import Broker

logger = logging.getLogger(__name__)


class ConfigAdmin:
    """The broker's write side; one edit at a time (the edit lock)."""

    def __init__(self, broker: Broker) -> None:
        self._b = broker
        self._edit_lock = asyncio.Lock()

    async def apply_config(self, config: BrokerConfig) -> dict[str, list[str]]:
        """Switch to ``config``: new policy at once; only added/removed/changed servers move."""
        self._b.config = config
        self._b.policy = AccessPolicy(config.roles, self._b.tool_hints)
        self._b.catalog_generation += 1
        warn_about_rules(config)
        self._b.trail.gate.burst, self._b.trail.gate.per_second = (
            config.audit.flood_burst,
            config.audit.flood_per_second,
        )
        self._b.calls.forget_checks()
        return await self._b.launcher.reload(config.brokered())

    async def reload(
        self, *, credential: str | None = "owner", front: str = "api"
    ) -> dict[str, list[str]]:
        """Re-read the config file (SIGHUP, POST /reload). An invalid file changes nothing and raises."""
        try:
            if self._b.config_path is None:
                raise ConfigError(
                    "this broker was given its config in memory: there is no file to reload"
                )
            async with self._edit_lock:
                config = load_config(self._b.config_path)
                changes = await self.apply_config(config)
        except ConfigError as exc:
            await self._b.trail.admin(
                "reload", "*", "invalid", credential=credential, front=front, error=str(exc)
            )
            raise
        logger.info("config reloaded: %s", changes)
        await self._b.trail.admin(
            "reload", "*", "ok", credential=credential, front=front, details={"changes": changes}
        )
        return changes

    async def add_server(
        self,
        name: str,
        server: dict[str, Any] | ServerConfig,
        *,
        replace: bool = False,
        credential: str | None = "owner",
        front: str = "api",
        remote: bool = False,
    ) -> ServerConfig:
        """Register a server on the running broker and persist it; a bad entry changes nothing.

        ``remote``: the entry came over the network. It may not reference the broker's
        environment (``${VAR}``): that would copy the broker's secrets to whoever may add
        servers. Such an entry is refused, naming the variables (config.env_references).
        """
        action = "servers.replace" if replace and name in self._b.config.servers else "servers.add"
        before = self._b.config.servers.get(name)
        details: dict[str, Any] = {"after": _entry_for_audit(server)}
        if before is not None:
            details["before"] = _entry_for_audit(before)

        def change(current: BrokerConfig) -> BrokerConfig:
            if remote and (refs := env_references(server)):
                raise InvalidRequest(
                    f"servers.{name}: an entry sent over HTTP may not reference the broker's environment "
                    f"({', '.join('${' + r + '}' for r in refs)}); put the value in the entry, or add the "
                    "server on the broker's machine with `neuralgentics broker add` (local config may use ${VAR})"
                )
            if name in current.servers and not replace:
                raise InvalidRequest(f"servers.{name}: a server named {name!r} already exists")
            try:
                return with_server(current, name, server)
            except ConfigError as exc:
                raise InvalidRequest(str(exc)) from None

        config = await self._admin_edit(
            action, name, change, credential=credential, front=front, details=details
        )
        return config.servers[name]

    async def remove_server(
        self, name: str, *, credential: str | None = "owner", front: str = "api"
    ) -> None:
        before = self._b.config.servers.get(name)
        details = {"before": _entry_for_audit(before)} if before is not None else {}

        def change(current: BrokerConfig) -> BrokerConfig:
            if name not in current.servers:
                raise NotFound(f"no server named {name!r}")
            return without_server(current, name)

        await self._admin_edit(
            "servers.remove", name, change, credential=credential, front=front, details=details
        )

    async def _admin_edit(
        self,
        action: str,
        target: str,
        change: Callable[[BrokerConfig], BrokerConfig],
        *,
        credential: str | None,
        front: str,
        details: dict[str, Any],
        after: Callable[[], Any] | None = None,
    ) -> BrokerConfig:
        """Under the edit lock: the config ``change`` makes of the current one (a BrokerError
        refuses it), persisted and applied; one admin record, done or refused. ``after``: what
        the record's ``details["after"]`` says once the edit is done."""
        try:
            async with self._edit_lock:
                config = change(self._b.config)
                if self._b.config_path is not None:
                    save_config(config, self._b.config_path)
                await self.apply_config(config)
        except BrokerError as exc:
            await self._b.trail.admin(
                action,
                target,
                "invalid",
                credential=credential,
                front=front,
                details=details,
                error=exc.message,
            )
            raise
        if after is not None:
            details["after"] = after()
        await self._b.trail.admin(
            action, target, "ok", credential=credential, front=front, details=details
        )
        return config

    async def edit_roles(
        self,
        action: str,
        role: str,
        edit: Callable[[BrokerConfig, KnownTools], Edit],
        *,
        credential: str | None = "owner",
        front: str = "api",
    ) -> Edit:
        """Apply a role edit (``broker.roles``: add_role, remove_role, grant, revoke) to the
        running broker: validated against its servers and their known tools, persisted, the
        policy switched at once; one admin record, done or refused."""
        details: dict[str, Any] = {"before": _role_for_audit(self._b.config, role)}
        results: list[Edit] = []

        def change(current: BrokerConfig) -> BrokerConfig:
            try:
                results.append(edit(current, self._b.known_tools()))
            except UnknownRole as exc:
                raise NotFound(str(exc)) from None
            except RoleExists as exc:
                raise Conflict(str(exc)) from None
            except ConfigError as exc:
                raise InvalidRequest(str(exc)) from None
            return results[-1].config

        await self._admin_edit(
            action,
            role,
            change,
            credential=credential,
            front=front,
            details=details,
            after=lambda: results[-1].after,
        )
        result = results[-1]
        return result


def warn_about_rules(config: BrokerConfig) -> None:
    """Rules naming a server that is not there are served (they match nothing) but said:
    `broker check` fails on them, `broker role` refuses to write them."""
    for problem in check_roles(config):
        if problem.severity == "error":
            logger.warning("%s (it matches nothing; `neuralgentics broker check`)", problem)


def _role_for_audit(config: BrokerConfig, role: str) -> dict[str, list[str]] | None:
    rc = config.roles.get(role)
    return None if rc is None else {"allow": list(rc.allow), "deny": list(rc.deny)}


def _entry_for_audit(server: dict[str, Any] | ServerConfig | Any) -> Any:
    """A server entry as an admin record keeps it: env and header values never (they hold
    credentials even when their names do not say so), the rest redacted like arguments."""
    data = (
        server.model_dump(mode="json", exclude_defaults=True)
        if isinstance(server, ServerConfig)
        else server
    )
    if not isinstance(data, dict):
        return redact(data)
    data = dict(data)
    for section in ("env", "headers"):
        if isinstance(data.get(section), dict):
            data[section] = {str(k): "[REDACTED]" for k in data[section]}
    return redact(data)
