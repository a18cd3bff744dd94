"""`neuralgentics update` between two real releases built from this tree.

A throwaway clone of the repository gets version 0.9.0, then 0.9.1 (a commit and a CHANGELOG
section each) and `scripts/release.sh` builds each release into its own dist folder. Then, in
throwaway virtualenvs:
- a pip install of the 0.9.0 wheel is upgraded to 0.9.1 from the release feed (served by the
  local release server, and as a local path), and from a package index (the same server);
- an editable install of a git checkout at v0.9.0 is moved to the v0.9.1 tag and reinstalled,
  and refused with the commands to run when the checkout has local changes or commits.
The virtualenvs resolve no dependencies (PIP_NO_DEPS=1): what is upgraded is neuralgentics itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from oc_support import REPO
from release_support import Kept, Releases, new_venv

from neuralgentics.opencode.update import (
    UpdateError,
    check,
    install_kind,
    installed_version,
    update,
)

pytestmark = pytest.mark.slow


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, timeout=120
    ).stdout.strip()


def bump(repo: Path, version: str) -> None:
    init = repo / "src" / "neuralgentics" / "__init__.py"
    init.write_text(
        init.read_text().replace(
            next(line for line in init.read_text().splitlines() if line.startswith("__version__")),
            f'__version__ = "{version}"',
        )
    )
    log = repo / "CHANGELOG.md"
    log.write_text(
        log.read_text().replace(
            "## Unreleased\n",
            f"## Unreleased\n\n## {version} - 2026-12-01\n\n"
            f"- Release {version} for the update test.\n",
            1,
        )
    )
    git(repo, "commit", "-qam", f"version {version}")


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone of this repository with the releases v0.9.0 and v0.9.1 tagged and built into
    dist-0.9.0/ and dist-0.9.1/ by scripts/release.sh."""
    root = tmp_path_factory.mktemp("releases")
    repo = root / "upstream"
    subprocess.run(["git", "clone", "-q", str(REPO), str(repo)], check=True, timeout=120)
    (repo / "node_modules").symlink_to(REPO / "node_modules", target_is_directory=True)
    with (repo / ".git" / "info" / "exclude").open("a") as f:
        f.write("node_modules\n/dist-*/\n")
    git(repo, "config", "user.email", "t@example.invalid")
    git(repo, "config", "user.name", "t")
    for version in ("0.9.0", "0.9.1"):
        bump(repo, version)
        res = subprocess.run(
            ["bash", "scripts/release.sh", version],
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=600,
            env={**os.environ, "PYTHON": sys.executable, "DIST_DIR": f"dist-{version}"},
        )
        assert res.returncode == 0, res.stdout + res.stderr
    return repo


@pytest.fixture
def releases(tmp_path: Path) -> Iterator[Releases]:
    r = Releases(tmp_path)
    yield r
    r.server.shutdown()
    r.server.server_close()


@pytest.fixture
def no_deps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIP_NO_DEPS", "1")


def installed_file(py: str, relative: str) -> str:
    code = f"import importlib.util, pathlib; print(pathlib.Path(importlib.util.find_spec('neuralgentics').origin).parent / {relative!r})"
    path = subprocess.run(
        [py, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    return Path(path).read_text()


def pip_install(py: str, *args: str) -> None:
    subprocess.run(
        [py, "-m", "pip", "install", "-q", "--disable-pip-version-check", *args],
        check=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def kept_wheel_venv(upstream: Path, tmp_path_factory: pytest.TempPathFactory) -> Kept:
    """A virtualenv with the 0.9.0 wheel pip-installed, made once for the module."""
    venv = tmp_path_factory.mktemp("wheel-venv") / "venv"
    py = new_venv(venv)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PIP_NO_DEPS", "1")
        pip_install(py, str(upstream / "dist-0.9.0" / "neuralgentics-0.9.0-py3-none-any.whl"))
    kept = Kept(venv)
    kept.keep()
    return kept


@pytest.fixture
def wheel_venv(kept_wheel_venv: Kept, no_deps: None) -> str:
    """A pip install of the 0.9.0 wheel, as made (each test its own: restored from the copy)."""
    kept_wheel_venv.restore()
    py = str(kept_wheel_venv.path / "bin" / "python")
    assert str(installed_version(py)) == "0.9.0" and install_kind(py) == ("wheel", None)
    return py


def test_a_pip_install_is_upgraded_from_the_release_feed(
    upstream: Path, releases: Releases, wheel_venv: str, kept_wheel_venv: Kept
) -> None:
    py = wheel_venv

    releases.feed_dir = upstream / "dist-0.9.1"  # dist/ as release.sh left it, on a static server
    feed = releases.base + "/feed/release.json"
    status = check(feed, py)
    assert str(status.latest.version) == "0.9.1" and status.available
    assert status.latest.wheel_url == releases.base + "/feed/neuralgentics-0.9.1-py3-none-any.whl"
    assert update(feed, py) == "updated 0.9.0 -> 0.9.1"
    assert str(installed_version(py)) == "0.9.1"
    assert '__version__ = "0.9.1"' in installed_file(py, "__init__.py")
    assert "Neuralgentics" in installed_file(py, "opencode/plugin/neuralgentics-brand.tsx")
    assert update(feed, py) == "already up to date (0.9.1)"

    # the same feed read from a local path (a copied dist/, or a mounted share), from 0.9.0 again
    kept_wheel_venv.restore()
    assert str(installed_version(py)) == "0.9.0"
    assert update(str(upstream / "dist-0.9.1" / "release.json"), py) == "updated 0.9.0 -> 0.9.1"


def test_a_pip_install_is_upgraded_from_the_package_index(
    upstream: Path,
    releases: Releases,
    wheel_venv: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    py = wheel_venv
    index = tmp_path / "index"
    index.mkdir()
    for v in ("0.9.0", "0.9.1"):
        (index / f"neuralgentics-{v}-py3-none-any.whl").write_bytes(
            (upstream / f"dist-{v}" / f"neuralgentics-{v}-py3-none-any.whl").read_bytes()
        )
    releases.index_dir = index
    # pip's configured index is this server's, and only it (no machine-wide pip.conf)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_INDEX_URL", releases.base + "/simple/")
    for var in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL"):
        monkeypatch.delenv(var, raising=False)
    assert update(python=py, index=True) == "updated 0.9.0 -> 0.9.1"
    assert '__version__ = "0.9.1"' in installed_file(py, "__init__.py")
    assert update(python=py, index=True).startswith("already up to date (0.9.1")


@pytest.fixture(scope="module")
def kept_checkout(upstream: Path, tmp_path_factory: pytest.TempPathFactory) -> Kept:
    """A user's git checkout of upstream at v0.9.0 on its main branch (neuralgentics/), installed
    editable into a virtualenv beside it (venv/), made once for the module."""
    home = tmp_path_factory.mktemp("checkout") / "user"
    user = home / "neuralgentics"
    subprocess.run(["git", "clone", "-q", str(upstream), str(user)], check=True, timeout=120)
    git(user, "reset", "-q", "--hard", "v0.9.0")
    git(user, "config", "user.email", "u@example.invalid")
    git(user, "config", "user.name", "u")
    py = new_venv(home / "venv")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PIP_NO_DEPS", "1")
        pip_install(py, "-e", str(user))
    kept = Kept(home)
    kept.keep()
    return kept


@pytest.fixture
def checkout(kept_checkout: Kept, no_deps: None) -> tuple[Path, str]:
    """That checkout and its virtualenv as made (each test its own: restored from the copy)."""
    kept_checkout.restore()
    user, py = (
        kept_checkout.path / "neuralgentics",
        str(kept_checkout.path / "venv" / "bin" / "python"),
    )
    assert str(installed_version(py)) == "0.9.0" and install_kind(py) == ("git", user)
    return user, py


def test_a_git_checkout_moves_to_the_release_tag_and_is_reinstalled(
    upstream: Path, checkout: tuple[Path, str]
) -> None:
    user, py = checkout
    feed = str(upstream / "dist-0.9.1" / "release.json")
    assert update(feed, py) == f"updated 0.9.0 -> 0.9.1 ({user} at v0.9.1)"
    assert git(user, "rev-parse", "HEAD") == git(user, "rev-parse", "v0.9.1^{commit}")
    assert str(installed_version(py)) == "0.9.1"
    assert git(user, "symbolic-ref", "--short", "HEAD") == git(
        upstream, "symbolic-ref", "--short", "HEAD"
    )


def test_a_git_checkout_needs_no_feed_it_takes_the_highest_release_tag(
    checkout: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from neuralgentics.config import get_settings

    user, py = checkout
    monkeypatch.delenv("NEURALGENTICS_RELEASES_URL", raising=False)
    get_settings.cache_clear()
    try:
        assert update(python=py) == f"updated 0.9.0 -> 0.9.1 ({user} at v0.9.1)"
    finally:
        get_settings.cache_clear()
    assert str(installed_version(py)) == "0.9.1"


def test_a_checkout_with_local_changes_or_commits_is_left_alone_with_the_commands_to_run(
    upstream: Path, checkout: tuple[Path, str]
) -> None:
    user, py = checkout
    feed = str(upstream / "dist-0.9.1" / "release.json")
    head = git(user, "rev-parse", "HEAD")
    readme = user / "README.md"
    readme.write_text(readme.read_text() + "\nmy note\n")
    with pytest.raises(
        UpdateError, match=r"has uncommitted changes \(README.md\): commit or stash them"
    ) as err:
        update(feed, py)
    assert f"git -C {user} merge --ff-only v0.9.1" in str(err.value)
    assert git(user, "rev-parse", "HEAD") == head and str(installed_version(py)) == "0.9.0"

    git(user, "commit", "-qam", "my local change")
    with pytest.raises(
        UpdateError, match=rf"has commits that v0.9.1 does not.*git -C {user} rebase v0.9.1"
    ):
        update(feed, py)
    assert git(user, "rev-parse", "HEAD^") == head and str(installed_version(py)) == "0.9.0"
