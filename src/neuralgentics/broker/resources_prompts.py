"""Downstream resources, resource templates and prompts through the broker: the same access
control, audit and namespacing as tools (docs/broker.md, "Resources and prompts").

- What a role may see: ``visible(broker, role)`` — per server, the resources, templates and
  prompts its patterns allow (``server:resource:URI``, ``server:prompt:NAME``, or the server
  alone; `access.patterns`), from the launcher's listing (kept across stops and on disk).
- On the broker's MCP surface they carry their server (`namespace`): a resource as
  ``broker://<server>/<uri>``, a prompt as ``<server>_<prompt>``. ``listed(...)`` gives what a
  front lists directly (servers with ``expose: resources`` / ``prompts``); the others are in
  the catalog and still read or fetched on demand.
- ``read_resource`` / ``get_prompt``: resolve, check, forward over the server's session, audit
  (``kind: resource`` / ``prompt``), and namespace the URIs in the answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import mcp.types as types
from mcp.shared.exceptions import MCPError

from neuralgentics.broker.access.patterns import Kind
from neuralgentics.broker.audit import AuditRecord
from neuralgentics.broker.client import ConnectionClosed, RequestTimedOut, from_session_error
from neuralgentics.broker.client.listings import ServerContent
from neuralgentics.broker.errors import (
    AccessDenied,
    BrokerError,
    CallTimeout,
    InvalidRequest,
    NotFound,
    ServerUnavailable,
)
from neuralgentics.broker.forward import calling_peer
from neuralgentics.broker.limits import check_arguments
from neuralgentics.broker.namespace import NameTable, resource_uri, split_resource_uri

if TYPE_CHECKING:
    from neuralgentics.broker.launcher.entry import Runtime
    from neuralgentics.broker.service import Broker

logger = logging.getLogger(__name__)

R = TypeVar("R")
MAX_URI = 8192


@dataclass
class Visible:
    """What one role may see, per server (only servers with something to show)."""

    content: dict[str, ServerContent] = field(default_factory=dict)
    prompt_names: NameTable = field(default_factory=NameTable)


async def visible(broker: Broker, role: str | None) -> Visible:
    """Resources, templates and prompts ``role`` may use, per server. A cold server whose
    lists are not known yet is started to list them (once: kept across stops and on disk);
    one that cannot start is left out."""
    policy = broker.policy
    names = [
        n
        for n in broker.launcher.entries
        if policy.may_see(role, n, "resource") or policy.may_see(role, n, "prompt")
    ]

    async def one(name: str) -> tuple[str, ServerContent | None]:
        try:
            return name, await broker.launcher.content(name)
        except BrokerError as exc:
            logger.warning("resources/prompts of %s: %s", name, exc.message)
            return name, None

    out = Visible()
    for name, content in await asyncio.gather(*(one(n) for n in names)):
        if content is None:
            continue

        def allowed(kind: Kind, key: str, server: str = name) -> bool:
            return policy.check_kind(role, kind, server, key).allowed

        shown = ServerContent(
            resources=tuple(r for r in content.resources or () if allowed("resource", r.uri))
            if content.resources is not None
            else None,
            templates=tuple(
                t for t in content.templates or () if allowed("resource", t.uri_template)
            )
            if content.templates is not None
            else None,
            prompts=tuple(p for p in content.prompts or () if allowed("prompt", p.name))
            if content.prompts is not None
            else None,
        )
        if shown.resources or shown.templates or shown.prompts:
            out.content[name] = shown
    out.prompt_names = NameTable.build(
        (server, p.name) for server, c in out.content.items() for p in c.prompts or ()
    )
    return out


def _exposed(broker: Broker, server: str, what: str) -> bool:
    entry = broker.launcher.entries.get(server)
    return entry is not None and what in entry.config.exposed


async def listed_resources(broker: Broker, role: str | None) -> list[types.Resource]:
    """``resources/list`` on the broker: resources of servers with ``expose: resources``."""
    seen = await visible(broker, role)
    return [
        r.model_copy(update={"uri": resource_uri(server, r.uri)})
        for server, c in sorted(seen.content.items())
        if _exposed(broker, server, "resources")
        for r in c.resources or ()
    ]


async def listed_templates(broker: Broker, role: str | None) -> list[types.ResourceTemplate]:
    seen = await visible(broker, role)
    return [
        t.model_copy(update={"uri_template": resource_uri(server, t.uri_template)})
        for server, c in sorted(seen.content.items())
        if _exposed(broker, server, "resources")
        for t in c.templates or ()
    ]


async def listed_prompts(broker: Broker, role: str | None) -> list[types.Prompt]:
    """``prompts/list`` on the broker: prompts of servers with ``expose: prompts``, named
    ``<server>_<prompt>``."""
    seen = await visible(broker, role)
    out = []
    for server, c in sorted(seen.content.items()):
        if not _exposed(broker, server, "prompts"):
            continue
        for p in c.prompts or ():
            public = seen.prompt_names.public(server, p.name)
            if public is not None:
                out.append(p.model_copy(update={"name": public}))
    return out


# -- reading and getting -------------------------------------------------------------------


def _template_prefix(template: str) -> str:
    return template.split("{", 1)[0]


def _resolve_uri(seen: Visible, uri: str) -> tuple[str, str]:
    """(server, original URI) for a broker URI, or for a plain URI that exactly one visible
    server lists (or has a template for): a tool's result carries the server's own URIs."""
    split = split_resource_uri(uri)
    if split is not None:
        return split
    owners = sorted(
        server
        for server, c in seen.content.items()
        if any(r.uri == uri for r in c.resources or ())
        or any(uri.startswith(_template_prefix(t.uri_template)) for t in c.templates or ())
    )
    if len(owners) == 1:
        return owners[0], uri
    if owners:
        raise InvalidRequest(
            f"resource {uri!r} could come from {', '.join(owners)}; name the server: "
            f"broker://SERVER/{uri}"
        )
    raise NotFound(
        f"no resource {uri!r} among those your role may read; the broker's resource URIs "
        "are broker://SERVER/URI (resources/list, or the catalog, shows them)"
    )


def _namespace_contents(server: str, result: types.ReadResourceResult) -> types.ReadResourceResult:
    contents = [c.model_copy(update={"uri": resource_uri(server, c.uri)}) for c in result.contents]
    return result.model_copy(update={"contents": contents})


def _namespace_message(server: str, message: types.PromptMessage) -> types.PromptMessage:
    c = message.content
    if isinstance(c, types.EmbeddedResource):
        resource = c.resource.model_copy(update={"uri": resource_uri(server, c.resource.uri)})
        return message.model_copy(update={"content": c.model_copy(update={"resource": resource})})
    if isinstance(c, types.ResourceLink):
        return message.model_copy(
            update={"content": c.model_copy(update={"uri": resource_uri(server, c.uri)})}
        )
    return message


async def read_resource(
    broker: Broker,
    *,
    role: str | None,
    uri: Any,
    session_id: str | None = None,
    front: str = "",
    credential: str | None = None,
) -> types.ReadResourceResult:
    """``resources/read`` of a broker URI (or a plain URI one visible server owns)."""
    rec = AuditRecord.for_call(
        role=role,
        server="-",
        tool="resources/read",
        arguments={"uri": uri},
        outcome="error",
        kind="resource",
        session_id=session_id,
        front=front,
        credential=credential,
    )

    async def run() -> types.ReadResourceResult:
        if not isinstance(uri, str) or not uri or len(uri) > MAX_URI:
            raise InvalidRequest(
                f"'uri' must be a non-empty string of at most {MAX_URI} characters"
            )
        seen = await visible(broker, role)
        server, original = _resolve_uri(seen, uri)
        rec.server = server
        _check(broker, role, "resource", server, original)
        request = types.ReadResourceRequest(params=types.ReadResourceRequestParams(uri=original))
        result = await _forward(
            broker,
            server,
            lambda rt, timeout: rt.session.send_request(
                request, types.ReadResourceResult, request_read_timeout_seconds=timeout
            ),
            what=f"resources/read of {original!r}",
        )
        rec.bytes_out = len(result.model_dump_json(by_alias=True, exclude_none=True))
        return _namespace_contents(server, result)

    return await broker.audited(rec, run)


async def get_prompt(
    broker: Broker,
    *,
    role: str | None,
    name: Any,
    arguments: Any = None,
    session_id: str | None = None,
    front: str = "",
    credential: str | None = None,
) -> types.GetPromptResult:
    """``prompts/get`` of a broker prompt name (``<server>_<prompt>``)."""
    rec = AuditRecord.for_call(
        role=role,
        server="-",
        tool=str(name),
        arguments=arguments or {},
        outcome="error",
        kind="prompt",
        session_id=session_id,
        front=front,
        credential=credential,
    )

    async def run() -> types.GetPromptResult:
        if not isinstance(name, str) or not name:
            raise InvalidRequest("'name' must be a non-empty string")
        if arguments is not None:
            if not isinstance(arguments, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in arguments.items()
            ):
                raise InvalidRequest("prompt 'arguments' must map names to strings")
            check_arguments(arguments)
        seen = await visible(broker, role)
        found = seen.prompt_names.resolve(name)
        if found is None:
            known = ", ".join(sorted(seen.prompt_names.by_public)) or "none"
            raise NotFound(
                f"no prompt {name!r} among those role {role!r} may use (it may use: {known})"
            )
        server, prompt = found
        rec.server, rec.tool = server, prompt
        _check(broker, role, "prompt", server, prompt)
        request = types.GetPromptRequest(
            params=types.GetPromptRequestParams(name=prompt, arguments=arguments)
        )
        result = await _forward(
            broker,
            server,
            lambda rt, timeout: rt.session.send_request(
                request, types.GetPromptResult, request_read_timeout_seconds=timeout
            ),
            what=f"prompts/get of {prompt!r}",
        )
        rec.bytes_out = len(result.model_dump_json(by_alias=True, exclude_none=True))
        messages = [_namespace_message(server, m) for m in result.messages]
        return result.model_copy(update={"messages": messages})

    return await broker.audited(rec, run)


def _check(broker: Broker, role: str | None, kind: Kind, server: str, name: str) -> None:
    decision = broker.policy.check_kind(role, kind, server, name)
    if not decision:
        what = f"resource {name!r} of {server}" if kind == "resource" else f"{server}/{name}"
        raise AccessDenied(
            f"role {role!r} may not use {what}: denied by {decision.rule}", decision.rule
        )
    if server not in broker.launcher.entries:
        raise NotFound(f"no server named {server!r}")


async def _forward(
    broker: Broker,
    server: str,
    send: Callable[[Runtime, float], Awaitable[R]],
    *,
    what: str,
) -> R:
    """One request over ``server``'s session, failures told apart as for tools/call."""
    cfg = broker.launcher.entry(server).config
    peer = calling_peer()
    async with broker.launcher.use(server) as rt:
        broker.forwarder.enter(server, peer)
        try:
            try:
                return await send(rt, cfg.call_timeout)
            except MCPError as exc:
                raise from_session_error(exc) from None
        except ConnectionClosed:
            rt.lost.set()
            raise ServerUnavailable(
                f"server {server!r} closed the connection during {what}; the next call restarts it"
            ) from None
        except RequestTimedOut:
            raise CallTimeout(
                f"{server}: {what} did not finish within {cfg.call_timeout:g} s (call_timeout)"
            ) from None
        finally:
            broker.forwarder.leave(server, peer)
