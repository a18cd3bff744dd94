"""Role-based access control: role -> allowed/denied patterns, deny wins, default deny.

A pattern is ``server/tool`` with shell-style globs (``time/*``, ``*/read_*``); a pattern
without ``/`` names a whole server (``time``: its tools, resources and prompts); resources and
prompts have patterns of their own (``fs:resource:file:///srv/*``, ``everything:prompt:*``;
`access.patterns`). Unknown roles see nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from neuralgentics.broker.access.patterns import Kind, Pattern, parse_pattern, target
from neuralgentics.broker.config import RoleConfig


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


class AccessPolicy:
    """Answers "may role R call server S's tool T?" (or read resource U, get prompt P) and
    says which rule decided."""

    def __init__(self, roles: Mapping[str, RoleConfig]) -> None:
        # Parsed once; the config validated every pattern already.
        self._roles = {
            name: _Role(
                tuple(parse_pattern(p) for p in rc.allow), tuple(parse_pattern(p) for p in rc.deny)
            )
            for name, rc in roles.items()
        }

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
        for p in rc.deny:
            if p.matches(kind, server, name):
                return Decision(False, f"roles.{role}.deny: {p.text!r}")
        for p in rc.allow:
            if p.matches(kind, server, name):
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
