"""The brand in OpenCode's TUI: a TUI plugin file and its entry in ``tui.json``.

OpenCode 1.18 reads TUI plugins from ``tui.json`` (not opencode.json): the global
``$XDG_CONFIG_HOME/opencode/tui.json`` and a project's ``.opencode/tui.json`` among others.
An entry is ``[spec, options]``; a relative spec is resolved against the folder of the
tui.json that names it. The plugin (``plugin/neuralgentics-brand.tsx``) needs no npm install:
OpenCode compiles it and provides its runtime modules.

Install adds one entry to the ``plugin`` list and nothing else; uninstall restores the file's
bytes when it is unchanged since install, and otherwise removes only our entry if it is still
there as written (the user's edits stay). The plugin file itself is an ordinary install file
(hash-checked by the installer).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from neuralgentics import errors
from neuralgentics.config import Settings
from neuralgentics.filemodes import atomic_write, user_file_mode
from neuralgentics.opencode.jsonedit import JsonFileError, dump_json, read_json_file

BRAND_SOURCE = "neuralgentics-brand.tsx"
# Beside tui.json, in a folder of its own: OpenCode loads every *.ts/*.js in plugin/ as a
# server plugin, and this one is a TUI plugin.
BRAND_DIR = "neuralgentics-tui"
BRAND_SPEC = f"./{BRAND_DIR}/{BRAND_SOURCE}"
# The server plugin's modules the brand imports (relative to it): one token-file routine.
BRAND_HELPERS = ("ng/token_file.ts",)


class TuiConfigError(errors.InvalidConfig):
    """tui.json cannot be edited safely; nothing was changed. The message says what to fix."""


def brand_source() -> str:
    return (
        resources.files("neuralgentics.opencode")
        .joinpath("plugin", BRAND_SOURCE)
        .read_text("utf-8")
    )


def tui_config_file(home: Path) -> Path:
    """tui.json in an OpenCode config folder (tui.jsonc when only that one exists)."""
    plain = home / "tui.json"
    if not plain.exists() and (home / "tui.jsonc").exists():
        return home / "tui.jsonc"
    return plain


def brand_file(home: Path) -> Path:
    return home / BRAND_DIR / BRAND_SOURCE


def brand_files(home: Path) -> list[tuple[Path, str]]:
    """(where, text) of the brand and the modules it imports, as install writes them."""
    base = resources.files("neuralgentics.opencode").joinpath("plugin")
    helpers = [
        (home / BRAND_DIR / rel, base.joinpath(rel).read_text("utf-8")) for rel in BRAND_HELPERS
    ]
    return [(brand_file(home), brand_source()), *helpers]


def plugin_options(
    s: Settings, broker: str, project: str | None = None, project_name: str | None = None
) -> dict[str, Any]:
    """What the TUI plugin is told: where the services are and where the token file is (never
    the token itself: tui.json may be committed with the project), and the repository's
    project key its memories are counted under (opencode/project_key.py)."""
    from neuralgentics.credentials import token_path
    from neuralgentics.filemodes import home_relative

    opts: dict[str, Any] = {
        "service_url": s.url,
        "broker_url": s.broker_base_url,
        "broker": broker,
        "token_file": home_relative(token_path(s)),
    }
    if project:
        opts["project"] = project
    if project_name:
        opts["project_name"] = project_name
    return opts


def _spec(entry: Any) -> Any:
    return entry[0] if isinstance(entry, list) and entry else entry


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write_atomic(path: Path, data: bytes) -> None:
    # a unique temp name (two installs at once each rename a whole file) and fsync (a crash
    # leaves the old opencode.json, never an empty one); the user's file keeps its mode
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, data, mode=user_file_mode(path))


@dataclass(frozen=True)
class TuiPlan:
    """The edit of tui.json, computed (and validated) before anything is written."""

    config_file: Path
    original: bytes | None
    new_doc: (
        dict[str, Any] | None
    )  # None: the user already lists the brand plugin; nothing to write
    entry: list[Any]


def plan(
    s: Settings,
    home: Path,
    broker: str,
    project: str | None = None,
    project_name: str | None = None,
) -> TuiPlan:
    config = tui_config_file(home)
    original = config.read_bytes() if config.exists() else None
    try:
        doc = read_json_file(config)
    except JsonFileError as exc:
        raise TuiConfigError(str(exc)) from None
    entry: list[Any] = [BRAND_SPEC, plugin_options(s, broker, project, project_name)]
    plugins = doc.get("plugin", [])
    if not isinstance(plugins, list):
        raise TuiConfigError(
            f'{config}: "plugin" is not a list; fix it, or add {BRAND_SPEC} by hand'
        )
    if any(_spec(p) == BRAND_SPEC for p in plugins):
        return TuiPlan(config, original, None, entry)
    new_doc = dict(doc)
    new_doc["plugin"] = [*plugins, entry]
    return TuiPlan(config, original, new_doc, entry)


def apply(p: TuiPlan, backup_dir: Path) -> tuple[dict[str, Any] | None, list[str]]:
    """Write tui.json; return the manifest section and report lines."""
    if p.new_doc is None:
        return None, [f"kept yours: {p.config_file} already lists {BRAND_SPEC}"]
    lines: list[str] = []
    backup = None
    if p.original is not None:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        backup = backup_dir / f"{p.config_file.name}.{stamp}"
        _write_atomic(backup, p.original)
        lines.append(f"backed up {p.config_file} to {backup}")
    data = dump_json(p.new_doc).encode("utf-8")
    _write_atomic(p.config_file, data)
    lines.append(f"added the Neuralgentics brand to {p.config_file} (plugin {BRAND_SPEC})")
    section = {
        "config_file": str(p.config_file),
        "original_existed": p.original is not None,
        "written_sha256": _sha(data),
        "backup": str(backup) if backup else None,
        "entry": p.entry,
    }
    return section, lines


def revert(section: dict[str, Any] | None) -> tuple[list[str], list[str]]:
    """Undo :func:`apply`; return (removed, notes) report lines. Never raises for a file the
    user broke since: it is left alone with a note, so the rest of uninstall still runs."""
    if not section:
        return [], []
    config = Path(section["config_file"])
    backup = Path(section["backup"]) if section.get("backup") else None
    removed: list[str] = []
    notes: list[str] = []
    if not config.exists():
        return removed, notes
    current = config.read_bytes()
    if _sha(current) == section["written_sha256"]:
        if section["original_existed"] and backup is not None and backup.exists():
            _write_atomic(config, backup.read_bytes())
            removed.append(f"{config}: restored from {backup}")
        elif not section["original_existed"]:
            config.unlink()
            removed.append(f"{config} (install created it)")
    else:
        try:
            doc = read_json_file(config)
        except JsonFileError as exc:
            notes.append(f"left {config}: {exc}; remove the {BRAND_SPEC} entry by hand")
            return removed, notes
        plugins = doc.get("plugin")
        if isinstance(plugins, list) and section["entry"] in plugins:
            plugins.remove(section["entry"])
            if not plugins:
                del doc["plugin"]
            if not doc and not section["original_existed"]:
                config.unlink()
            else:
                _write_atomic(config, dump_json(doc).encode("utf-8"))
            removed.append(f"{config}: removed the brand plugin entry (your later edits kept)")
        elif isinstance(plugins, list) and any(_spec(x) == BRAND_SPEC for x in plugins):
            notes.append(f"left {config}: the {BRAND_SPEC} entry was changed since install")
    if backup is not None and backup.exists():
        backup.unlink()
    return removed, notes
