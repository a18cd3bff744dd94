"""A project is a repository (issue 28): the key its memories are stored under.

Two checkouts with the same folder name (``~/clients/acme/api`` and ``~/Downloads/evil/api``)
are different projects; the folder name is only a display name. The key, stable across
machines and clones where it can be:

1. ``git:<host>/<path>`` — the ``origin`` remote (else the first remote), normalised: no
   scheme, user, password or port, host lower-cased, no ``.git`` suffix or trailing slash, so
   ``git@github.com:Acme/api.git`` and ``https://github.com/Acme/api`` are one repository;
2. ``commit:<sha>`` — the repository's first commit, when it has no remote;
3. ``path:<absolute path>`` — not a git repository (or git is missing).

The installer writes it into the plugin's options; the plugin sends it as ``project``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

_SCP = re.compile(r"(?:[^@/]+@)?(?P<host>[^:/]+):(?P<path>(?!/).+)")


@dataclass(frozen=True)
class ProjectKey:
    key: str
    source: str  # remote | first-commit | path
    display: str  # the folder name, for people


def _git(root: Path, *args: str) -> str | None:
    git = shutil.which("git")
    if git is None:
        return None
    try:
        done = subprocess.run(
            [git, "-C", str(root), *args], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def normalise_remote(url: str) -> str | None:
    """``host/path`` of a git remote URL, or None for one that names no host (a local path)."""
    url = url.strip()
    if "://" in url:
        parts = urlsplit(url)
        if parts.scheme == "file" or not parts.hostname:
            return None
        host, path = parts.hostname, parts.path
    else:
        m = _SCP.fullmatch(url)
        if m is None:
            return None
        host, path = m.group("host"), m.group("path")
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[:-4]
    path = path.rstrip("/")
    if not path:
        return None
    return f"{host.lower()}/{path}"


def project_key(root: Path) -> ProjectKey:
    root = root.resolve()
    display = root.name or "root"
    if _git(root, "rev-parse", "--is-inside-work-tree") == "true":
        remotes = (_git(root, "remote") or "").split()
        ordered = (["origin"] if "origin" in remotes else []) + [
            r for r in remotes if r != "origin"
        ]
        for name in ordered:
            url = _git(root, "remote", "get-url", name)
            normal = normalise_remote(url) if url else None
            if normal:
                return ProjectKey(f"git:{normal}", "remote", display)
        roots = sorted((_git(root, "rev-list", "--max-parents=0", "HEAD") or "").split())
        if roots:
            return ProjectKey(f"commit:{roots[0]}", "first-commit", display)
    return ProjectKey(f"path:{root}", "path", display)
