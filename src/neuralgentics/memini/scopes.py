"""Memory scopes (issue 17 item 6): who a memory belongs to, which memories a query searches,
which of two near-restatements wins, and the de-duplication key. Every rule is here.

- project: the memories of one project (the default; every memory before scopes existed).
- user: the user's own facts, across all projects (stored with project '').
- agent: one agent's memories, across projects (stored with project ''); they join that
  agent's queries.
- session: one session's memories; the project is kept as provenance.

Precedence among near-restatements of one fact: session > project = agent > user.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from neuralgentics.memini.errors import InvalidInput

Scope = Literal["user", "project", "agent", "session"]
SCOPES: tuple[str, ...] = ("user", "project", "agent", "session")
# higher wins among near-restatements of one fact (ranking.newer_first)
PRECEDENCE: dict[str, int] = {"session": 3, "project": 2, "agent": 2, "user": 1}
# the column that names the owner within a scope (user: nobody but the store's user)
_KEY_COLUMN: dict[str, str | None] = {
    "project": "project",
    "user": None,
    "agent": "agent",
    "session": "session",
}


@dataclass(frozen=True)
class Owner:
    """A scope and who in it: the project, agent or session name (None: any of that scope,
    which only listing uses)."""

    scope: str
    key: str | None = None
    # A search's user and agent owners (which cross projects): an agent's memory that waits
    # for a user's confirmation (quarantined, memini/provenance.py) matches only in the project
    # it was written from, `viewer` (None: in none).
    guarded: bool = False
    viewer: str | None = None


@dataclass(frozen=True)
class Placement:
    """The scope columns a new memory is stored with."""

    scope: str
    project: str
    agent: str
    session: str

    @property
    def owner(self) -> Owner:
        if self.scope == "user":
            return Owner("user")
        column = _KEY_COLUMN[self.scope]
        return Owner(self.scope, getattr(self, column or "project"))


def check_scope(value: str, field: str = "scope") -> str:
    if value not in SCOPES:
        raise InvalidInput(
            f"{field} must be one of {', '.join(SCOPES)}, not {value!r}", field=field
        )
    return value


def placement(scope: str | None, project: str, agent: str | None, session: str | None) -> Placement:
    """Where a new memory goes; an inconsistent combination is refused naming the field."""
    scope = check_scope(scope or "project")
    agent, session = agent or "", session or ""
    if agent and scope != "agent":
        raise InvalidInput(f"agent is only for scope agent (scope is {scope})", field="agent")
    if session and scope != "session":
        raise InvalidInput(f"session is only for scope session (scope is {scope})", field="session")
    if scope == "agent" and not agent:
        raise InvalidInput("scope agent needs an agent name", field="agent")
    if scope == "session" and not session:
        raise InvalidInput("scope session needs a session id", field="session")
    if scope in ("user", "agent") and project:
        raise InvalidInput(
            f"a {scope} memory belongs to no project: leave project out", field="project"
        )
    return Placement(scope, project, agent, session)


def placed(memory: Any) -> Placement:
    """Where a stored memory is (a `store.base.Memory`)."""
    return Placement(memory.scope, memory.project, memory.agent, memory.session)


def dedup_key(content: str, place: Placement) -> str:
    """The stored content_hash: sha256 of a JSON array of the owner fields and the content, for
    every scope, so each owner de-duplicates alone within the store's UNIQUE (project,
    content_hash). A JSON array is an encoding no text can forge: the strings are quoted and
    escaped, so no content makes one owner's array equal another's (issue 28 item 4: the
    separator-joined prefix of before could be written into a project memory's text and matched
    another session's memory). Migration sqlite 007 / postgres 0006 re-keyed older rows."""
    return owner_key(place.scope, place.project, place.agent, place.session, content)


def owner_key(scope: str, project: str, agent: str, session: str, content: str) -> str:
    """`dedup_key` from the columns themselves (what the re-keying migration reads)."""
    fields = ["memini-dedup/2", scope, project, agent, session, content]
    # ASCII-only JSON: every character escaped the same way, whatever the text holds
    return hashlib.sha256(json.dumps(fields).encode("ascii")).hexdigest()


def search_owners(
    project: str | None,
    agent: str | None,
    session: str | None,
    scopes: Sequence[str] | None,
) -> list[Owner] | None:
    """The owners a query searches: session S (if given) + project P (if given) + agent A (if
    given) + user, narrowed to `scopes` when given. None (no agent, session or scopes named):
    the query means what it meant before scopes (project P's project memories, or all)."""
    if not agent and not session and not scopes:
        return None
    wanted = [check_scope(s, "scopes") for s in scopes] if scopes else list(SCOPES)
    named = {"project": project, "agent": agent, "session": session}
    owners: list[Owner] = []
    for scope in ("session", "project", "agent", "user"):
        if scope not in wanted:
            continue
        if scope == "user":
            owners.append(Owner("user", guarded=True, viewer=project or None))
        elif scope == "agent" and named[scope]:
            owners.append(Owner(scope, named[scope], guarded=True, viewer=project or None))
        elif named[scope]:
            owners.append(Owner(scope, named[scope]))
        elif scopes:  # asked for by name, but for whom?
            raise InvalidInput(f"scope {scope} needs {scope} to be given", field=scope)
    return owners


def list_owners(
    scope: str | None, project: str | None, agent: str | None, session: str | None
) -> list[Owner] | None:
    """The owner a listing names (`GET /memory?scope=...`): None when no scope is given."""
    if scope is None:
        if agent or session:
            raise InvalidInput("agent and session filter with a scope", field="scope")
        return None
    scope = check_scope(scope)
    key = {"project": project, "agent": agent, "session": session, "user": None}[scope]
    return [Owner(scope, key or None)]


def owner_sql(owners: list[Owner], mark: str, alias: str = "") -> tuple[str, list]:
    """The WHERE clause matching any of `owners` (`mark` is the driver's placeholder). The
    scope is written as a literal (it is one of SCOPES, checked), so the planners can use the
    partial indexes `WHERE scope = 'session'` etc. (migration sqlite 005 / postgres 0004)."""
    col = f"{alias}." if alias else ""
    parts: list[str] = []
    params: list = []
    for owner in owners:
        scope = check_scope(owner.scope)
        column = _KEY_COLUMN[scope]
        if column is None or owner.key is None:
            part = f"{col}scope = '{scope}'"
        else:
            part = f"{col}scope = '{scope}' AND {col}{column} = {mark}"
            params.append(owner.key)
        if owner.guarded:
            if owner.viewer is None:
                part += f" AND NOT {col}quarantined"
            else:
                part += f" AND (NOT {col}quarantined OR {col}origin_project = {mark})"
                params.append(owner.viewer)
        parts.append(f"({part})")
    return ("(" + " OR ".join(parts) + ")") if parts else "FALSE", params
