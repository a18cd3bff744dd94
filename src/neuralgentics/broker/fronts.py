"""The broker's client connections, to tell them when a list changes.

A downstream ``notifications/tools/list_changed`` (or resources', prompts') is passed on to
every connected client, which then lists again. Each front registers a connection once (the
stdio front itself; the SDK path one session object per connection, with its key) and removes
it when the connection closes; a reference is held until then (a weak one was lost as soon as
the request that registered it ended, so HTTP clients never heard of a change).
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Literal

logger = logging.getLogger(__name__)

ListKind = Literal["tools", "resources", "prompts"]
_SENDERS: dict[ListKind, str] = {
    "tools": "send_tool_list_changed",
    "resources": "send_resource_list_changed",
    "prompts": "send_prompt_list_changed",
}


class Fronts:
    def __init__(self) -> None:
        self._by_key: dict[object, Any] = {}

    def add(self, front: Any, key: object = None) -> bool:
        """Register ``front`` (anything with ``send_tool_list_changed`` and, if it takes
        them, the resource and prompt ones) under ``key`` (default: itself); False when the
        key is known already."""
        key = front if key is None else key
        if key in self._by_key:
            return False
        self._by_key[key] = front
        return True

    def discard(self, key: object) -> None:
        self._by_key.pop(key, None)

    def __contains__(self, key: object) -> bool:
        return key in self._by_key

    def __len__(self) -> int:
        return len(self._by_key)

    def __iter__(self) -> Any:
        return iter(list(self._by_key.values()))

    async def notify(self, kind: ListKind) -> None:
        for front in list(self._by_key.values()):
            send = getattr(front, _SENDERS[kind], None)
            if send is None:
                continue
            with contextlib.suppress(Exception):
                await send()
