"""Role-based access control: role -> allowed/denied patterns, deny wins, default deny.

A pattern is ``server/tool`` with shell-style globs (``time/*``, ``*/read_*``); a pattern
without ``/`` names a whole server (``time``: its tools, resources and prompts); resources and
prompts have patterns of their own (``fs:resource:file:///srv/*``, ``everything:prompt:*``;
`access.patterns`). Unknown roles see nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from neuralgentics.broker.access.patterns import Kind, Pattern, normal_uri, parse_pattern, target
from neuralgentics.broker.access.readonly import Writes, classify
from neuralgentics.broker.config import RoleConfig

if TYPE_CHECKING:  # the CLI's role commands import this: no MCP SDK at run time
    from mcp.types import ToolAnnotations

    # (server, tool) -> the tool's annotations as listed, or None
    Hints = Callable[[str, str], ToolAnnotations | None]
else:
    Hints = Callable[[str, str], Any]


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    # Which rule decided: the matching pattern, or why nothing matched.
    rule: str

    def __bool__(self) -> bool:
        return self.allowed


@dataclass(frozen=True, slots=True)
class _Role:
    allow: tuple[Pattern, ...]
    deny: tuple[Pattern, ...]
    read_only: bool = False


class AccessPolicy:
    """Answers "may role R call server S's tool T?" (or read resource U, get prompt P) and
    says which rule decided."""

    def __init__(self, roles: Mapping[str, RoleConfig], hints: Hints | None = None) -> None:
        """``hints(server, tool)``: the tool's annotations as its server listed them (None when
        it gave none or is not listed yet), for ``read_only`` roles (`access.readonly`)."""
        # Parsed once; the config validated every pattern already.
        self._roles = {
            name: _Role(
                tuple(parse_pattern(p) for p in rc.allow),
                tuple(parse_pattern(p) for p in rc.deny),
                rc.read_only,
            )
            for name, rc in roles.items()
        }
        self._hints = hints

    def is_read_only(self, role: str | None) -> bool:
        rc = self._roles.get(role) if role is not None else None
        return rc is not None and rc.read_only

    def writes(self, server: str, tool: str) -> Writes:
        """Whether ``server/tool`` writes, and how that was decided."""
        return classify(tool, self._hints(server, tool) if self._hints else None)

    @property
    def roles(self) -> list[str]:
        return sorted(self._roles)

    def has_role(self, role: str | None) -> bool:
        return role is not None and role in self._roles

    def check_kind(self, role: str | None, kind: Kind, server: str, name: str) -> Decision:
        if role is None:
            return Decision(False, "no role given and the config has no default_role")
        rc = self._roles.get(role)
        if rc is None:
            return Decision(False, f"unknown role {role!r} (default deny)")
        # A URI is allowed as the server will read it; denied as sent or as read.
        read_as = normal_uri(name) if kind == "resource" else name
        for p in rc.deny:
            if p.matches(kind, server, name) or p.matches(kind, server, read_as):
                return Decision(False, f"roles.{role}.deny: {p.text!r}")
        for p in rc.allow:
            if p.matches(kind, server, read_as):
                if rc.read_only and kind == "tool":
                    w = self.writes(server, name)
                    if w.writes:
                        return Decision(False, f"roles.{role}.read_only: {server}/{name} {w}")
                    return Decision(True, f"roles.{role}.allow: {p.text!r}; {w}")
                return Decision(True, f"roles.{role}.allow: {p.text!r}")
        return Decision(
            False, f"no pattern in roles.{role}.allow matches {target(kind, server, name)}"
        )

    def check(self, role: str | None, server: str, tool: str) -> Decision:
        return self.check_kind(role, "tool", server, tool)

    def may_call(self, role: str | None, server: str, tool: str) -> bool:
        return self.check_kind(role, "tool", server, tool).allowed

    def may_see(self, role: str | None, server: str, kind: Kind) -> bool:
        """True when something of ``kind`` on ``server`` could be allowed (names unknown yet):
        an allow pattern covers the server and no deny pattern takes the whole kind away."""
        if role is None or role not in self._roles:
            return False
        rc = self._roles[role]
        if any(p.whole and p.covers_server(kind, server) for p in rc.deny):
            return False
        return any(p.covers_server(kind, server) for p in rc.allow)

    def may_see_server(self, role: str | None, server: str) -> bool:
        """True when some tool of ``server`` could be allowed (used before its tools are known)."""
        return self.may_see(role, server, "tool")
