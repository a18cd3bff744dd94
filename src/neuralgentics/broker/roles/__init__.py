"""Roles as data: list, show, add, remove, grant and revoke, checked against the known servers.

Every edit is a pure function ``BrokerConfig -> BrokerConfig`` that validates what it adds and
raises :class:`ConfigError` naming the problem, so a refused edit changes nothing. The CLI
(``neuralgentics broker role …``, on the file) and the REST routes (``/roles``, on the running
broker, owner only, audited) call the same functions; :func:`edit_file` is the file side.

A rule is ``server/tool`` with shell globs (``time/*``, ``*/read_*``); ``server`` alone means
the whole server. What is checked (:func:`rule_problems`):

- a literal server name must be one of the config's brokered servers (an error; a
  ``first_class`` server is not brokered, so a rule on it never applies: an error too);
- a server glob that matches no server yet is fine (it is there for servers added later) and
  only reported as a note;
- when the server's tools are known (its ``tools/list`` is cached), the tool part must match
  one of them (an error); when they are not known yet, that is a note.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Literal

from neuralgentics.broker.access.patterns import PatternError, parse_pattern
from neuralgentics.broker.access.policy import Hints
from neuralgentics.broker.config import (
    NAME_PATTERN,
    BrokerConfig,
    ConfigError,
    config_from,
    load_config,
    save_config,
)

# server name -> its tool names, or None when its tools are not listed yet
KnownTools = Mapping[str, Sequence[str] | None]

Kind = Literal["allow", "deny"]
_GLOB = re.compile(r"[*?\[]")
# What a rule may contain: the name characters of servers and tools, globs, one or more '/'.
_RULE = re.compile(r"[A-Za-z0-9_.\-/:*?\[\]!]{1,200}")
# server:resource:URI rules: any visible ASCII, no spaces or control characters
_URI_RULE = re.compile(r"[!-~]{1,1000}")


class UnknownRole(ConfigError):
    """The role named does not exist (REST: 404)."""


class RoleExists(ConfigError):
    """``add`` of a role that already exists, without ``replace`` (REST: 409)."""


@dataclass(frozen=True)
class RuleProblem:
    """One finding about a rule: ``error`` refuses the edit (and fails ``broker check``),
    ``note`` is said and accepted."""

    role: str
    kind: Kind
    rule: str
    severity: Literal["error", "note"]
    message: str

    def __str__(self) -> str:
        return f"roles.{self.role}.{self.kind}: {self.rule!r}: {self.message}"


@dataclass(frozen=True)
class RoleView:
    """A role as ``role show`` / ``GET /roles/{name}`` report it."""

    name: str
    allow: list[str]
    deny: list[str]
    default: bool
    tokens: list[str]
    # server -> tool names this role may call (only servers whose tools are known);
    # servers it may see whose tools are not listed yet map to None
    may_use: dict[str, list[str] | None] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    read_only: bool = False
    # read-only roles: server -> tool -> how it was judged ("read-only by annotations
    # (readOnlyHint: true)", "writes by name (…)"), for the servers whose tools are known
    judged: dict[str, dict[str, str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "allow": self.allow,
            "deny": self.deny,
            "read_only": self.read_only,
            "default": self.default,
            "tokens": self.tokens,
            "may_use": self.may_use,
            "judged": self.judged,
            "problems": self.problems,
        }

    def read_only_summary(self) -> list[str]:
        """One line per server: how its tools were judged (annotations or names)."""
        out = []
        for server, tools in self.judged.items():
            by = {"annotations": 0, "name": 0}
            writes = []
            for tool, how in tools.items():
                by["annotations" if " by annotations " in how else "name"] += 1
                if how.startswith("writes"):
                    writes.append(tool)
            basis = " and ".join(f"{n} by {k}" for k, n in by.items() if n)
            out.append(
                f"{server}: {len(tools)} tools judged ({basis}); writing, denied: "
                f"{', '.join(writes) or 'none'}"
            )
        return out


def is_glob(text: str) -> bool:
    return bool(_GLOB.search(text))


def split_rule(rule: str) -> tuple[str, str]:
    """The server glob and the tool glob of a rule; ``*`` for a rule about a whole server or
    about its resources or prompts (``fs:resource:URI``), whose names are not checked here."""
    try:
        pattern = parse_pattern(rule)
    except PatternError:
        server, sep, tool = rule.partition("/")
        return server, (tool if sep else "*")
    return pattern.server, (pattern.name if pattern.kinds == {"tool"} else "*")


def _syntax_error(rule: object) -> str | None:
    """Why ``rule`` is not a rule, or None."""
    if not isinstance(rule, str) or not rule.strip():
        return "a rule must be a non-empty string"
    try:
        pattern = parse_pattern(rule)
    except PatternError as exc:
        return str(exc)
    # a resource URI may hold more than a tool name can; no rule holds spaces or controls
    plain = pattern.kinds != {"resource"}
    if (plain and not _RULE.fullmatch(rule)) or not _URI_RULE.fullmatch(rule):
        return (
            "not a rule: use server/tool with letters, digits, '_', '-', '.', ':' and the globs "
            "* ? [ ] (e.g. 'time/*', 'git/git_status', '*/read_*'), a server alone, "
            "server:prompt:NAME or server:resource:URI"
        )
    server, tool = split_rule(rule)
    if not server or not tool:
        return "a rule needs a server before '/' and a tool after it"
    return None


def _check_syntax(role: str, kind: Kind, rule: object) -> str:
    error = _syntax_error(rule)
    if error is not None:
        raise ConfigError(f"roles.{role}.{kind}: {rule!r}: {error}")
    assert isinstance(rule, str)
    return rule


def rule_problems(
    config: BrokerConfig, role: str, kind: Kind, rule: str, known: KnownTools | None = None
) -> list[RuleProblem]:
    """What is wrong (or worth saying) about one rule against the config's servers."""
    known = known or {}
    server, tool = split_rule(rule)
    brokered = sorted(config.brokered())

    def problem(severity: Literal["error", "note"], message: str) -> RuleProblem:
        return RuleProblem(role, kind, rule, severity, message)

    if not is_glob(server):
        entry = config.servers.get(server)
        if entry is None:
            return [
                problem(
                    "error",
                    f"no server named {server!r} in the config "
                    f"(servers: {', '.join(brokered) or 'none'})",
                )
            ]
        if entry.first_class:
            return [
                problem(
                    "error",
                    f"server {server!r} is first_class (OpenCode starts it, not the broker), "
                    "so no role rule applies to it",
                )
            ]
        servers = [server]
    else:
        servers = [s for s in brokered if fnmatchcase(s, server)]
        if not servers:
            return [problem("note", "matches no server yet (it will match servers added later)")]
    if tool == "*":
        return []
    unlisted = [s for s in servers if known.get(s) is None]
    listed = {s: list(known[s] or ()) for s in servers if known.get(s) is not None}
    if listed and not any(fnmatchcase(t, tool) for names in listed.values() for t in names):
        if len(listed) == 1:
            (name, names), *_ = listed.items()
            close = ", ".join(names[:12]) + (" …" if len(names) > 12 else "")
            message = (
                f"server {name!r} has no tool matching {tool!r} (its tools: {close or 'none'})"
            )
        else:
            message = f"no tool matching {tool!r} on {', '.join(sorted(listed))}"
        if not unlisted:
            return [problem("error", message)]
        return [problem("note", message + f"; not checked on {', '.join(unlisted)}")]
    if unlisted and not listed:
        return [
            problem(
                "note",
                f"tools of {', '.join(unlisted)} are not listed yet, so {tool!r} was not checked "
                "(`neuralgentics broker refresh` lists them)",
            )
        ]
    return []


def rule_line(path: Path, problem: RuleProblem) -> int | None:
    """The line of the rule a problem is about, in the YAML file it was loaded from."""
    import yaml

    from neuralgentics.broker.config import _line_of

    try:
        text = path.read_text(encoding="utf-8")
        rules = yaml.safe_load(text)["roles"][problem.role][problem.kind]
        return _line_of(
            yaml.compose(text), ("roles", problem.role, problem.kind, rules.index(problem.rule))
        )
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError):
        return None


def check_roles(config: BrokerConfig, known: KnownTools | None = None) -> list[RuleProblem]:
    """Every rule of every role against the config's servers (``broker check``)."""
    out: list[RuleProblem] = []
    for name, rc in config.roles.items():
        kinds: tuple[tuple[Kind, list[str]], ...] = (("allow", rc.allow), ("deny", rc.deny))
        for kind, rules in kinds:
            for rule in rules:
                error = _syntax_error(rule)
                if error is not None:
                    out.append(RuleProblem(name, kind, rule, "error", error))
                else:
                    out.extend(rule_problems(config, name, kind, rule, known))
    return out


def _validated(
    config: BrokerConfig, role: str, kind: Kind, rules: Iterable[object], known: KnownTools | None
) -> tuple[list[str], list[RuleProblem]]:
    """The rules, deduplicated in order, after syntax and server/tool checks; errors raise."""
    out: list[str] = []
    notes: list[RuleProblem] = []
    for raw in rules:
        rule = _check_syntax(role, kind, raw)
        problems = rule_problems(config, role, kind, rule, known)
        errors = [p for p in problems if p.severity == "error"]
        if errors:
            raise ConfigError("; ".join(map(str, errors)))
        notes += problems
        if rule not in out:
            out.append(rule)
    return out, notes


def _role_name(name: object) -> str:
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise ConfigError(
            f"roles: name {name!r} must be 1-64 letters, digits, '_', '-' or '.', "
            "starting with a letter or digit"
        )
    return name


def _require(config: BrokerConfig, name: str) -> None:
    if name not in config.roles:
        raise UnknownRole(
            f"roles.{name}: no role named {name!r} (roles: {', '.join(sorted(config.roles)) or 'none'})"
        )


@dataclass(frozen=True)
class Edit:
    """An edit's result: the new config and the notes about what it added."""

    config: BrokerConfig
    notes: list[RuleProblem]
    # the role's rules before and after, for the audit record
    before: dict[str, list[str]] | None
    after: dict[str, list[str]] | None


def _rules(config: BrokerConfig, name: str) -> dict[str, list[str]] | None:
    rc = config.roles.get(name)
    return None if rc is None else {"allow": list(rc.allow), "deny": list(rc.deny)}


def _with_role(
    config: BrokerConfig,
    name: str,
    allow: list[str],
    deny: list[str],
    read_only: bool | None = None,
) -> BrokerConfig:
    """``config`` with role ``name``'s rules replaced (``read_only``: None keeps the role's)."""
    data = config.model_dump(mode="json")
    if read_only is None:
        read_only = bool(data["roles"].get(name, {}).get("read_only"))
    data["roles"][name] = {"allow": allow, "deny": deny}
    if read_only:
        data["roles"][name]["read_only"] = True
    return config_from(data, "roles")


def add_role(
    config: BrokerConfig,
    name: str,
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
    *,
    known: KnownTools | None = None,
    replace: bool = False,
    default: bool = False,
    read_only: bool = False,
) -> Edit:
    """A new role with these rules (``replace``: overwrite an existing one). ``default``: also
    make it ``default_role`` (the role of callers that name none). ``read_only``: of what it
    is allowed, only tools that change nothing (`access.readonly`)."""
    name = _role_name(name)
    if name in config.roles and not replace:
        raise RoleExists(
            f"roles.{name}: a role named {name!r} already exists (grant/revoke edit it; "
            "replace overwrites it)"
        )
    allow_rules, notes = _validated(config, name, "allow", allow, known)
    deny_rules, deny_notes = _validated(config, name, "deny", deny, known)
    new = _with_role(config, name, allow_rules, deny_rules, read_only)
    if default:
        new = config_from({**new.model_dump(mode="json"), "default_role": name}, "roles")
    return Edit(new, notes + deny_notes, _rules(config, name), _rules(new, name))


def remove_role(config: BrokerConfig, name: str) -> Edit:
    """Drop a role. Refused while a token is bound to it or it is the default role."""
    _require(config, name)
    bound = [t.label for t in config.tokens if t.role == name]
    if bound:
        raise ConfigError(
            f"roles.{name}: token(s) {', '.join(bound)} are bound to it; "
            "remove them first (`neuralgentics broker token remove LABEL`)"
        )
    if config.default_role == name:
        raise ConfigError(
            f"roles.{name}: it is the default_role; make another role the default first "
            "(`neuralgentics broker role default OTHER`) or unset it (`role default --unset`)"
        )
    data = config.model_dump(mode="json")
    del data["roles"][name]
    return Edit(config_from(data, "roles"), [], _rules(config, name), None)


def set_default(config: BrokerConfig, name: str | None) -> Edit:
    """Make ``name`` the role of callers that name none; None: such callers are denied."""
    if name is not None:
        _require(config, name)
    new = config_from({**config.model_dump(mode="json"), "default_role": name}, "roles")
    rules = _rules(config, name) if name is not None else None
    return Edit(new, [], rules, rules)


def grant(
    config: BrokerConfig,
    name: str,
    rules: Sequence[str],
    *,
    deny: bool = False,
    known: KnownTools | None = None,
) -> Edit:
    """Add rules to a role's allow list (``deny``: to its deny list). Rules already there are
    kept once; an edit that adds nothing is not an error (granting is idempotent)."""
    _require(config, name)
    if not rules:
        raise ConfigError(f"roles.{name}: give at least one rule (e.g. 'time/*')")
    kind: Kind = "deny" if deny else "allow"
    added, notes = _validated(config, name, kind, rules, known)
    rc = config.roles[name]
    current = list(rc.deny if deny else rc.allow)
    merged = current + [r for r in added if r not in current]
    allow, deny_list = (list(rc.allow), merged) if deny else (merged, list(rc.deny))
    new = _with_role(config, name, allow, deny_list)
    return Edit(new, notes, _rules(config, name), _rules(new, name))


def revoke(config: BrokerConfig, name: str, rules: Sequence[str], *, deny: bool = False) -> Edit:
    """Remove rules from a role's allow list (``deny``: from its deny list). A rule that is not
    there is an error naming what is (and, for a tool covered by a broader rule, how to deny
    it instead)."""
    _require(config, name)
    if not rules:
        raise ConfigError(f"roles.{name}: give at least one rule to revoke")
    kind: Kind = "deny" if deny else "allow"
    rc = config.roles[name]
    current = list(rc.deny if deny else rc.allow)
    for rule in rules:
        if rule in current:
            continue
        message = (
            f"roles.{name}.{kind} has no rule {rule!r} "
            f"(it has: {', '.join(repr(r) for r in current) or 'none'})"
        )
        server, tool = split_rule(str(rule))
        covering = [r for r in current if _covers(r, server, tool)]
        if not deny and covering:
            message += (
                f"; {', '.join(repr(r) for r in covering)} allows it: to keep the rest, deny it "
                f"with `neuralgentics broker role grant {name} --deny {rule}`"
            )
        raise ConfigError(message)
    kept = [r for r in current if r not in rules]
    allow, deny_list = (list(rc.allow), kept) if deny else (kept, list(rc.deny))
    new = _with_role(config, name, allow, deny_list)
    return Edit(new, [], _rules(config, name), _rules(new, name))


def _covers(rule: str, server: str, tool: str) -> bool:
    rs, rt = split_rule(rule)
    return fnmatchcase(server, rs) and fnmatchcase(tool, rt)


def role_view(
    config: BrokerConfig,
    name: str,
    known: KnownTools | None = None,
    hints: Hints | None = None,
) -> RoleView:
    """One role: its rules, tokens, whether it is the default, and what it may use.
    ``hints``: the listed tools' annotations (``tool_hints``), which read-only roles use."""
    from neuralgentics.broker.access import AccessPolicy

    _require(config, name)
    known = known or {}
    rc = config.roles[name]
    policy = AccessPolicy(config.roles, hints)
    judged: dict[str, dict[str, str]] = {}
    if rc.read_only:
        for server in sorted(config.brokered()):
            if policy.may_see_server(name, server) and known.get(server) is not None:
                judged[server] = {t: str(policy.writes(server, t)) for t in known[server] or ()}
    may_use: dict[str, list[str] | None] = {}
    for server in sorted(config.brokered()):
        if not policy.may_see_server(name, server):
            continue
        tools = known.get(server)
        if tools is None:
            may_use[server] = None
            continue
        allowed = [t for t in tools if policy.may_call(name, server, t)]
        if allowed:
            may_use[server] = allowed
    problems = [str(p) for p in check_roles(config, known) if p.role == name]
    return RoleView(
        name=name,
        allow=list(rc.allow),
        deny=list(rc.deny),
        default=config.default_role == name,
        tokens=[t.label for t in config.tokens if t.role == name],
        may_use=may_use,
        problems=problems,
        read_only=rc.read_only,
        judged=judged,
    )


def list_roles(
    config: BrokerConfig, known: KnownTools | None = None, hints: Hints | None = None
) -> list[RoleView]:
    return [role_view(config, name, known, hints) for name in sorted(config.roles)]


def tool_hints_from_cache(config: BrokerConfig, cache_dir: Path) -> Hints:
    """``hints(server, tool)`` from the on-disk tool-list cache: the annotations the servers
    listed (never a start)."""
    from neuralgentics.broker.catalog.cache import ToolListCache

    cache = ToolListCache(cache_dir)
    found: dict[tuple[str, str], Any] = {}  # (server, tool) -> its ToolAnnotations or None
    for name, cfg in config.brokered().items():
        for t in cache.load(name, cfg) or ():
            found[(name, t.name)] = t.annotations
    return lambda server, tool: found.get((server, tool))


def known_tools_from_cache(config: BrokerConfig, cache_dir: Path) -> dict[str, list[str] | None]:
    """Tool names per brokered server from the on-disk tool-list cache (never a start)."""
    from neuralgentics.broker.catalog.cache import ToolListCache

    cache = ToolListCache(cache_dir)
    out: dict[str, list[str] | None] = {}
    for name, cfg in config.brokered().items():
        tools = cache.load(name, cfg)
        out[name] = [t.name for t in tools] if tools is not None else None
    return out


def edit_file(
    path: Path | str,
    edit: Callable[[BrokerConfig], Edit],
) -> Edit:
    """Load the config file (a missing default file is empty), apply ``edit``, write it back
    atomically. A refused edit raises before anything is written."""
    p = Path(path)
    result = edit(load_config(p, missing_ok=True))
    save_config(result.config, p)
    return result


def rules_naming_server(config: BrokerConfig, server: str) -> list[str]:
    """``roles.R.allow: 'server/…'`` for every rule that names ``server`` literally (what is
    left dangling when the server is removed)."""
    out = []
    for name, rc in config.roles.items():
        for kind, rules in (("allow", rc.allow), ("deny", rc.deny)):
            out += [f"roles.{name}.{kind}: {r!r}" for r in rules if split_rule(r)[0] == server]
    return out
