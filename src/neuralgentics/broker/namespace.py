"""How downstream names and URIs look on the broker's own MCP surface.

Several servers may offer a tool, prompt or resource of the same name, so what the broker
lists carries the server:

- **tools and prompts**: ``<server>_<name>`` (``everything_echo``), the form OpenCode itself
  uses for MCP tools. MCP names are 1-128 characters of ``A-Za-z0-9_.-``; many model providers
  cap function names at 64, so a longer name is cut and ends in 8 hex digits of a hash of
  the original, and a character outside that set becomes ``_``. Because server names may
  contain ``_`` too, the public name is never parsed back: a :class:`NameTable` built from
  the listing maps it to ``(server, name)``, and a collision (``a_b``+``c`` vs ``a``+``b_c``)
  gives the later one (in sorted order) its hashed form.
- **resources and templates**: ``broker://<server>/<original URI>``
  (``broker://everything/demo://resource/static/document/features.md``); server names have
  no ``/``, so the first ``/`` after the server ends it, and the original URI follows
  unchanged (a template's ``{variables}`` included, so a client expands it as usual).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

MAX_NAME = 64
URI_SCHEME = "broker://"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def _hashed(raw: str, safe: str) -> str:
    digest = hashlib.sha256(raw.encode()).hexdigest()[:8]
    return f"{safe[: MAX_NAME - 9]}_{digest}"


def public_name(server: str, name: str) -> str:
    """``server_name``, within MCP's name rules and 64 characters."""
    raw = f"{server}_{name}"
    safe = _UNSAFE.sub("_", raw)
    return safe if len(safe) <= MAX_NAME else _hashed(raw, safe)


@dataclass
class NameTable:
    """Public names -> (server, name) for one listing; built per listing, never parsed back."""

    by_public: dict[str, tuple[str, str]] = field(default_factory=dict)
    by_pair: dict[tuple[str, str], str] = field(default_factory=dict)

    @classmethod
    def build(cls, pairs: Iterable[tuple[str, str]], reserved: Iterable[str] = ()) -> NameTable:
        table = cls()
        taken = set(reserved)
        for server, name in sorted(set(pairs)):
            public = public_name(server, name)
            if public in taken:
                public = _hashed(f"{server}\0{name}", _UNSAFE.sub("_", f"{server}_{name}"))
            if public in taken:
                continue  # a hash collision on top of a name collision: leave it out
            taken.add(public)
            table.by_public[public] = (server, name)
            table.by_pair[(server, name)] = public
        return table

    def public(self, server: str, name: str) -> str | None:
        return self.by_pair.get((server, name))

    def resolve(self, public: str) -> tuple[str, str] | None:
        return self.by_public.get(public)


def resource_uri(server: str, uri: str) -> str:
    """The broker's URI for ``uri`` of ``server`` (also for a URI template)."""
    return f"{URI_SCHEME}{server}/{uri}"


def split_resource_uri(uri: str) -> tuple[str, str] | None:
    """``(server, original URI)`` of a broker URI, or None when ``uri`` is not one."""
    if not uri.startswith(URI_SCHEME):
        return None
    server, sep, original = uri[len(URI_SCHEME) :].partition("/")
    if not sep or not server or not original:
        return None
    return server, original
