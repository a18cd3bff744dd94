"""SkillCatalog: markdown skills as plain records the catalog and the intent matcher use."""

from neuralgentics.broker.skillcatalog.records import SkillRecord, skill_records, skills_for_role

__all__ = ["SkillRecord", "skill_records", "skills_for_role"]
