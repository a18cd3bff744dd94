"""The patterns a role's ``allow`` and ``deny`` lists hold, parsed once.

=============================  =============================================================
pattern                        grants or denies
=============================  =============================================================
``time/get_*``                 tools of ``time`` whose name matches ``get_*``
``time`` (a server alone)      everything ``time`` offers: tools, resources, prompts
``fs:resource:file:///srv/*``  resources of ``fs`` whose URI matches (templates: their
                               ``uriTemplate`` is matched; a read checks the concrete URI)
``everything:prompt:*``        prompts of ``everything`` whose name matches
``git:tool:git_*``             the same as ``git/git_*``
=============================  =============================================================

The server part and the name part are shell-style globs (``*``, ``?``, ``[…]``; ``*`` also
matches ``/``). Server names cannot contain ``:`` or ``/``, so the two forms never overlap. A
``server/…`` pattern is about tools only: ``deny: ["everything/*"]`` takes every tool of
``everything`` away but not its resources or prompts; ``deny: ["everything"]`` takes all.

A resource URI is matched as the server will read it (``normal_uri``): percent-escapes in its
path decoded, empty segments collapsed, ``.`` and ``..`` resolved, so ``file:///srv/*`` does
not allow ``file:///srv/../etc/passwd`` (that is ``file:///etc/passwd``). A deny pattern is
also matched against the URI as sent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Literal
from urllib.parse import unquote, urlsplit, urlunsplit

from neuralgentics import errors

Kind = Literal["tool", "resource", "prompt"]
KINDS: tuple[Kind, ...] = ("tool", "resource", "prompt")
ALL_KINDS: frozenset[Kind] = frozenset(KINDS)

_KINDED = re.compile(r"([^/:]+):([A-Za-z]+):(.*)", re.DOTALL)


class PatternError(errors.InvalidInput, ValueError):
    """A pattern that cannot be read; the message names it and the forms that exist."""


@dataclass(frozen=True, slots=True)
class Pattern:
    text: str
    server: str  # glob over server names
    kinds: frozenset[Kind]
    name: str  # glob over tool names, resource URIs or prompt names

    def matches(self, kind: Kind, server: str, name: str) -> bool:
        return (
            kind in self.kinds and fnmatchcase(server, self.server) and fnmatchcase(name, self.name)
        )

    def covers_server(self, kind: Kind, server: str) -> bool:
        """True when this pattern may match some ``kind`` of ``server`` (names unknown yet)."""
        return kind in self.kinds and fnmatchcase(server, self.server)

    @property
    def whole(self) -> bool:
        """True when it matches every name of its kinds (``x``, ``x/*``, ``x:prompt:*``)."""
        return self.name == "*"


def parse_pattern(text: str) -> Pattern:
    """Read one allow/deny entry (see the module's table); raise PatternError if malformed."""
    if not isinstance(text, str) or not text:
        raise PatternError("patterns must be non-empty strings")
    m = _KINDED.fullmatch(text)
    if m is not None:
        server, kind, name = m.group(1), m.group(2), m.group(3)
        if kind not in KINDS:
            raise PatternError(
                f"pattern {text!r}: unknown kind {kind!r} (use SERVER/TOOL, SERVER, "
                "SERVER:resource:URI or SERVER:prompt:NAME)"
            )
        return Pattern(text, server, frozenset({kind}), name or "*")
    server, sep, tool = text.partition("/")
    if ":" in server:
        raise PatternError(
            f"pattern {text!r}: a server name has no ':' (use SERVER/TOOL, SERVER, "
            "SERVER:resource:URI or SERVER:prompt:NAME)"
        )
    if sep:
        return Pattern(text, server, frozenset({"tool"}), tool or "*")
    return Pattern(text, server, ALL_KINDS, "*")


def target(kind: Kind, server: str, name: str) -> str:
    """How a decision names what was asked for (``git/git_status``, ``fs:resource:file:///a``)."""
    return f"{server}/{name}" if kind == "tool" else f"{server}:{kind}:{name}"


def normal_uri(uri: str) -> str:
    """``uri`` with its path as a server resolving it reads it: percent-escapes decoded
    (``%2e%2e`` is ``..``), backslashes and repeated slashes as one ``/``, then the dot
    segments removed (RFC 3986, 5.2.4); a ``..`` never climbs above the root."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        return uri  # not a URI the server could read either; matched as sent
    path = unquote(parts.path).replace("\\", "/")
    raw = path.split("/")
    last = len(raw) - 1
    out: list[str] = []
    for i, seg in enumerate(raw):
        if seg == "..":
            if len(out) > 1 or (out and out[0] != ""):
                out.pop()
        elif seg == "." or (seg == "" and 0 < i < last):
            continue
        else:
            out.append(seg)
    if raw[-1] in (".", "..") and (not out or out[-1] != ""):
        out.append("")  # `a/..` is the directory `a/`'s parent: ends with a slash
    return urlunsplit((parts.scheme, parts.netloc, "/".join(out), parts.query, parts.fragment))
