"""`neuralgentics update [--check] [--index]`: upgrade this installation to the latest release.

How depends on how Neuralgentics was installed (:func:`install_kind`):

- **pip, from a wheel** (``pip install neuralgentics-….whl`` or from an index): from the release
  feed, the release's wheel is downloaded (or read, for a local feed), checked against its
  sha256 digest and installed with pip into the same environment; with ``--index``, pip
  upgrades ``neuralgentics`` from its own configured index (pip.conf, ``PIP_INDEX_URL``), no feed
  needed.
- **a git checkout** (``scripts/install.sh`` makes an editable install of one): the release's tag
  is fetched, the checkout fast-forwarded to it, and the package reinstalled (``pip install -e``).
  When that cannot be done safely (uncommitted changes, local commits the tag lacks, no remote),
  nothing is changed and the error says the exact commands to run.
- **editable, without git**: the message says what to run.

The release feed (Settings ``releases_url``, ``NEURALGENTICS_RELEASES_URL``, or ``--releases-url``)
is the ``release.json`` that ``scripts/release.sh`` writes — GitHub's release shape, so a
GitHub releases API URL works too — or a list of such releases, over http(s) or as a local
path; asset URLs may be relative to the feed. Drafts and pre-releases are skipped.

It refuses to downgrade, and to run while local patches are uncommitted or not applied to the
OpenCode checkout (``NEURALGENTICS_OPENCODE_CHECKOUT``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urljoin, urlparse
from urllib.request import url2pathname

import httpx
from packaging.version import InvalidVersion, Version

from neuralgentics import errors

DIST = "neuralgentics"
InstallKind = Literal["wheel", "git", "editable"]


class UpdateError(errors.InvalidInput):
    """The update was refused or failed; nothing was changed. The message says why and what to do."""


class FeedUnavailable(UpdateError, errors.Unavailable):
    """The release feed or the wheel could not be fetched: try again later (exit 3)."""


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
    """The release feed the caller resolved (`--releases-url`, else `Settings.releases_url`)."""
    url = override
    if not url:
        raise UpdateError(
            "no release feed is configured: set NEURALGENTICS_RELEASES_URL (or pass --releases-url) "
            "to the release.json of your releases (docs/opencode.md, Updates), or run "
            "`neuralgentics update --index` to upgrade from pip's configured package index"
        )
    return url


def _local_path(url: str) -> Path | None:
    """The file a feed or asset URL names, when it is a local path or a file:// URL."""
    parsed = urlparse(url)
    if parsed.scheme == "file":
        return Path(url2pathname(parsed.path))
    if parsed.scheme in ("",) or (len(parsed.scheme) == 1 and os.name == "nt"):
        return Path(url)
    return None


def _read(url: str, timeout: float) -> bytes:
    local = _local_path(url)
    if local is not None:
        try:
            return local.read_bytes()
        except OSError as exc:
            raise UpdateError(f"cannot read {local}: {exc.strerror}") from None
    try:
        r = httpx.get(
            url, timeout=timeout, follow_redirects=True, headers={"accept": "application/json"}
        )
        r.raise_for_status()
        return r.content
    except httpx.HTTPError as exc:
        raise FeedUnavailable(f"cannot read releases from {url}: {exc}") from None


def _parse_release(data: dict[str, Any], feed: str) -> Release | None:
    tag = data.get("tag_name")
    if not isinstance(tag, str):
        return None
    try:
        version = Version(tag.removeprefix("v"))
    except InvalidVersion:
        return None
    wheel = next(
        (
            a
            for a in data.get("assets") or []
            if isinstance(a, dict)
            and str(a.get("name", "")).startswith(f"{DIST}-")
            and str(a.get("name", "")).endswith(".whl")
        ),
        None,
    )
    digest = wheel.get("digest") if wheel else None
    url = wheel.get("browser_download_url") if wheel else None
    return Release(
        version=version,
        tag=tag,
        # release.sh writes asset URLs relative to release.json, so a copied dist/ works anywhere
        wheel_url=urljoin(feed, url) if isinstance(url, str) and url else None,
        wheel_name=wheel.get("name") if wheel else None,
        sha256=digest.removeprefix("sha256:")
        if isinstance(digest, str) and digest.startswith("sha256:")
        else None,
        page=data.get("html_url"),
    )


def fetch_latest(url: str, timeout: float = 15.0) -> Release:
    try:
        data = json.loads(_read(url, timeout))
    except ValueError:
        raise UpdateError(
            f"{url} did not answer JSON (expected a release.json as scripts/release.sh writes)"
        ) from None
    items = data if isinstance(data, list) else [data]
    base = url if _local_path(url) is None else _local_path(url).resolve().as_uri()  # type: ignore[union-attr]
    releases = [
        rel
        for item in items
        if isinstance(item, dict)
        and not item.get("draft")
        and not item.get("prerelease")
        and (rel := _parse_release(item, base)) is not None
    ]
    if not releases:
        raise UpdateError(f"{url}: no release with a version tag (tag_name like v1.2.3)")
    return max(releases, key=lambda r: r.version)


def _run(cmd: list[str], timeout: float = 600, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def installed_version(python: str = sys.executable) -> Version:
    out = _run(
        [python, "-c", f"import importlib.metadata as m; print(m.version({DIST!r}))"], timeout=60
    )
    if out.returncode != 0:
        raise UpdateError(f"{python}: {DIST} is not installed there ({out.stderr.strip()[-200:]})")
    return Version(out.stdout.strip())


def direct_url(python: str = sys.executable) -> dict[str, Any]:
    """PEP 610 direct_url.json of the installed distribution ({} for an index install)."""
    code = (
        "import importlib.metadata as m, json; t = m.distribution(%r).read_text('direct_url.json');"
        "print(json.dumps(json.loads(t) if t else {}))" % DIST
    )
    out = _run([python, "-c", code], timeout=60)
    try:
        return json.loads(out.stdout or "{}")
    except ValueError:
        return {}


def is_editable(python: str = sys.executable) -> bool:
    return bool(direct_url(python).get("dir_info", {}).get("editable"))


def install_kind(python: str = sys.executable) -> tuple[InstallKind, Path | None]:
    """How this Neuralgentics was installed, and its source directory for an editable one."""
    info = direct_url(python)
    if not info.get("dir_info", {}).get("editable"):
        return "wheel", None
    source = _local_path(str(info.get("url", "")))
    if source is not None and (source / ".git").exists():
        return "git", source
    return "editable", source


def check(url: str | None = None, python: str = sys.executable) -> Status:
    return Status(installed=installed_version(python), latest=fetch_latest(releases_url(url)))


def source_checkout() -> Path | None:
    """The repository this package runs from, when it runs from one (an editable install)."""
    root = Path(__file__).resolve().parents[3]
    return root if (root / ".git").exists() and (root / "patches").is_dir() else None


def patch_problems(repo: Path | None, opencode_checkout: Path | None) -> list[str]:
    problems: list[str] = []
    if repo is not None and (repo / ".git").exists():
        out = _run(["git", "-C", str(repo), "status", "--porcelain", "--", "patches"], timeout=60)
        changed = [line[3:] for line in out.stdout.splitlines() if line.strip()]
        if changed:
            problems.append(
                f"local patches are not committed in {repo}: {', '.join(changed)} "
                "(commit them, or they are lost on update)"
            )
    if opencode_checkout is not None:
        script = (repo or Path(__file__).resolve().parents[3]) / "scripts" / "verify.sh"
        if script.exists():
            out = _run(["bash", str(script), str(opencode_checkout)], timeout=120)
            if out.returncode != 0:
                problems.append(
                    f"patches are not applied to the OpenCode checkout {opencode_checkout}: "
                    f"{out.stderr.strip() or out.stdout.strip()} "
                    f"(run scripts/apply-patches.sh {opencode_checkout})"
                )
    return problems


def _pip(python: str, *args: str) -> subprocess.CompletedProcess[str]:
    return _run([python, "-m", "pip", "--disable-pip-version-check", *args])


def _fetch_wheel(release: Release, folder: Path) -> Path:
    assert release.wheel_url and release.wheel_name
    wheel = folder / release.wheel_name
    local = _local_path(release.wheel_url)
    if local is not None:
        try:
            shutil.copyfile(local, wheel)
        except OSError as exc:
            raise UpdateError(f"cannot read {local}: {exc.strerror}") from None
    else:
        try:
            with httpx.stream("GET", release.wheel_url, timeout=120, follow_redirects=True) as r:
                r.raise_for_status()
                with wheel.open("wb") as f:
                    for chunk in r.iter_bytes():
                        f.write(chunk)
        except httpx.HTTPError as exc:
            raise FeedUnavailable(f"cannot download {release.wheel_url}: {exc}") from None
    if release.sha256 and hashlib.sha256(wheel.read_bytes()).hexdigest() != release.sha256:
        raise UpdateError(
            f"{release.wheel_name}: sha256 does not match the release's digest; not installed"
        )
    return wheel


def _update_from_feed(status: Status, python: str) -> str:
    latest, installed = status.latest, status.installed
    if not latest.wheel_url or not latest.wheel_name:
        raise UpdateError(f"release {latest.tag} has no {DIST}-*.whl asset to install")
    with tempfile.TemporaryDirectory(prefix="neuralgentics-update-") as tmp:
        wheel = _fetch_wheel(latest, Path(tmp))
        out = _pip(python, "install", "-q", "--upgrade", str(wheel))
        if out.returncode != 0:
            raise UpdateError(
                f"pip could not install {latest.wheel_name}: {out.stderr.strip()[-800:]}"
            )
    return _confirm(python, installed, latest.version)


def _confirm(python: str, before: Version, expected: Version) -> str:
    now = installed_version(python)
    if now != expected:
        raise UpdateError(f"the upgrade finished but {DIST} is {now}, not {expected}")
    return f"updated {before} -> {now}"


def index_candidate(python: str = sys.executable) -> Version | None:
    """The version `pip install --upgrade neuralgentics` would install from pip's configured index."""
    with tempfile.TemporaryDirectory(prefix="neuralgentics-update-") as tmp:
        report = Path(tmp) / "report.json"
        out = _pip(
            python,
            "install",
            "-q",
            "--dry-run",
            "--upgrade",
            "--no-deps",
            "--ignore-installed",
            "--report",
            str(report),
            DIST,
        )
        if out.returncode != 0:
            raise UpdateError(
                f"pip cannot find {DIST} on its configured index: {out.stderr.strip()[-600:]} "
                f"(check `{python} -m pip config list`, or use the release feed: --releases-url)"
            )
        items = json.loads(report.read_text()).get("install", [])
    versions = [
        Version(i["metadata"]["version"])
        for i in items
        if i.get("metadata", {}).get("name") == DIST
    ]
    return max(versions) if versions else None


def update_from_index(python: str = sys.executable, check_only: bool = False) -> str:
    installed = installed_version(python)
    candidate = index_candidate(python)
    if candidate is None or candidate <= installed:
        return f"already up to date ({installed}; the index has {candidate})"
    if check_only:
        return f"{candidate} is available on the index (installed {installed})"
    out = _pip(python, "install", "-q", "--upgrade", f"{DIST}=={candidate}")
    if out.returncode != 0:
        raise UpdateError(
            f"pip could not upgrade {DIST} to {candidate}: {out.stderr.strip()[-800:]}"
        )
    return _confirm(python, installed, candidate)


def _git(repo: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return _run(["git", "-C", str(repo), *args], timeout=timeout)


def latest_tag(repo: Path) -> Release:
    """The highest vX.Y.Z tag of the checkout's remote: a git checkout needs no release feed."""
    fetched = _git(repo, "fetch", "--tags", "--quiet")
    if fetched.returncode != 0:
        raise UpdateError(
            f"git fetch failed in {repo}: {fetched.stderr.strip()[-300:]} (no release feed is "
            "configured either: NEURALGENTICS_RELEASES_URL)"
        )
    versions: list[tuple[Version, str]] = []
    for tag in _git(repo, "tag", "--list", "v*").stdout.split():
        try:
            versions.append((Version(tag.removeprefix("v")), tag))
        except InvalidVersion:
            continue
    final = [(v, t) for v, t in versions if not v.is_prerelease]
    if not final:
        raise UpdateError(
            f"{repo}: no release tag (vX.Y.Z) on its remote, and no release feed is configured"
        )
    version, tag = max(final)
    return Release(
        version=version, tag=tag, wheel_url=None, wheel_name=None, sha256=None, page=None
    )


def _update_checkout(repo: Path, status: Status, python: str) -> str:
    """Fast-forward the checkout to the release tag and reinstall it; or say exactly what to run."""
    tag, installed = status.latest.tag, status.installed
    q = shlex.quote
    by_hand = (
        f"git -C {q(str(repo))} fetch --tags && git -C {q(str(repo))} merge --ff-only {q(tag)} && "
        f"{q(python)} -m pip install -e {q(str(repo))}"
    )
    dirty = [
        line[3:]
        for line in _git(repo, "status", "--porcelain", "--untracked-files=no").stdout.splitlines()
        if line.strip()
    ]
    if dirty:
        raise UpdateError(
            f"{repo} has uncommitted changes ({', '.join(dirty[:5])}): "
            f"commit or stash them (git -C {q(str(repo))} stash), then run `neuralgentics update` again, "
            f"or by hand: {by_hand}"
        )
    fetched = _git(repo, "fetch", "--tags", "--quiet")
    if fetched.returncode != 0:
        raise UpdateError(
            f"git fetch failed in {repo}: {fetched.stderr.strip()[-300:]}; once the remote answers, "
            f"run: {by_hand}"
        )
    if _git(repo, "rev-parse", "-q", "--verify", f"refs/tags/{tag}").returncode != 0:
        raise UpdateError(
            f"the release feed names {tag}, but {repo}'s remote has no such tag; "
            f"check the checkout's remote (git -C {q(str(repo))} remote -v)"
        )
    merged = _git(repo, "merge", "--ff-only", "--quiet", tag)
    if merged.returncode != 0:
        raise UpdateError(
            f"{repo} has commits that {tag} does not, so it cannot simply move to {tag}; nothing was "
            f"changed. Rebase them onto it (git -C {q(str(repo))} rebase {q(tag)}) or merge it "
            f"(git -C {q(str(repo))} merge {q(tag)}), then: {q(python)} -m pip install -e {q(str(repo))}"
        )
    out = _pip(python, "install", "-q", "-e", str(repo))
    if out.returncode != 0:
        raise UpdateError(
            f"{repo} is at {tag}, but reinstalling failed: {out.stderr.strip()[-800:]}; "
            f"run: {q(python)} -m pip install -e {q(str(repo))}"
        )
    return _confirm(python, installed, status.latest.version) + f" ({repo} at {tag})"


def update(
    url: str | None = None,
    python: str = sys.executable,
    repo: Path | None = None,
    opencode_checkout: Path | None = None,
    index: bool = False,
) -> str:
    """Upgrade to the latest release; return what was done. Raises UpdateError when refused."""
    checkout = opencode_checkout  # the caller's (Settings.opencode_checkout)
    kind, source = install_kind(python)
    if index:
        if kind != "wheel":
            raise UpdateError(
                f"{DIST} runs from the source directory {source}; --index upgrades pip installs only "
                "(run `neuralgentics update` without --index)"
            )
        problems = patch_problems(repo, checkout)
        if problems:
            raise UpdateError("refusing to update: " + "; ".join(problems))
        return update_from_index(python)
    if kind == "git" and source is not None and not url:
        status = Status(installed=installed_version(python), latest=latest_tag(source))
    else:
        status = check(url, python)
    latest, installed = status.latest, status.installed
    if latest.version < installed:
        raise UpdateError(
            f"refusing to downgrade: installed {installed}, latest release {latest.version}"
        )
    if latest.version == installed:
        return f"already up to date ({installed})"
    problems = patch_problems(repo or (source if kind == "git" else None), checkout)
    if problems:
        raise UpdateError("refusing to update: " + "; ".join(problems))
    if kind == "git" and source is not None:
        return _update_checkout(source, status, python)
    if kind == "editable":
        raise UpdateError(
            f"{DIST} {installed} is an editable install from {source}, which is not a git checkout: "
            f"put release {latest.tag}'s sources there, then run "
            f"`{python} -m pip install -e {source}` (or install the wheel: "
            f"{python} -m pip install {latest.wheel_url or DIST})"
        )
    return _update_from_feed(status, python)
