"""Skills as plain records.

The orchestrator owns skill files (parsing, reload, precedence); the broker only needs what a
skill is called, what it is for and for whom. Taking plain records keeps the two areas
independent: any object with ``id``, ``name``, ``description``, ``body`` and optionally
``agents`` attributes (or a mapping with those keys) converts. Whoever composes the broker hands them in (``neuralgentics.app.broker``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SkillRecord:
    id: str
    name: str
    description: str = ""
    body: str = ""
    # the agents (roles) it is for; empty: every role
    agents: tuple[str, ...] = ()

    def for_role(self, role: str | None) -> bool:
        """Whether ``role`` may see it (None: the operator's view, everything)."""
        return role is None or not self.agents or role in self.agents

    @classmethod
    def from_any(cls, skill: Any) -> SkillRecord:
        if isinstance(skill, SkillRecord):
            return skill
        get = skill.get if isinstance(skill, Mapping) else lambda k, d=None: getattr(skill, k, d)
        skill_id = get("id")
        if not skill_id or not isinstance(skill_id, str):
            raise ValueError(f"a skill needs a non-empty string 'id' (got {skill_id!r})")
        agents = get("agents") or ()
        return cls(
            id=skill_id,
            name=str(get("name") or skill_id),
            description=str(get("description") or ""),
            body=str(get("body") or ""),
            agents=tuple(str(a) for a in agents) if isinstance(agents, list | tuple) else (),
        )


def skill_records(skills: Iterable[Any]) -> list[SkillRecord]:
    """Convert skills of any shape with id/name/description/body to records; ids stay unique."""
    out: dict[str, SkillRecord] = {}
    for skill in skills:
        record = SkillRecord.from_any(skill)
        out.setdefault(record.id, record)  # first wins: callers list the highest-precedence first
    return list(out.values())


def skills_for_role(skills: Iterable[SkillRecord], role: str | None) -> list[SkillRecord]:
    """The skills ``role`` may see: a role never sees a skill meant for other agents."""
    return [s for s in skills if s.for_role(role)]
