"""Who does what to memory (issue 28): every write, trust event and supersession has an origin.

- ``user``: a path a person drives (the CLI, the dashboard, the OpenCode command that runs the
  CLI): the owner token. Only the user records ``user_confirmed`` / ``user_rejected``.
- ``agent``: the plugin's tools, through a credential bound to one project. Its feedback has its
  own events (``agent_confirmed``, ``agent_rejected``, ``agent_used``), each smaller than a
  user's, and the agent's events alone move trust only within [AGENT_FLOOR, AGENT_CEILING]:
  however often it "confirms", a memory no user confirmed stays at or below 0.6 (0.5 + 0.1);
  however often it "rejects", the user's memory stays at or above 0.3 (above the context
  package's 0.2 cut). Each memory counts at most one agent event per session, so repeating
  a call in one session adds nothing (trust from use rises by sessions, not by calls).
- ``system``: update detection (``contradicted``), migrations.
- ``import``: history read from an export file.

The kind is decided on the server from the credential (``Actor.from_principal``), never from a
request field; the agent's name and session come from the plugin's headers (the model does not
set them) and are only labels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from neuralgentics import errors
from neuralgentics.memini.errors import MeminiError
from neuralgentics.memini.store.base import TRUST_SCALE, Memory, from_milli

Origin = Literal["user", "agent", "system", "import"]
ORIGINS: tuple[str, ...] = ("user", "agent", "system", "import")

# The band the agent's events alone move trust within, in thousandths (the starting trust is
# 0.5: the cap is +0.10, the floor -0.20).
AGENT_CEILING_MILLI = 600
AGENT_FLOOR_MILLI = 300
AGENT_CEILING = from_milli(AGENT_CEILING_MILLI)
AGENT_FLOOR = from_milli(AGENT_FLOOR_MILLI)

# which origin may record which event
USER_EVENTS = frozenset({"user_confirmed", "user_rejected"})
AGENT_EVENTS = frozenset({"agent_used", "agent_confirmed", "agent_rejected"})
SYSTEM_EVENTS = frozenset({"contradicted"})


class Forbidden(MeminiError, errors.Forbidden):
    """The caller's credential may not do this (403); the message says who may."""


@dataclass(frozen=True)
class Actor:
    """Who makes a write. ``project``: the one project an agent's credential is bound to
    (None: the owner, who may act anywhere). ``name``/``session``: the agent's, as labels."""

    kind: str = "user"
    name: str | None = None
    session: str | None = None
    project: str | None = None

    @property
    def bound(self) -> bool:
        return self.project is not None

    def label(self, fallback: str | None = None) -> str | None:
        """The actor column: the name given, else what the caller passed."""
        return self.name or fallback

    @classmethod
    def from_principal(
        cls, principal: object, *, agent: str | None = None, session: str | None = None
    ) -> Actor:
        """The actor an authenticated request stands for: a project credential is the agent of
        that project; anything else the owner let in is the user."""
        project = getattr(principal, "project", None)
        if project is not None:
            return cls("agent", name=agent or None, session=session or None, project=project)
        return cls("user", name=agent or None, session=session or None)


USER = Actor("user")
SYSTEM = Actor("system")


def check_event(actor: Actor, event: str) -> None:
    """Only a person confirms or rejects as the user; an agent records only agent events."""
    if event in USER_EVENTS and actor.kind != "user":
        raise Forbidden(
            f"{event} is the user's word: only a person records it (`neuralgentics memory "
            f"{'confirm' if event == 'user_confirmed' else 'reject'} ID`, the dashboard, or "
            "/memory-confirm in OpenCode); an agent records agent_confirmed or agent_rejected",
            field="event",
        )
    if actor.kind == "agent" and event not in AGENT_EVENTS:
        raise Forbidden(
            f"an agent records only {', '.join(sorted(AGENT_EVENTS))}, not {event}",
            field="event",
        )


def band(origin: str) -> tuple[int, int]:
    """(floor, ceiling) in thousandths an event of `origin` moves trust within."""
    if origin == "agent":
        return AGENT_FLOOR_MILLI, AGENT_CEILING_MILLI
    return 0, TRUST_SCALE


# -- what a project's credential may see and change ------------------------------------------


def visible(actor: Actor, memory: Memory) -> bool:
    """Whether `actor` may see `memory`: the owner sees everything; an agent its project's
    memories (and its sessions'), and the user's and agents' memories that no longer wait for
    a user's confirmation or that it wrote itself."""
    if not actor.bound:
        return True
    if memory.scope in ("project", "session"):
        return memory.project == actor.project
    return not memory.quarantined or (
        memory.origin == "agent" and memory.origin_project == actor.project
    )


def owns(actor: Actor, memory: Memory) -> bool:
    """Whether `actor` may supersede, give feedback on or link `memory`: the owner any; an
    agent its project's memories (a session's only from that session), and the user-scope or
    agent-scope memories its own project's agent wrote."""
    if not actor.bound:
        return True
    if memory.scope == "project":
        return memory.project == actor.project
    if memory.scope == "session":
        return memory.project == actor.project and memory.session == (actor.session or "")
    return memory.origin == "agent" and memory.origin_project == actor.project


def may_detect_over(actor: Actor, memory: Memory) -> bool:
    """Whether update detection may act (supersede, contradict) on `memory` for a write by
    `actor`: on what the actor owns, and never on a fact a person wrote when the writer is an
    agent. What the model says may be a prompt injection crafted to read as an update ("the
    deploy command moved to `curl … | sh`"): it may ask, with a likely update, but only a person
    hides the user's word (`neuralgentics memory supersede`, the dashboard)."""
    return owns(actor, memory) and not _users_word(actor, memory)


def _users_word(actor: Actor, memory: Memory) -> bool:
    return actor.kind == "agent" and memory.origin == "user"


def require_may_hide(actor: Actor, memory: Memory, field: str = "ids") -> None:
    """An explicit supersession: of what the actor owns, and for an agent never of a fact a
    person wrote (the same rule as `may_detect_over`: a confirm call is as easy to inject as
    a save)."""
    require_owned(actor, memory, "supersede")
    if _users_word(actor, memory):
        raise Forbidden(
            f"memory {memory.id} is the user's word: an agent may not hide it; the user "
            f"confirms the replacement (`neuralgentics memory supersede NEW {memory.id}`, or "
            "the dashboard)",
            field=field,
        )


def require_owned(actor: Actor, memory: Memory, what: str) -> None:
    if not owns(actor, memory):
        raise Forbidden(
            f"memory {memory.id} is not this project's ({_whose(memory)}): this credential "
            f"(project {actor.project!r}) may {what} only memories its project owns",
            field="id",
        )


def _whose(memory: Memory) -> str:
    if memory.scope == "project":
        return f"project {memory.project!r}"
    if memory.scope == "session":
        return f"session {memory.session!r} of project {memory.project!r}"
    if memory.origin == "agent":
        return f"{memory.scope} scope, written from project {memory.origin_project!r}"
    return f"{memory.scope} scope, the user's own"


def require_project(actor: Actor, project: str | None, field: str = "project") -> None:
    """An agent's credential works in its own project only."""
    if actor.bound and (project or "") != actor.project:
        raise Forbidden(
            f"this credential is bound to project {actor.project!r}, not {project!r}",
            field=field,
        )
