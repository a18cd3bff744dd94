"""OpenCode's plugin-install lock, pre-created so a start never waits on npm.

OpenCode 1.18 runs ``npm install @opencode-ai/plugin@<its version>`` in every config dir it
reads (always ``$XDG_CONFIG_HOME/opencode``, plus each ``.opencode/`` from the project up to its
worktree, ``~/.opencode`` when it exists), and a start **waits** for those installs whenever an
external plugin is configured. Offline that is npm's retry back-off, ~70 s; online it leaves
64 MB of ``node_modules`` per dir. OpenCode skips the install when ``node_modules/`` exists and
``package-lock.json`` lists ``@opencode-ai/plugin`` in ``packages[""].dependencies`` (it never
looks inside ``node_modules``), so an empty ``node_modules/`` and a 4-line lock are enough
(measured with OpenCode 1.18.33: a start in 3.8 s offline instead of 72 s).

Only a dir without ``node_modules`` gets one: a user's real install is never touched. The
global dir is shared by every project installed, so who relies on each lock is recorded in a
registry under Neuralgentics's data dir; uninstall removes a lock when its last user goes and
it is unchanged (``node_modules`` still empty, the lock's bytes as written).

Caveat (``doctor`` says it): a plugin of the user's own in such a dir that *value*-imports
``@opencode-ai/plugin`` will not find it; ``npm install`` there fixes that.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from neuralgentics.config import Settings
from neuralgentics.filemodes import FILE_MODE, atomic_write

PLUGIN_PACKAGE = "@opencode-ai/plugin"
# The version OpenCode 1.18.33 asks for; it only checks the name is listed, not the version.
PLUGIN_VERSION = "1.18.33"
REGISTRY_FILE = "install-locks.json"
LOCK_TEXT = (
    json.dumps(
        {
            "name": "opencode-config",
            "lockfileVersion": 3,
            "requires": True,
            "packages": {"": {"dependencies": {PLUGIN_PACKAGE: PLUGIN_VERSION}}},
            "neuralgentics": "written by `neuralgentics opencode install` so OpenCode does not "
            "wait on npm at start; `neuralgentics opencode uninstall` removes it",
        },
        indent=2,
    )
    + "\n"
)
# What OpenCode writes into a config dir it uses (when missing); ours to remove with the dir.
OPENCODE_GITIGNORE = "node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore\n"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def registry_path(s: Settings) -> Path:
    return s.home / "opencode" / REGISTRY_FILE


def _read_registry(s: Settings) -> dict[str, Any]:
    path = registry_path(s)
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {"locks": {}}
    return data if isinstance(data.get("locks"), dict) else {"locks": {}}


def _write_registry(s: Settings, data: dict[str, Any]) -> None:
    path = registry_path(s)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(data, indent=2, sort_keys=True) + "\n", mode=FILE_MODE)


def config_dirs(global_home: Path, project_dir: Path | None) -> list[Path]:
    """The config dirs OpenCode reads for a start in ``project_dir`` (or anywhere, for a global
    install) that exist or that the install creates: the global one, the project's
    ``.opencode``, every ``.opencode`` above it up to the git worktree, and ``~/.opencode``."""
    dirs = [global_home]
    if project_dir is not None:
        dirs.append(project_dir / ".opencode")
        for parent in project_dir.parents:
            if (parent / ".opencode").is_dir():
                dirs.append(parent / ".opencode")
            if (parent / ".git").exists():
                break
    home_dot = Path.home() / ".opencode"
    if home_dot.is_dir():
        dirs.append(home_dot)
    return list(dict.fromkeys(dirs))


def acquire(
    s: Settings, dirs: list[Path], user: str, made: frozenset[Path] = frozenset()
) -> tuple[list[dict[str, Any]], list[str]]:
    """Pre-create the lock where ``node_modules`` is missing and record ``user`` (the install's
    manifest path) on every lock of ours it relies on. ``made``: dirs the install itself just
    created. Returns the manifest entries and the report lines."""
    registry = _read_registry(s)
    locks: dict[str, Any] = registry["locks"]
    entries: list[dict[str, Any]] = []
    lines: list[str] = []
    for d in dirs:
        key = str(d)
        mine = locks.get(key)
        if mine is None and (d / "node_modules").exists():
            continue  # the user's own install (or OpenCode's): never touched
        if mine is None:
            created_dir = not d.exists() or d in made
            (d / "node_modules").mkdir(parents=True, exist_ok=True)
            lock = d / "package-lock.json"
            lock_existed = lock.exists()
            if not lock_existed:
                lock.write_text(LOCK_TEXT, "utf-8")
            mine = {
                "lock_sha256": _sha(lock.read_bytes()) if not lock_existed else None,
                "created_dir": created_dir,
                "users": [],
            }
            locks[key] = mine
            lines.append(
                f"pre-created OpenCode's plugin-install lock in {d} (no npm install at start)"
            )
        if user not in mine["users"]:
            mine["users"].append(user)
        entries.append({"dir": key})
    _write_registry(s, registry)
    return entries, lines


def release(s: Settings, entries: list[dict[str, Any]], user: str) -> tuple[list[str], list[str]]:
    """Drop ``user`` from each lock; remove the locks nobody relies on any more, when they are
    as written. Returns (removed, notes) report lines."""
    registry = _read_registry(s)
    locks: dict[str, Any] = registry["locks"]
    removed: list[str] = []
    notes: list[str] = []
    for e in entries:
        key = e["dir"]
        mine = locks.get(key)
        if mine is None:
            continue
        if user in mine["users"]:
            mine["users"].remove(user)
        if mine["users"]:
            continue
        del locks[key]
        d = Path(key)
        nm = d / "node_modules"
        lock = d / "package-lock.json"
        if nm.is_dir() and any(nm.iterdir()):
            notes.append(f"left {nm}: something was installed there since")
            continue
        if mine.get("lock_sha256"):
            if lock.exists() and _sha(lock.read_bytes()) != mine["lock_sha256"]:
                notes.append(f"left {lock}: changed since install")
                continue
            lock.unlink(missing_ok=True)
        if nm.is_dir():
            nm.rmdir()
        gitignore = d / ".gitignore"
        if (
            mine.get("created_dir")
            and gitignore.exists()
            # OpenCode 1.18 writes it without the final newline
            and gitignore.read_text("utf-8").rstrip("\n") == OPENCODE_GITIGNORE.rstrip("\n")
        ):
            gitignore.unlink()  # OpenCode wrote it because our install made the dir
        if mine.get("created_dir") and d.is_dir() and not any(d.iterdir()):
            d.rmdir()
        removed.append(f"{d}: OpenCode's plugin-install lock")
    if locks:
        _write_registry(s, registry)
    else:
        registry_path(s).unlink(missing_ok=True)
    return removed, notes
