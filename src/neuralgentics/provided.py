"""The objects a composition root hands to its routes, once, when it builds the app.

A route module declares what it needs as a dependency function that looks its object up here::

    async def memory_service(request: Request) -> Callable[[], MemoryService]:
        return provided(request, memory_service)

and the root fills the table in at build time: ``provide(app, {memory_service: memory, ...})``.
An app that mounts the router without providing the object fails loudly, naming it.

Why not FastAPI's ``app.dependency_overrides``: with any override set, FastAPI rebuilds every
dependency of every request from its signature (``get_dependant``, i.e. ``inspect.signature``
per dependency per request), and a plain ``def`` dependency is run in the threadpool, one
thread hand-off each. On memini-core's ``POST /memory/add`` that was four hand-offs and ~1.5 ms
of the event loop's time per request (docs/benchmarks-memory-store.md, "The HTTP hop"). The
lookup here is an ``async def`` doing one dict read on the event loop. Tests may still override
these dependencies with ``dependency_overrides``; FastAPI then takes its slow path for them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar, cast

from starlette.applications import Starlette
from starlette.requests import HTTPConnection

T = TypeVar("T")
# The app.state attribute holding the table (dependency function -> its object).
STATE_KEY = "neuralgentics_provided"


def provide(app: Starlette, objects: Mapping[Callable[..., Any], object]) -> None:
    """Give `app`'s routes these objects, each for the dependency function it is keyed by."""
    table: dict[Callable[..., Any], object] = getattr(app.state, STATE_KEY, None) or {}
    table.update(objects)
    setattr(app.state, STATE_KEY, table)


def provided(conn: HTTPConnection, slot: Callable[..., Awaitable[T]]) -> T:
    """The object the app was given for the dependency function `slot`."""
    try:
        return cast(T, getattr(conn.app.state, STATE_KEY)[slot])
    except (AttributeError, KeyError):
        raise RuntimeError(
            f"{getattr(slot, '__name__', slot)} is not wired: build the app with "
            "neuralgentics.app.create_app"
        ) from None
