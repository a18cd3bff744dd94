"""Markdown skills loaded at run time from the project, the user's config dir and the package.

Two header forms parse to the same `Skill`:

    ---                          # skill: architect
    id: architect                name: Architecture Review
    name: Architecture Review    model: primary
    model: primary               description: Reviews system design.
    description: ...             ---
    ---                          body...
    body...

A file that cannot be read is reported (file, line, problem) and skipped; the others load.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path

import yaml

from neuralgentics.orchestrator.errors import InvalidInput, NotFound

# fullmatch, never match with `$`: `$` also matches before a trailing newline.
ID_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
MAX_SKILL_BYTES = 64 * 1024
IGNORED_FILES = {"readme.md"}
SEED_HEADER_RE = re.compile(r"^#\s*skill:\s*(?P<id>\S.*?)\s*$", re.IGNORECASE)
SEED_LINE_RE = re.compile(r"^(?P<key>[A-Za-z_][A-Za-z0-9_-]*)\s*:\s*(?P<value>.*?)\s*$")
KNOWN_KEYS = {"id", "name", "model", "description", "agents", "task_types", "applies_to"}


@dataclass
class Skill:
    id: str
    name: str
    description: str
    body: str
    model: str | None = None
    agents: list[str] = field(default_factory=list)
    task_types: list[str] = field(default_factory=list)
    path: str = ""
    origin: str = ""  # project | user | builtin
    form: str = ""  # yaml | seed
    # lower-precedence files with the same id that this one hides
    shadows: list[str] = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    def applies(self, agent: str | None, task_type: str | None) -> bool:
        """Whether to include this skill for `agent` on a task of `task_type`.

        No `agents` list means the skill applies to the agent it is named after, or to
        every agent when its id is not an agent's name (the registry fills that in).
        """
        if agent is not None and self.agents and agent not in self.agents:
            return False
        if task_type is not None and self.task_types and task_type not in self.task_types:
            return False
        return True

    def to_json(self, *, with_body: bool = True) -> dict:
        data = asdict(self)
        if not with_body:
            data.pop("body")
        return data


@dataclass
class SkillProblem:
    path: str
    line: int
    problem: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.problem}"


class SkillParseError(Exception):
    def __init__(self, line: int, problem: str) -> None:
        super().__init__(problem)
        self.line = line
        self.problem = problem


def _as_list(value: object, key: str, line: int) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        items = [v.strip() for v in value.strip("[]").split(",")]
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = [v.strip() for v in value]
    else:
        raise SkillParseError(line, f"'{key}' must be a list of names or a comma-separated string")
    return [v for v in items if v]


def _split_yaml(text: str) -> tuple[dict, dict[str, int], str, int]:
    lines = text.splitlines(keepends=True)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if end is None:
        raise SkillParseError(1, "frontmatter opened with '---' is never closed by a '---' line")
    header = "".join(lines[1:end])
    try:
        node = yaml.compose(header, Loader=yaml.SafeLoader)
        data = yaml.safe_load(header) if node is not None else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        # an unclosed bracket is noticed at the end of the header: point at where it opened
        if (
            mark is not None
            and mark.line >= header.count("\n")
            and getattr(exc, "context_mark", None)
        ):
            mark = exc.context_mark  # type: ignore[attr-defined]  # MarkedYAMLError's, checked above
        line = (mark.line + 2) if mark else 2
        raise SkillParseError(
            line, f"frontmatter is not valid YAML: {getattr(exc, 'problem', None) or exc}"
        ) from exc
    if not isinstance(data, dict):
        raise SkillParseError(2, "frontmatter must be a mapping of 'key: value' lines")
    key_lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, _ in node.value:
            key_lines[str(key_node.value)] = key_node.start_mark.line + 2
    return data, key_lines, "".join(lines[end + 1 :]), end + 2


def _split_seed(text: str) -> tuple[dict, dict[str, int], str, int]:
    lines = text.splitlines(keepends=True)
    first = next(i for i, ln in enumerate(lines) if ln.strip())
    data: dict = {"id": SEED_HEADER_RE.match(lines[first].strip()).group("id")}  # type: ignore[union-attr]
    key_lines = {"id": first + 1}
    for i in range(first + 1, len(lines)):
        raw = lines[i].strip()
        if raw == "---":
            return data, key_lines, "".join(lines[i + 1 :]), i + 2
        if not raw:
            continue
        m = SEED_LINE_RE.match(raw)
        if not m:
            raise SkillParseError(
                i + 1, f"expected 'key: value' in the skill header, got {raw[:60]!r}"
            )
        key = m.group("key").replace("-", "_")
        if key in data:
            raise SkillParseError(i + 1, f"'{key}' is set twice")
        data[key] = m.group("value")
        key_lines[key] = i + 1
    raise SkillParseError(first + 1, "skill header is never closed by a '---' line")


def parse_skill(text: str, *, default_id: str) -> Skill:
    """Parse one skill file's text. Raises SkillParseError with the line at fault."""
    stripped = text.lstrip("\ufeff")
    first_line = next((ln.strip() for ln in stripped.splitlines() if ln.strip()), "")
    if stripped.startswith("---"):
        data, key_lines, body, body_line = _split_yaml(stripped)
        form = "yaml"
    elif SEED_HEADER_RE.match(first_line):
        data, key_lines, body, body_line = _split_seed(stripped)
        form = "seed"
    else:
        raise SkillParseError(
            1, "no skill header: start the file with '---' (YAML frontmatter) or '# skill: ID'"
        )

    data = {str(k).replace("-", "_"): v for k, v in data.items()}
    key_lines = {k.replace("-", "_"): v for k, v in key_lines.items()}
    line_of = lambda key: key_lines.get(key, 1)  # noqa: E731

    skill_id = str(data.get("id") or default_id).strip()
    if not ID_RE.fullmatch(skill_id):
        raise SkillParseError(
            line_of("id"), f"skill id {skill_id!r} must be lowercase letters, digits, - or _"
        )
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        raise SkillParseError(line_of("description"), "'description' is missing or empty")
    name = data.get("name") or skill_id
    if not isinstance(name, str):
        raise SkillParseError(line_of("name"), "'name' must be text")
    model = data.get("model")
    if model is not None and model not in ("primary", "secondary"):
        raise SkillParseError(
            line_of("model"), f"'model' must be primary or secondary, not {model!r}"
        )

    applies = data.get("applies_to") or {}
    if not isinstance(applies, dict):
        raise SkillParseError(
            line_of("applies_to"), "'applies_to' must map 'agents'/'task_types' to lists"
        )
    unknown_applies = set(applies) - {"agents", "task_types"}
    if unknown_applies:
        raise SkillParseError(
            line_of("applies_to"), f"'applies_to' has unknown key(s) {sorted(unknown_applies)}"
        )
    agents = _as_list(data.get("agents", applies.get("agents")), "agents", line_of("agents"))
    task_types = _as_list(
        data.get("task_types", applies.get("task_types")), "task_types", line_of("task_types")
    )

    body = body.strip("\n")
    if not body.strip():
        raise SkillParseError(body_line, "the skill has no body after its header")
    return Skill(
        id=skill_id,
        name=name.strip(),
        description=description.strip(),
        body=body + "\n",
        model=model,
        agents=agents,
        task_types=task_types,
        form=form,
        extra={k: v for k, v in data.items() if k not in KNOWN_KEYS},
    )


def builtin_skills_dir() -> Path:
    return Path(str(resources.files("neuralgentics.orchestrator").joinpath("builtin_skills")))


@dataclass
class SkillSource:
    origin: str
    directory: Path


class SkillRegistry:
    """Skills from several directories, highest precedence first; reloaded when a file changes.

    Change detection stats the directories on each read (a handful of files: microseconds),
    which works the same in a CLI run, a test and a long-running service.
    """

    def __init__(
        self,
        sources: Iterable[SkillSource],
        *,
        known_agents: Iterable[str] | None = None,
        known_task_types: Iterable[str] | None = None,
    ) -> None:
        self.sources = list(sources)
        self.known_agents = set(known_agents) if known_agents is not None else None
        self.known_task_types = set(known_task_types) if known_task_types is not None else None
        self._lock = threading.Lock()
        self._signature: tuple | None = None
        self._skills: dict[str, Skill] = {}
        self._problems: list[SkillProblem] = []
        self.loads = 0

    def _candidates(self, source: SkillSource) -> list[Path]:
        if not source.directory.is_dir():
            return []
        return sorted(
            p
            for p in source.directory.iterdir()
            if p.suffix == ".md" and p.name.lower() not in IGNORED_FILES
        )

    def _current_signature(self) -> tuple:
        sig: list = []
        for source in self.sources:
            for p in self._candidates(source):
                try:
                    st = p.stat()
                    sig.append((str(p), st.st_mtime_ns, st.st_size))
                except OSError:
                    sig.append((str(p), None, None))
        return tuple(sig)

    def _refresh(self) -> None:
        with self._lock:
            sig = self._current_signature()
            if sig == self._signature:
                return
            self._skills, self._problems = self._load()
            self._signature = sig
            self.loads += 1

    def _read_one(self, path: Path, root: Path) -> str:
        resolved = path.resolve()
        if path.is_symlink() and not resolved.is_relative_to(root):
            raise SkillParseError(
                1, f"refused: symlink points outside the skills directory ({resolved})"
            )
        if not resolved.is_relative_to(root):
            raise SkillParseError(1, "refused: path is outside the skills directory")
        if not resolved.is_file():
            raise SkillParseError(1, "not a regular file")
        if resolved.stat().st_size > MAX_SKILL_BYTES:
            raise SkillParseError(1, f"file is larger than {MAX_SKILL_BYTES} bytes")
        try:
            return resolved.read_text("utf-8")
        except UnicodeDecodeError as exc:
            raise SkillParseError(1, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc

    def _check_names(self, skill: Skill) -> None:
        if self.known_agents is not None:
            for agent in skill.agents:
                if agent not in self.known_agents:
                    raise SkillParseError(
                        1,
                        f"'agents' names unknown agent '{agent}' (roster: {', '.join(sorted(self.known_agents))})",
                    )
            if not skill.agents and skill.id in self.known_agents:
                skill.agents = [skill.id]
        if self.known_task_types is not None:
            for task_type in skill.task_types:
                if task_type not in self.known_task_types:
                    raise SkillParseError(
                        1,
                        f"'task_types' names unknown task type '{task_type}' (known: {', '.join(sorted(self.known_task_types))})",
                    )

    def _load(self) -> tuple[dict[str, Skill], list[SkillProblem]]:
        skills: dict[str, Skill] = {}
        problems: list[SkillProblem] = []
        for source in self.sources:
            root = source.directory.resolve() if source.directory.is_dir() else source.directory
            seen_here: set[str] = set()
            for path in self._candidates(source):
                try:
                    skill = parse_skill(self._read_one(path, root), default_id=path.stem.lower())
                    self._check_names(skill)
                except SkillParseError as exc:
                    problems.append(SkillProblem(str(path), exc.line, exc.problem))
                    continue
                except OSError as exc:
                    problems.append(
                        SkillProblem(str(path), 1, f"cannot read: {exc.strerror or exc}")
                    )
                    continue
                if skill.id in seen_here:
                    problems.append(
                        SkillProblem(
                            str(path),
                            1,
                            f"skill id '{skill.id}' is defined twice in {source.directory}",
                        )
                    )
                    continue
                seen_here.add(skill.id)
                skill.path, skill.origin = str(path), source.origin
                if skill.id in skills:
                    skills[skill.id].shadows.append(str(path))
                else:
                    skills[skill.id] = skill
        return skills, problems

    def skills(self) -> list[Skill]:
        self._refresh()
        return sorted(self._skills.values(), key=lambda s: s.id)

    def problems(self) -> list[SkillProblem]:
        self._refresh()
        return list(self._problems)

    def get(self, skill_id: str) -> Skill:
        if not isinstance(skill_id, str) or not ID_RE.fullmatch(skill_id):
            raise InvalidInput(
                f"skill id {skill_id!r} is not valid: lowercase letters, digits, - or _ (no paths)",
                field="id",
            )
        self._refresh()
        skill = self._skills.get(skill_id)
        if skill is None:
            known = ", ".join(sorted(self._skills)) or "none"
            raise NotFound(f"no skill '{skill_id}' (loaded: {known})", field="id")
        return skill

    def applicable(self, agent: str | None, task_type: str | None) -> list[Skill]:
        return [s for s in self.skills() if s.applies(agent, task_type)]
