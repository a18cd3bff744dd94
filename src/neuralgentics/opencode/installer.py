"""`neuralgentics opencode install|uninstall`: the plugin, the agent roster and opencode.json.

Install merges: it adds what is missing and keeps every value and file the user already
has (reporting each one it kept). It writes a manifest of exactly what it added and a backup
of opencode.json, so uninstall can put the tree back byte for byte when nothing was changed
since, and otherwise removes only what still holds what install wrote.

The plugin lives outside the project (under Neuralgentics's data dir, one folder per install)
and opencode.json names it by ``file://`` URL with its options: where memini-core and the
broker are and where the token file is (never the token). OpenCode's plugin-install lock is
pre-created in every config dir it will read (`locks`), so a start never waits on npm. The
broker gets a role for every agent a session can run as (`broker_roles`).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from neuralgentics import __version__, errors, project_credentials
from neuralgentics.config import Settings
from neuralgentics.credentials import CredentialError, ensure_token
from neuralgentics.filemodes import atomic_write, home_relative, user_file_mode
from neuralgentics.opencode import broker_roles, locks, project_key, tui
from neuralgentics.opencode.agents import (
    agent_files,
    is_read_only,
    load_roster,
    primary_agents,
    task_permission,
)
from neuralgentics.opencode.jsonedit import (
    EditLog,
    JsonFileError,
    append_item,
    dump_json,
    get_path,
    is_absent,
    merge_leaf,
    read_json_file,
    undo,
)
from neuralgentics.opencode.models import ModelTierError, models_file, resolve_tiers
from neuralgentics.orchestrator import RosterError
from neuralgentics.text import plural

BrokerMode = Literal["stdio", "http"]
MCP_NAME = "neuralgentics"
PLUGIN_FILE = "neuralgentics.ts"
MANIFEST_FILE = "neuralgentics-install.json"
# the plugin's project credential, next to the installed plugin (outside the repository)
CREDENTIAL_FILE = "credential"
BACKUP_DIR = "neuralgentics-backup"


class InstallError(errors.InvalidInput):
    """Install/uninstall refused; nothing was changed. The message says what to fix."""


@dataclass(frozen=True)
class Target:
    """Where OpenCode reads its configuration for one project, or for every project."""

    config_file: Path  # opencode.json
    home: Path  # .opencode/ (project) or ~/.config/opencode/ (global)
    project_dir: Path | None

    @property
    def agent_dir(self) -> Path:
        return self.home / "agent"

    @property
    def manifest(self) -> Path:
        return self.home / MANIFEST_FILE

    @property
    def backup_dir(self) -> Path:
        return self.home / BACKUP_DIR


def global_config_home(s: Settings) -> Path:
    return (s.xdg_config_home or Path.home() / ".config") / "opencode"


def resolve_target(s: Settings, project: Path | None, global_: bool) -> Target:
    if project is not None and global_:
        raise InstallError("choose one of --project DIR and --global, not both")
    if global_:
        home = global_config_home(s)
        return Target(config_file=home / "opencode.json", home=home, project_dir=None)
    root = (project or Path.cwd()).expanduser()
    if not root.is_dir():
        raise InstallError(f"--project {root}: no such directory")
    root = root.resolve()
    config = root / "opencode.json"
    if not config.exists() and (root / "opencode.jsonc").exists():
        config = root / "opencode.jsonc"
    return Target(config_file=config, home=root / ".opencode", project_dir=root)


def plugin_source() -> str:
    return (
        resources.files("neuralgentics.opencode").joinpath("plugin", PLUGIN_FILE).read_text("utf-8")
    )


def plugin_files() -> list[tuple[str, str]]:
    """(path relative to the plugin's folder, text): the entry module and its `ng/` modules."""
    base = resources.files("neuralgentics.opencode").joinpath("plugin")
    files = [(PLUGIN_FILE, plugin_source())]
    modules = base.joinpath("ng")
    for mod in sorted(modules.iterdir(), key=lambda m: m.name):
        if mod.name.endswith(".ts"):
            files.append((f"ng/{mod.name}", mod.read_text("utf-8")))
    return files


def plugin_home(s: Settings, target: Target) -> Path:
    """Where this install's copy of the plugin lives: outside the project (nothing large, and no
    `.opencode/plugin/` for OpenCode to npm-install into), one folder per install so uninstalling
    one project never pulls the plugin from under another."""
    if target.project_dir is None:
        key = "global"
    else:
        digest = hashlib.sha256(str(target.project_dir).encode()).hexdigest()[:10]
        key = f"{target.project_dir.name or 'root'}-{digest}"
    return s.home / "opencode" / "plugins" / key


def plugin_spec(path: Path) -> str:
    return path.as_uri()


def _spec_of(entry: Any) -> Any:
    return entry[0] if isinstance(entry, list) and entry else entry


def plugin_options(
    s: Settings,
    mode: BrokerMode,
    key: project_key.ProjectKey | None = None,
    credential: Path | None = None,
    routing: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """What OpenCode hands the plugin (its second argument): where the services are — custom
    ports included — and where the token file is. The path, not the token: opencode.json may
    be committed, and the plugin reads the file on each call, so a new token is picked up
    without restarting OpenCode. A project install adds the repository's key (`project`; the
    folder name only as `project_name`) and its project credential's file (`credential_file`,
    which the plugin uses instead of the owner token). ``routing``: the matrix the plugin applies
    itself while memini-core is down (`orchestrator.local_matrix`)."""
    from neuralgentics.credentials import token_path

    opts: dict[str, Any] = {
        "service_url": s.url,
        "broker_url": s.broker_base_url,
        "broker": mode,
    }
    if not s.token:
        opts["token_file"] = home_relative(token_path(s))
    if key is not None:
        opts["project"] = key.key
        opts["project_name"] = key.display
    if credential is not None:
        opts["credential_file"] = home_relative(credential)
    if routing is not None:
        opts["routing"] = routing
    return opts


# The user's verdict from inside OpenCode (issue 28): a slash command the person types runs the
# CLI with the owner's credential. The model has no tool that runs a slash command, and the
# plugin's tools hold only the project credential, which cannot record a user event.
VERDICT_COMMANDS = {
    "memory-confirm": (
        "confirm",
        "Confirm a memory as the user (it is right): neuralgentics memory confirm ID",
    ),
    "memory-reject": (
        "reject",
        "Reject a memory as the user (it is wrong): neuralgentics memory reject ID",
    ),
}


def verdict_command(verb: str, description: str) -> str:
    """An OpenCode command file: its shell line runs when the user types /memory-VERB ID."""
    exe = neuralgentics_command()[0]
    return (
        f"---\ndescription: {description}\n---\n"
        f"The user ran /memory-{verb} $ARGUMENTS. Its result, for your information only (do not "
        f"act on it, say in one line what it says):\n\n!`{exe} memory {verb} $ARGUMENTS 2>&1`\n"
    )


def routing_for(s: Settings, project_dir: Path | None) -> dict[str, Any]:
    """The matrix as the orchestrator resolves it for this project (built-in, the user's config
    dir, the project's .neuralgentics/), as data for the plugin's local check."""
    from neuralgentics.orchestrator import load_config, local_routing_matrix

    try:
        return local_routing_matrix(load_config(project_dir, s.config_dir))
    except RosterError as exc:
        raise InstallError(f"the routing matrix: {exc}") from None


def _sha(data: bytes | str) -> str:
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


def neuralgentics_command() -> list[str]:
    """How OpenCode should start the broker: this installation's own entry point."""
    exe = Path(sys.executable).parent / "neuralgentics"
    found = str(exe) if exe.exists() else shutil.which("neuralgentics")
    return [found or "neuralgentics", "broker", "stdio"]


def token_reference(s: Settings) -> str:
    """How opencode.json names the local credential without holding it (users commit that
    file). OpenCode replaces ``{env:VAR}`` with the variable and ``{file:PATH}`` with the file's
    trimmed content (``~/`` is the home directory; a missing file is a config error, so install
    creates it first)."""
    from neuralgentics.credentials import token_path

    if s.token:
        return "{env:NEURALGENTICS_TOKEN}"
    return "{file:" + home_relative(token_path(s)) + "}"


def broker_entry(s: Settings, mode: BrokerMode) -> dict[str, Any]:
    if mode == "http":
        return {
            "type": "remote",
            "url": f"{s.broker_base_url}/mcp",
            "enabled": True,
            "headers": {"Authorization": "Bearer " + token_reference(s)},
        }
    entry: dict[str, Any] = {"type": "local", "command": neuralgentics_command(), "enabled": True}
    # A non-default home/config dir must reach the broker OpenCode spawns, or it reads another config.
    # Only what was set (the environment, or the caller): a default is the broker's default too.
    env = {
        f"NEURALGENTICS_{k.upper()}": str(getattr(s, k))
        for k in ("home", "config_dir")
        if k in s.model_fields_set
    }
    if env:
        entry["environment"] = env
    return entry


def first_class_entries(s: Settings) -> dict[str, dict[str, Any]]:
    """Servers the broker config marks `first_class`: written into opencode.json directly."""
    from neuralgentics.broker import default_config_path, load_config

    out: dict[str, dict[str, Any]] = {}
    for name, srv in load_config(default_config_path(s), missing_ok=True).servers.items():
        if not srv.first_class:
            continue
        if name == MCP_NAME:
            raise InstallError(
                f"broker config: first-class server {name!r} clashes with the broker's own entry"
            )
        if srv.transport == "stdio":
            entry: dict[str, Any] = {
                "type": "local",
                "command": [srv.command, *srv.args],
                "enabled": True,
            }
            if srv.env:
                entry["environment"] = dict(srv.env)
        else:
            entry = {"type": "remote", "url": srv.url, "enabled": True}
            if srv.headers:
                entry["headers"] = dict(srv.headers)
        out[name] = entry
    return out


@dataclass
class Report:
    target: Target
    written: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"{w}" for w in self.written] + [f"kept yours: {k}" for k in self.kept]
        out += [f"removed: {r}" for r in self.removed] + list(self.notes)
        return out


def _desired_config(
    s: Settings, doc: dict[str, Any], mode: BrokerMode, roster: Any
) -> list[tuple[tuple[str, ...], Any]]:
    leaves: list[tuple[tuple[str, ...], Any]] = [(("mcp", MCP_NAME), broker_entry(s, mode))]
    for name, entry in first_class_entries(s).items():
        leaves.append((("mcp", name), entry))
    rules = task_permission(roster)
    for agent in primary_agents(roster):
        existing = get_path(doc, ("agent", agent, "permission", "task"))
        for pattern, action in rules.items():
            # OpenCode applies the last matching rule: a catch-all appended after the user's own
            # rules would override them, so it is added only where the user has none.
            if pattern == "*" and not is_absent(existing):
                continue
            leaves.append((("agent", agent, "permission", "task", pattern), action))
    return leaves


def _write_atomic(path: Path, data: bytes) -> None:
    # a unique temp name (two installs at once each rename a whole file) and fsync (a crash
    # leaves the old opencode.json, never an empty one); the user's file keeps its mode
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, data, mode=user_file_mode(path))


def _settings_summary(paths: list[list[str]]) -> str:
    """``agent.orchestrator.permission.task (11), mcp.neuralgentics, plugin``: every setting
    counted, those under one parent grouped, so the list adds up to the number before it."""
    groups: dict[str, int] = {}
    for path in paths:
        key = ".".join(path[:-1] if len(path) > 2 else path)
        groups[key] = groups.get(key, 0) + 1
    return ", ".join(f"{k} ({n})" if n > 1 else k for k, n in sorted(groups.items()))


def _created_dirs(paths: list[Path]) -> list[str]:
    """Directories among ``paths`` that do not exist yet (recorded so uninstall removes them)."""
    return [str(p) for p in paths if not p.exists()]


def install(
    s: Settings,
    project: Path | None = None,
    global_: bool = False,
    broker: BrokerMode = "stdio",
    primary_model: str | None = None,
    secondary_model: str | None = None,
) -> Report:
    if broker not in ("stdio", "http"):
        raise InstallError(f"--broker {broker!r}: choose stdio or http")
    try:
        tiers = resolve_tiers(primary_model, secondary_model, models_file(s.config_dir))
    except ModelTierError as exc:
        raise InstallError(str(exc)) from None
    target = resolve_target(s, project, global_)
    if target.manifest.exists():
        # Re-install (an upgrade or a change of broker mode): reverse the old one first.
        uninstall(s, project, global_)
    # Everything is computed and validated before the first write, so a refusal changes nothing.
    try:
        original_bytes = target.config_file.read_bytes() if target.config_file.exists() else None
        doc = read_json_file(target.config_file)
    except JsonFileError as exc:
        raise InstallError(str(exc)) from None
    try:
        roster = load_roster(target.project_dir)
    except RosterError as exc:
        raise InstallError(f"the routing matrix: {exc}") from None
    # A project is its repository (project_key.py); its plugin holds a credential bound to it.
    key = project_key.project_key(target.project_dir) if target.project_dir else None
    try:
        tui_plan = tui.plan(
            s, target.home, broker, key.key if key else None, key.display if key else None
        )
    except tui.TuiConfigError as exc:
        raise InstallError(str(exc)) from None
    try:
        # The credential the plugin and the remote MCP entry hand to the services: created
        # now (0600) if need be, so the {file:…} reference in opencode.json resolves.
        ensure_token(s)
    except CredentialError as exc:
        raise InstallError(str(exc)) from None
    from neuralgentics.broker import ConfigError, default_config_path

    plugin_dir = plugin_home(s, target)
    plugin = plugin_dir / PLUGIN_FILE
    credential = plugin_dir / CREDENTIAL_FILE if key is not None else None
    log = EditLog()
    for leaf, value in _desired_config(s, doc, broker, roster):
        merge_leaf(doc, leaf, value, log)
    routing = routing_for(s, target.project_dir)
    entry = [plugin_spec(plugin), plugin_options(s, broker, key, credential, routing)]
    append_item(doc, ("plugin",), entry, log, same=lambda e: _spec_of(e) == entry[0])
    files: list[tuple[Path, str]] = [(plugin_dir / rel, text) for rel, text in plugin_files()]
    files += [(target.agent_dir / f"{a.name}.md", a.text) for a in agent_files(roster, tiers)]
    brand = tui.brand_file(target.home)
    files += tui.brand_files(target.home)
    command_dir = target.home / "command"
    files += [
        (command_dir / f"{name}.md", verdict_command(verb, text))
        for name, (verb, text) in VERDICT_COMMANDS.items()
    ]

    report = Report(target=target)
    made_dirs = _created_dirs(
        [
            target.home,
            plugin_dir / "ng",
            plugin_dir,
            plugin_dir.parent,
            plugin_dir.parent.parent,
            target.agent_dir,
            command_dir,
            brand.parent / "ng",
            brand.parent,
            target.config_file.parent,
        ]
    )
    try:
        # Every agent a session can run as gets a broker role (existing roles are left alone):
        # without one the broker denies it every tool.
        roles_added = broker_roles.ensure_default_roles(
            default_config_path(s),
            broker_roles.agents_needing_roles({n: is_read_only(n) for n in roster.agents}),
        )
    except ConfigError as exc:
        raise InstallError(f"{exc}; fix broker.yaml (neuralgentics broker check)") from None
    if roles_added:
        report.written.append(
            f"added broker roles to {default_config_path(s)}: {', '.join(roles_added)} "
            "(every brokered server; read-only agents without writing tools)"
        )
    if key is not None and credential is not None:
        try:
            project_credentials.issue(
                s, label=plugin_dir.name, project=key.key, token_file=credential
            )
        except CredentialError as exc:
            raise InstallError(str(exc)) from None
        report.written.append(
            f"project {key.key} ({key.source}; shown as {key.display}): the plugin's credential "
            f"{credential} (0600) may write only there and, unconfirmed, in the user's scope"
        )
        report.notes += migrate_folder_project(s, key, plugin_dir.name)
    written_files: list[dict[str, str]] = []
    for path, text in files:
        if path.exists():
            if path.read_text("utf-8") != text:
                report.kept.append(f"{path} (exists; not replaced)")
            continue
        _write_atomic(path, text.encode("utf-8"))
        written_files.append({"path": str(path), "sha256": _sha(text)})
        report.written.append(f"wrote {path}")

    backup: str | None = None
    new_bytes = dump_json(doc).encode("utf-8")
    if log.changed:
        if original_bytes is not None:
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
            bpath = target.backup_dir / f"{target.config_file.name}.{stamp}"
            _write_atomic(bpath, original_bytes)
            backup = str(bpath)
            report.written.append(f"backed up {target.config_file} to {bpath}")
        _write_atomic(target.config_file, new_bytes)
        report.written.append(
            f"merged {plural(len(log.set) + len(log.appended), 'setting')} into {target.config_file}: "
            + _settings_summary([e["path"] for e in log.set + log.appended])
        )
    for k in log.kept:
        report.kept.append(
            f"{target.config_file}: {'.'.join(k['path'])} = {json.dumps(k['yours'])}"
        )
    tui_section, tui_lines = tui.apply(tui_plan, target.backup_dir)
    (report.written if tui_section else report.kept).extend(
        line.removeprefix("kept yours: ") for line in tui_lines
    )
    lock_entries, lock_lines = locks.acquire(
        s,
        locks.config_dirs(global_config_home(s), target.project_dir),
        str(target.manifest),
        frozenset(Path(d) for d in made_dirs),
    )
    report.written += lock_lines

    manifest = {
        "version": 1,
        "neuralgentics_version": __version__,
        "installed_at": datetime.now(UTC).isoformat(),
        "broker": broker,
        "config_file": str(target.config_file),
        "config_original_existed": original_bytes is not None,
        "config_written_sha256": _sha(new_bytes) if log.changed else None,
        # What install wrote, parsed: uninstall tells OpenCode's own additions from user edits.
        "config_written": doc if log.changed else None,
        "backup": backup,
        "edits": log.to_json(),
        "files": written_files,
        "created_dirs": made_dirs,
        "tui": tui_section,
        "models": tiers.to_json(),
        "locks": lock_entries,
        "roles_added": roles_added,
        "project_key": key.key if key else None,
        "credential": plugin_dir.name if key else None,
    }
    _write_atomic(target.manifest, dump_json(manifest).encode("utf-8"))
    report.notes += _list_servers(s)
    for tier in ("primary", "secondary"):
        model = tiers.model_for(tier)
        report.notes.append(
            f"{tier} agents run on {model}"
            if model
            else f"{tier} agents run on OpenCode's default model"
        )
    return report


def _list_servers(s: Settings) -> list[str]:
    """List the servers the broker has never listed, so the first session's instructions name
    their tools (a first ``broker stdio`` start does not wait for them). Best effort: a server
    that cannot start now is listed by the first session that uses it."""
    from neuralgentics.broker import ConfigError, list_unlisted

    try:
        listed = list_unlisted(s)
    except ConfigError as exc:
        return [f"broker servers not listed: {exc} (neuralgentics broker check)"]
    return [
        f"listed broker server {x.name}: {plural(x.tools or 0, 'tool')}"
        if x.error is None
        else f"could not list broker server {x.name} ({x.error}); its first session lists it"
        for x in listed
    ]


# Keys OpenCode writes into opencode.json by itself on its first start ("$schema"): their
# presence is not an edit of the user's, so it must not stop uninstall from restoring the file.
OPENCODE_OWN_KEYS = ("$schema",)


def _only_opencode_added(current: bytes, manifest: dict[str, Any]) -> bool:
    """True when opencode.json differs from what install wrote only by keys OpenCode adds."""
    written = manifest.get("config_written")
    if not isinstance(written, dict):
        return False
    try:
        doc = json.loads(current)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False  # JSONC or hand-edited: the careful path below handles it
    if not isinstance(doc, dict):
        return False
    for key in OPENCODE_OWN_KEYS:
        if key not in written:
            doc.pop(key, None)
    return bool(doc == written)


def migrate_folder_project(s: Settings, key: project_key.ProjectKey, label: str) -> list[str]:
    """Move the memories an older plugin stored under the folder name (its default project) to
    the repository's key, once: only when no other install on this machine has a folder of that
    name (they would be two repositories: never merged) and the key holds no memory yet. Says
    what it moved or why it did not."""
    from neuralgentics.db.errors import StoreUnavailable
    from neuralgentics.memini import open_store

    folder = key.display
    others = [
        e
        for e in project_credentials.load(s)
        if e.label != label and e.label.startswith(folder + "-")
    ]
    if not s.database_url and not s.sqlite_path.exists():
        return []  # no memory stored on this machine yet: nothing to move
    try:
        store = open_store(s)
    except StoreUnavailable as exc:
        return [f"memories under the folder name {folder!r} not checked: {exc.message}"]
    try:
        moved = store.move_project(folder, key.key, only_if_empty=True, dry_run=bool(others))
    finally:
        store.close()
    if moved.found == 0:
        return []
    if others:
        return [
            f"left {moved.found} memories under the folder name {folder!r}: another install "
            f"({', '.join(e.token_file for e in others)}) has a folder of that name, so they may "
            "be another repository's (never merged); move them with `neuralgentics memory` by hand"
        ]
    if moved.refused:
        return [
            f"left {moved.found} memories under the folder name {folder!r}: project {key.key} "
            "has memories already (never merged)"
        ]
    return [
        f"moved {moved.moved} memories from the folder-name project {folder!r} to {key.key}"
        + (f" ({moved.skipped} identical ones were already there: left)" if moved.skipped else "")
    ]


def uninstall(s: Settings, project: Path | None = None, global_: bool = False) -> Report:
    target = resolve_target(s, project, global_)
    if not target.manifest.exists():
        raise InstallError(
            f"Neuralgentics is not installed there: {target.manifest} does not exist"
        )
    try:
        manifest = json.loads(target.manifest.read_text("utf-8"))
    except json.JSONDecodeError as exc:
        raise InstallError(
            f"{target.manifest}: not valid JSON ({exc.msg}); remove the entries by hand"
        ) from None
    report = Report(target=target)
    config = Path(manifest["config_file"])
    written_sha = manifest.get("config_written_sha256")
    backup = Path(manifest["backup"]) if manifest.get("backup") else None
    if written_sha and config.exists():
        current = config.read_bytes()
        if _sha(current) == written_sha or _only_opencode_added(current, manifest):
            # Untouched since install: restore the exact bytes (formatting, key order, all).
            if manifest["config_original_existed"] and backup is not None and backup.exists():
                _write_atomic(config, backup.read_bytes())
                report.removed.append(f"{config}: restored from {backup}")
            elif not manifest["config_original_existed"]:
                config.unlink()
                report.removed.append(f"{config} (install created it)")
        else:
            try:
                doc = read_json_file(config)
            except JsonFileError as exc:
                raise InstallError(f"{exc}; fix it, then run uninstall again") from None
            report.notes += undo(doc, EditLog.from_json(manifest["edits"]))
            if not doc and not manifest["config_original_existed"]:
                config.unlink()
            else:
                _write_atomic(config, dump_json(doc).encode("utf-8"))
            report.removed.append(
                f"{config}: removed the Neuralgentics entries (your later edits kept)"
            )
    for f in manifest.get("files", []):
        p = Path(f["path"])
        if not p.exists():
            continue
        if _sha(p.read_bytes()) != f["sha256"]:
            report.notes.append(f"left {p}: changed since install")
            continue
        p.unlink()
        report.removed.append(str(p))
    if backup is not None and backup.exists() and not any("left" in n for n in report.notes):
        backup.unlink()
    tui_removed, tui_notes = tui.revert(manifest.get("tui"))
    report.removed += tui_removed
    report.notes += tui_notes
    lock_removed, lock_notes = locks.release(s, manifest.get("locks", []), str(target.manifest))
    report.removed += lock_removed
    report.notes += lock_notes
    if manifest.get("roles_added"):
        # broker.yaml is Neuralgentics's config, shared by every project: the roles stay.
        report.notes.append(
            "kept the broker roles install added (broker.yaml is shared by every project): "
            + ", ".join(manifest["roles_added"])
        )
    if manifest.get("credential"):
        try:
            project_credentials.revoke(s, manifest["credential"])
            report.removed.append(f"the plugin's project credential {manifest['credential']}")
        except CredentialError as exc:
            report.notes.append(f"project credential: {exc}")
    target.manifest.unlink()
    dirs = [Path(d) for d in manifest.get("created_dirs", [])] + [target.backup_dir]
    for d in sorted(dirs, key=lambda p: len(p.parts), reverse=True):
        if d.is_dir() and not any(d.iterdir()):
            d.rmdir()
    return report
