"""scripts/build.sh and scripts/release.sh in a throwaway clone of this repository."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from oc_support import REPO


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    dest = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(dest)], check=True, timeout=120)
    # the npm tools of the main tree, kept out of the clone's status
    (dest / "node_modules").symlink_to(REPO / "node_modules", target_is_directory=True)
    with (dest / ".git" / "info" / "exclude").open("a") as f:
        f.write("node_modules\n")
    subprocess.run(
        ["git", "-C", str(dest), "config", "user.email", "t@example.invalid"], check=True
    )
    subprocess.run(["git", "-C", str(dest), "config", "user.name", "t"], check=True)
    return dest


def run(script: str, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", f"scripts/{script}", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHON": sys.executable},
    )


def version_of(repo: Path) -> str:
    return subprocess.run(
        ["bash", "scripts/version.sh"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()


def test_release_builds_wheel_sdist_checksums_notes_and_the_feed_and_tags(clone: Path) -> None:
    version = version_of(clone)
    res = run("release.sh", clone, version)
    assert res.returncode == 0, res.stdout + res.stderr
    dist = clone / "dist"
    wheel = dist / f"neuralgentics-{version}-py3-none-any.whl"
    sdist = dist / f"neuralgentics-{version}.tar.gz"
    names = zipfile.ZipFile(wheel).namelist()
    assert "neuralgentics/opencode/plugin/neuralgentics.ts" in names
    assert "neuralgentics/opencode/plugin/neuralgentics-brand.tsx" in names
    import tarfile

    assert f"neuralgentics-{version}/src/neuralgentics/opencode/plugin/neuralgentics-brand.tsx" in (
        tarfile.open(sdist).getnames()
    )
    sums = subprocess.run(
        ["sha256sum", "-c", "SHA256SUMS"], cwd=dist, capture_output=True, text=True
    )
    assert (
        sums.returncode == 0
        and f"{wheel.name}: OK" in sums.stdout
        and f"{sdist.name}: OK" in sums.stdout
    )
    notes = (dist / "RELEASE_NOTES.md").read_text()
    assert (
        notes.startswith("- First version") and "## " not in notes
    )  # the CHANGELOG section, alone
    release = json.loads((dist / "release.json").read_text())
    assert release["tag_name"] == f"v{version}" and release["body"] == notes
    assets = {a["name"]: a for a in release["assets"]}
    assert set(assets) == {wheel.name, sdist.name, "SHA256SUMS", "RELEASE_NOTES.md"}
    for name, a in assets.items():
        assert (
            a["browser_download_url"] == name
        )  # relative to release.json: dist/ can be copied anywhere
        assert a["digest"] == "sha256:" + hashlib.sha256((dist / name).read_bytes()).hexdigest()
    tags = subprocess.run(
        ["git", "-C", str(clone), "tag"], capture_output=True, text=True
    ).stdout.split()
    assert f"v{version}" in tags

    again = run("release.sh", clone, version)
    assert again.returncode == 2 and f"tag v{version} already exists" in again.stderr


def test_release_refuses_a_version_that_is_not_declared_or_a_dirty_tree(clone: Path) -> None:
    res = run("release.sh", clone, "9.9.9")
    assert res.returncode == 2 and "not the tree's version" in res.stderr
    (clone / "scratch.txt").write_text("x")
    res = run("release.sh", clone, version_of(clone))
    assert res.returncode == 2 and "uncommitted changes" in res.stderr
    assert not (clone / "dist").exists()


def test_release_refuses_a_version_without_changelog_notes(clone: Path) -> None:
    changelog = clone / "CHANGELOG.md"
    changelog.write_text(changelog.read_text().replace("## 0.1.0", "## 0.0.9"))
    subprocess.run(["git", "-C", str(clone), "commit", "-qam", "no notes"], check=True)
    res = run("release.sh", clone, version_of(clone))
    assert res.returncode == 2 and "CHANGELOG.md has no '## 0.1.0' section" in res.stderr
    assert not (clone / "dist").exists()
    assert (
        "v0.1.0"
        not in subprocess.run(
            ["git", "-C", str(clone), "tag"], capture_output=True, text=True
        ).stdout
    )
