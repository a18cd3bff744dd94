"""The roster and the routing matrix: built-in defaults, then the user's config dir, then the project.

Each layer is a YAML file; an entry with a known name changes only the fields it sets, a new
name adds an entry. The merged result is validated once, and every problem names its file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from neuralgentics.orchestrator.errors import RosterError

PROJECT_CONFIG_DIR = ".neuralgentics"
ROSTER_FILE = "roster.yaml"
ROUTING_FILE = "routing.yaml"
# fullmatch, never match with `$`: `$` also matches before a trailing newline.
NAME_RE = re.compile(r"[a-z][a-z0-9_-]{0,39}")


class AgentSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    purpose: str = Field(min_length=1)
    model: Literal["primary", "secondary"]
    mode: Literal["primary", "subagent"] = "subagent"


class KeywordRule(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pattern: str
    weight: float = Field(default=1.0, gt=0, le=5)

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value, re.IGNORECASE)
        except re.error as exc:
            raise ValueError(f"not a valid regular expression: {exc}") from exc
        return value


class TaskTypeSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    label: str
    primary: str
    forbidden: list[str] = Field(default_factory=list)
    verify_with: list[str] = Field(default_factory=list)
    keywords: list[KeywordRule] = Field(default_factory=list)
    examples: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class OrchestratorConfig:
    agents: dict[str, AgentSpec]
    task_types: dict[str, TaskTypeSpec]
    sources: tuple[Path, ...] = field(default=())

    def agent(self, name: str) -> AgentSpec | None:
        return self.agents.get(name)


def _builtin_text(name: str) -> str:
    return (
        resources.files("neuralgentics.orchestrator").joinpath("builtin", name).read_text("utf-8")
    )


# libyaml's parser when PyYAML has it: the same documents, about ten times faster to read
# (routing.yaml: ~25 ms in pure Python, read by every command and doctor check that routes)
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read_layer(text: str, source: str, top_key: str) -> dict[str, dict]:
    try:
        data = yaml.load(text, Loader=_SafeLoader) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise RosterError(
            f"{source}{where}: not valid YAML ({getattr(exc, 'problem', exc)})"
        ) from exc
    if not isinstance(data, dict):
        raise RosterError(f"{source}: expected a mapping with a '{top_key}' key")
    unknown = set(data) - {top_key}
    if unknown:
        raise RosterError(f"{source}: unknown key(s) {sorted(unknown)}; expected '{top_key}'")
    entries = data.get(top_key) or {}
    if not isinstance(entries, dict):
        raise RosterError(f"{source}: '{top_key}' must map names to settings")
    for name, entry in entries.items():
        if not isinstance(name, str) or not NAME_RE.fullmatch(name):
            raise RosterError(
                f"{source}: '{top_key}.{name}' is not a valid name (lowercase letters, digits, - or _)"
            )
        if entry is not None and not isinstance(entry, dict):
            raise RosterError(f"{source}: '{top_key}.{name}' must be a mapping of fields")
    return {name: dict(entry or {}) for name, entry in entries.items()}


def layer_paths(project_dir: Path | None, config_dir: Path | None) -> list[Path]:
    """Directories holding override files, lowest precedence first."""
    dirs: list[Path] = []
    if config_dir is not None:
        dirs.append(config_dir)
    if project_dir is not None:
        dirs.append(project_dir / PROJECT_CONFIG_DIR)
    return dirs


def _merged(
    filename: str, top_key: str, dirs: list[Path]
) -> tuple[dict[str, dict], dict[str, str], list[Path]]:
    merged = _read_layer(_builtin_text(filename), f"built-in {filename}", top_key)
    origin = {name: f"built-in {filename}" for name in merged}
    used: list[Path] = []
    for directory in dirs:
        path = directory / filename
        if not path.is_file():
            continue
        layer = _read_layer(path.read_text("utf-8"), str(path), top_key)
        used.append(path)
        for name, entry in layer.items():
            merged.setdefault(name, {}).update(entry)
            origin[name] = str(path)
    return merged, origin, used


def _pydantic_problem(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"{where}: {first['msg']}" if where else first["msg"]


def load_config(
    project_dir: Path | None = None, config_dir: Path | None = None
) -> OrchestratorConfig:
    dirs = layer_paths(project_dir, config_dir)
    raw_agents, agent_origin, used_a = _merged(ROSTER_FILE, "agents", dirs)
    raw_types, type_origin, used_t = _merged(ROUTING_FILE, "task_types", dirs)

    agents: dict[str, AgentSpec] = {}
    for name, entry in raw_agents.items():
        try:
            agents[name] = AgentSpec(name=name, **entry)
        except (ValidationError, TypeError) as exc:
            problem = _pydantic_problem(exc) if isinstance(exc, ValidationError) else str(exc)
            raise RosterError(f"{agent_origin[name]}: agent '{name}': {problem}") from exc

    types: dict[str, TaskTypeSpec] = {}
    for type_id, entry in raw_types.items():
        where = f"{type_origin[type_id]}: task type '{type_id}'"
        try:
            spec = TaskTypeSpec(id=type_id, **entry)
        except (ValidationError, TypeError) as exc:
            problem = _pydantic_problem(exc) if isinstance(exc, ValidationError) else str(exc)
            raise RosterError(f"{where}: {problem}") from exc
        for ref_field in ("primary", "forbidden", "verify_with"):
            value = getattr(spec, ref_field)
            for agent in [value] if isinstance(value, str) else value:
                if agent not in agents:
                    raise RosterError(
                        f"{where}: {ref_field} names unknown agent '{agent}' "
                        f"(roster: {', '.join(sorted(agents))})"
                    )
        if spec.primary in spec.forbidden:
            raise RosterError(f"{where}: primary agent '{spec.primary}' is also forbidden")
        if not spec.examples and not spec.keywords:
            raise RosterError(f"{where}: needs examples or keywords to be recognised")
        types[type_id] = spec

    return OrchestratorConfig(agents=agents, task_types=types, sources=tuple(used_a + used_t))
