"""What an import would do, doing it, and taking imported servers out of opencode.json.

``plan_import`` reads the sources and says, per entry, whether it is new, already in the
broker (the same entry), in conflict with a broker server of that name, or skipped (and why).
``apply_import`` adds the new ones (and, with ``replace``, the conflicting ones) to a config,
validated like any edit. ``remove_from_opencode`` then deletes the imported entries from an
opencode.json, so OpenCode does not start them beside the broker — except an entry whose
literal secret the user has not set yet (removing it would lose the only copy).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from neuralgentics.broker.config import BrokerConfig, config_from, write_text_atomic
from neuralgentics.broker.importer.convert import Converted, SecretRef, convert
from neuralgentics.broker.importer.sources import Source, SourceError, has_comments
from neuralgentics.jsonc import loads as jsonc_loads

Status = Literal["new", "same", "conflict", "skipped"]


@dataclass
class Candidate:
    source: Source
    converted: Converted
    status: Status
    reason: str = ""

    @property
    def name(self) -> str:
        return self.converted.name

    @property
    def secrets(self) -> list[SecretRef]:
        return self.converted.secrets


@dataclass
class Plan:
    candidates: list[Candidate] = field(default_factory=list)

    def to_add(self, replace: bool = False) -> list[Candidate]:
        wanted = ("new", "conflict") if replace else ("new",)
        return [c for c in self.candidates if c.status in wanted]

    def imported(self, replace: bool = False) -> list[Candidate]:
        """What the broker has once applied: added now, or already the same."""
        return [*self.to_add(replace), *(c for c in self.candidates if c.status == "same")]


def _same(existing: Any, entry: dict[str, Any]) -> bool:
    mine = existing.model_dump(mode="json", exclude_defaults=True)
    mine.pop("summary", None)
    theirs = {k: v for k, v in entry.items() if k != "summary"}
    theirs.setdefault("transport", "stdio")
    mine.setdefault("transport", "stdio")
    return bool(mine == theirs)


def plan_import(config: BrokerConfig, sources: list[Source], env: Mapping[str, str]) -> Plan:
    """``env``: the environment of the import (which ``${VAR}`` are set)."""
    plan = Plan()
    taken: dict[str, Candidate] = {}
    for source in sources:
        for key, raw in source.entries.items():
            conv = convert(
                source.kind, str(key), raw, source=source.path, workspace=source.workspace, env=env
            )
            if conv.entry is None:
                plan.candidates.append(Candidate(source, conv, "skipped", conv.skipped or ""))
                continue
            earlier = taken.get(conv.name)
            if earlier is not None:
                plan.candidates.append(
                    Candidate(
                        source,
                        conv,
                        "skipped",
                        f"{conv.name!r} is already imported from {earlier.source.path}",
                    )
                )
                continue
            existing = config.servers.get(conv.name)
            if existing is None:
                status: Status = "new"
                reason = ""
            elif _same(existing, conv.entry):
                status, reason = "same", "already in the broker"
            else:
                status = "conflict"
                reason = (
                    f"the broker already has a different {conv.name!r} (--replace takes this one)"
                )
            cand = Candidate(source, conv, status, reason)
            taken[conv.name] = cand
            plan.candidates.append(cand)
    return plan


def apply_import(config: BrokerConfig, plan: Plan, *, replace: bool = False) -> BrokerConfig:
    """``config`` with the plan's servers added; validated like a loaded file."""
    data = config.model_dump(mode="json")
    for cand in plan.to_add(replace):
        assert cand.converted.entry is not None
        data["servers"][cand.name] = cand.converted.entry
    return config_from(data, "import")


@dataclass
class Removal:
    removed: list[str]
    # entry -> why it stayed in the source
    kept: dict[str, str]


def remove_from_opencode(path: Path, candidates: list[Candidate]) -> Removal:
    """Delete the imported entries from an opencode.json's ``mcp`` (atomically). Refused for a
    file with comments (rewriting it would lose them); an entry whose literal secret is not
    set in this environment stays (the file holds its only copy)."""
    if has_comments(path):
        raise SourceError(
            f"{path}: it has comments, which rewriting it would lose; remove these entries "
            f"from its 'mcp' by hand: {', '.join(c.converted.key for c in candidates)}"
        )
    data = jsonc_loads(path.read_text(encoding="utf-8"), str(path))
    mcp = data.get("mcp") if isinstance(data, dict) else None
    if not isinstance(mcp, dict):
        return Removal([], {})
    removed: list[str] = []
    kept: dict[str, str] = {}
    for cand in candidates:
        key = cand.converted.key
        if key not in mcp:
            continue
        unset = sorted({s.variable for s in cand.secrets if s.literal and not s.present})
        if unset:
            kept[key] = (
                f"its literal secret would be lost: set {', '.join(unset)} first "
                "(the value is in this file), then import again with --remove-from-source"
            )
            continue
        del mcp[key]
        removed.append(key)
    if removed:
        _write_json(path, data)
    return Removal(removed, kept)


def _write_json(path: Path, data: Any) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    # the user's file keeps its permissions
    write_text_atomic(path, text, mode=path.stat().st_mode & 0o777)
