"""Role-based access control: role -> allowed/denied ``server/tool`` globs, deny wins.

A pattern is ``server/tool`` with shell-style globs (``time/*``, ``*/read_*``); a pattern
without ``/`` names a whole server (``time`` is ``time/*``). Unknown roles see nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase

from neuralgentics.broker.config import RoleConfig


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    # Which rule decided: the matching pattern, or why nothing matched.
    rule: str

    def __bool__(self) -> bool:
        return self.allowed


def _split(pattern: str) -> tuple[str, str]:
    server, sep, tool = pattern.partition("/")
    return server, (tool if sep else "*")


def _matches(pattern: str, server: str, tool: str) -> bool:
    ps, pt = _split(pattern)
    return fnmatchcase(server, ps) and fnmatchcase(tool, pt)


class AccessPolicy:
    """Answers "may role R call server S's tool T?" and says which rule decided."""

    def __init__(self, roles: Mapping[str, RoleConfig]) -> None:
        self._roles = dict(roles)

    @property
    def roles(self) -> list[str]:
        return sorted(self._roles)

    def check(self, role: str | None, server: str, tool: str) -> Decision:
        if role is None:
            return Decision(False, "no role given and the config has no default_role")
        rc = self._roles.get(role)
        if rc is None:
            return Decision(False, f"unknown role {role!r} (default deny)")
        for pattern in rc.deny:
            if _matches(pattern, server, tool):
                return Decision(False, f"roles.{role}.deny: {pattern!r}")
        for pattern in rc.allow:
            if _matches(pattern, server, tool):
                return Decision(True, f"roles.{role}.allow: {pattern!r}")
        return Decision(False, f"no pattern in roles.{role}.allow matches {server}/{tool}")

    def may_call(self, role: str | None, server: str, tool: str) -> bool:
        return self.check(role, server, tool).allowed

    def may_see_server(self, role: str | None, server: str) -> bool:
        """True when some tool of ``server`` could be allowed (used before its tools are known)."""
        if role is None or role not in self._roles:
            return False
        rc = self._roles[role]
        for pattern in rc.deny:
            ps, pt = _split(pattern)
            if pt == "*" and fnmatchcase(server, ps):
                return False
        return any(fnmatchcase(server, _split(p)[0]) for p in rc.allow)
