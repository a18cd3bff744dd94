"""`neuralgentics update [--check]`: compare with the latest release and upgrade in place.

Releases are read from a GitHub-releases-style JSON endpoint (one release object, or a list of
them); the URL is configurable with NEURALGENTICS_RELEASES_URL or --releases-url. The upgrade
installs the release's wheel with pip into the same Python environment. It refuses to
downgrade, to replace an editable source checkout, and to run while local patches are
uncommitted or not applied to the OpenCode checkout (NEURALGENTICS_OPENCODE_CHECKOUT).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from packaging.version import InvalidVersion, Version

DEFAULT_RELEASES_URL = "https://api.github.com/repos/neuralgentics/neuralgentics/releases/latest"
DIST = "neuralgentics"


class UpdateError(Exception):
    """The update was refused or failed; nothing was changed. The message says why and what to do."""


@dataclass(frozen=True)
class Release:
    version: Version
    tag: str
    wheel_url: str | None
    wheel_name: str | None
    sha256: str | None
    page: str | None


@dataclass(frozen=True)
class Status:
    installed: Version
    latest: Release

    @property
    def available(self) -> bool:
        return self.latest.version > self.installed


def releases_url(override: str | None = None) -> str:
    return override or os.environ.get("NEURALGENTICS_RELEASES_URL") or DEFAULT_RELEASES_URL


def _parse_release(data: dict[str, Any]) -> Release | None:
    tag = data.get("tag_name")
    if not isinstance(tag, str):
        return None
    try:
        version = Version(tag.removeprefix("v"))
    except InvalidVersion:
        return None
    wheel = next(
        (a for a in data.get("assets") or [] if isinstance(a, dict)
         and str(a.get("name", "")).startswith(f"{DIST}-") and str(a.get("name", "")).endswith(".whl")),
        None,
    )
    digest = wheel.get("digest") if wheel else None
    return Release(
        version=version,
        tag=tag,
        wheel_url=wheel.get("browser_download_url") if wheel else None,
        wheel_name=wheel.get("name") if wheel else None,
        sha256=digest.removeprefix("sha256:") if isinstance(digest, str) and digest.startswith("sha256:") else None,
        page=data.get("html_url"),
    )


def fetch_latest(url: str, timeout: float = 15.0) -> Release:
    try:
        r = httpx.get(url, timeout=timeout, follow_redirects=True, headers={"accept": "application/json"})
        r.raise_for_status()
        data = r.json()
    except httpx.HTTPError as exc:
        raise UpdateError(f"cannot read releases from {url}: {exc}") from None
    except ValueError:
        raise UpdateError(f"{url} did not answer JSON (expected a GitHub-style release)") from None
    items = data if isinstance(data, list) else [data]
    releases = [
        rel for item in items if isinstance(item, dict) and not item.get("draft") and not item.get("prerelease")
        and (rel := _parse_release(item)) is not None
    ]
    if not releases:
        raise UpdateError(f"{url}: no release with a version tag (tag_name like v1.2.3)")
    return max(releases, key=lambda r: r.version)


def installed_version(python: str = sys.executable) -> Version:
    out = subprocess.run(
        [python, "-c", f"import importlib.metadata as m; print(m.version({DIST!r}))"],
        capture_output=True, text=True, timeout=60,
    )
    if out.returncode != 0:
        raise UpdateError(f"{python}: {DIST} is not installed there ({out.stderr.strip()[-200:]})")
    return Version(out.stdout.strip())


def is_editable(python: str = sys.executable) -> bool:
    code = (
        "import importlib.metadata as m, json; t = m.distribution(%r).read_text('direct_url.json');"
        "print(json.dumps(json.loads(t) if t else {}))" % DIST
    )
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    try:
        return bool(json.loads(out.stdout or "{}").get("dir_info", {}).get("editable"))
    except ValueError:
        return False


def check(url: str | None = None, python: str = sys.executable) -> Status:
    return Status(installed=installed_version(python), latest=fetch_latest(releases_url(url)))


def source_checkout() -> Path | None:
    """The repository this package runs from, when it runs from one (an editable install)."""
    root = Path(__file__).resolve().parents[3]
    return root if (root / ".git").exists() and (root / "patches").is_dir() else None


def patch_problems(repo: Path | None, opencode_checkout: Path | None) -> list[str]:
    problems: list[str] = []
    if repo is not None and (repo / ".git").exists():
        out = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--", "patches"],
                             capture_output=True, text=True, timeout=60)
        changed = [line[3:] for line in out.stdout.splitlines() if line.strip()]
        if changed:
            problems.append(f"local patches are not committed in {repo}: {', '.join(changed)} "
                            "(commit them, or they are lost on update)")
    if opencode_checkout is not None:
        script = (repo or Path(__file__).resolve().parents[3]) / "scripts" / "verify.sh"
        if script.exists():
            out = subprocess.run(["bash", str(script), str(opencode_checkout)], capture_output=True, text=True,
                                 timeout=120)
            if out.returncode != 0:
                problems.append(f"patches are not applied to the OpenCode checkout {opencode_checkout}: "
                                f"{out.stderr.strip() or out.stdout.strip()} "
                                f"(run scripts/apply-patches.sh {opencode_checkout})")
    return problems


def update(
    url: str | None = None,
    python: str = sys.executable,
    repo: Path | None = None,
    opencode_checkout: Path | None = None,
) -> str:
    """Upgrade to the latest release; return what was done. Raises UpdateError when refused."""
    status = check(url, python)
    latest, installed = status.latest, status.installed
    if latest.version < installed:
        raise UpdateError(f"refusing to downgrade: installed {installed}, latest release {latest.version}")
    if latest.version == installed:
        return f"already up to date ({installed})"
    checkout = opencode_checkout or (Path(p) if (p := os.environ.get("NEURALGENTICS_OPENCODE_CHECKOUT")) else None)
    problems = patch_problems(repo, checkout)
    if problems:
        raise UpdateError("refusing to update: " + "; ".join(problems))
    if is_editable(python):
        raise UpdateError(f"{DIST} {installed} is an editable source checkout: update it with "
                          f"`git pull && scripts/install.sh` (release {latest.tag} is available)")
    if not latest.wheel_url or not latest.wheel_name:
        raise UpdateError(f"release {latest.tag} has no {DIST}-*.whl asset to install")
    with tempfile.TemporaryDirectory(prefix="neuralgentics-update-") as tmp:
        wheel = Path(tmp) / latest.wheel_name
        try:
            with httpx.stream("GET", latest.wheel_url, timeout=120, follow_redirects=True) as r:
                r.raise_for_status()
                with wheel.open("wb") as f:
                    for chunk in r.iter_bytes():
                        f.write(chunk)
        except httpx.HTTPError as exc:
            raise UpdateError(f"cannot download {latest.wheel_url}: {exc}") from None
        if latest.sha256 and hashlib.sha256(wheel.read_bytes()).hexdigest() != latest.sha256:
            raise UpdateError(f"{latest.wheel_name}: sha256 does not match the release's digest; not installed")
        out = subprocess.run([python, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--upgrade",
                              str(wheel)], capture_output=True, text=True, timeout=600)
        if out.returncode != 0:
            raise UpdateError(f"pip could not install {latest.wheel_name}: {out.stderr.strip()[-800:]}")
    now = installed_version(python)
    if now != latest.version:
        raise UpdateError(f"pip finished but {DIST} is {now}, not {latest.version}")
    return f"updated {installed} -> {latest.version}"
