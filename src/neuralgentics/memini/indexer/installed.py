"""What the Neuralgentics installer wrote into a project: never indexed.

Read from the installer's own manifest (`.opencode/neuralgentics-install.json`), which lists
every file it wrote, the config files it created and where it keeps backups, so this follows
whatever a later installer writes without a second list to keep in step. Without a manifest
(not installed, or uninstalled: its files are gone too) nothing is left out here, and the next
run drops the chunks of whatever the uninstall removed.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

log = logging.getLogger(__name__)

REASON = "written by the Neuralgentics installer"


# Where `neuralgentics.opencode.installer` keeps it in a project (that area sits above this
# one, so the name is repeated here; tests/memini/indexer/test_installed.py checks the two agree).
MANIFEST = ".opencode/neuralgentics-install.json"


def installed_paths(root: Path) -> tuple[frozenset[str], frozenset[str]]:
    """(files, folders) the installer wrote under `root`, '/'-separated and relative to it."""
    opencode = root / ".opencode"
    if not opencode.is_dir():
        return frozenset(), frozenset()
    manifest = root / MANIFEST
    try:
        data = json.loads(manifest.read_text("utf-8"))
    except FileNotFoundError:
        return frozenset(), frozenset()
    except (OSError, ValueError) as exc:
        # still the installer's file: leave it out, and what it would have listed is unknown
        log.warning("%s unreadable (%s): only the manifest itself is left out", manifest, exc)
        return _relative(root, [manifest]), frozenset()
    if not isinstance(data, dict):
        return _relative(root, [manifest]), frozenset()
    files: list[Path] = [manifest]
    for entry in data.get("files") or []:
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            files.append(Path(entry["path"]))
    # a config file the install created (rather than merged into) holds nothing of the user's
    if data.get("config_original_existed") is False and isinstance(data.get("config_file"), str):
        files.append(Path(data["config_file"]))
    tui = data.get("tui")
    if isinstance(tui, dict) and tui.get("original_existed") is False:
        if isinstance(tui.get("config_file"), str):
            files.append(Path(tui["config_file"]))
    folders: list[Path] = []
    for section in (data, tui if isinstance(tui, dict) else {}):
        backup = section.get("backup")
        if isinstance(backup, str):  # the installer's backup folder
            folders.append(Path(backup).parent)
    return _relative(root, files), _relative(root, folders)


def _relative(root: Path, paths: list[Path]) -> frozenset[str]:
    out = set()
    for path in paths:
        try:
            out.add(path.relative_to(root).as_posix())
        except ValueError:  # outside the project (the plugin's own folder, a global install)
            continue
    return frozenset(out)
