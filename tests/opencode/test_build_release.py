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
    subprocess.run(["git", "-C", str(dest), "config", "user.email", "t@example.invalid"], check=True)
    subprocess.run(["git", "-C", str(dest), "config", "user.name", "t"], check=True)
    return dest


def run(script: str, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", f"scripts/{script}", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHON": sys.executable})


def version_of(repo: Path) -> str:
    import tomllib

    return tomllib.loads((repo / "pyproject.toml").read_text())["project"]["version"]


def test_release_builds_the_wheel_with_the_plugin_and_tags(clone: Path) -> None:
    version = version_of(clone)
    res = run("release.sh", clone, version)
    assert res.returncode == 0, res.stdout + res.stderr
    wheel = clone / "dist" / f"neuralgentics-{version}-py3-none-any.whl"
    assert "neuralgentics/opencode/plugin/neuralgentics.ts" in zipfile.ZipFile(wheel).namelist()
    release = json.loads((clone / "dist" / "release.json").read_text())
    assert release["tag_name"] == f"v{version}"
    assert release["assets"][0]["digest"] == "sha256:" + hashlib.sha256(wheel.read_bytes()).hexdigest()
    tags = subprocess.run(["git", "-C", str(clone), "tag"], capture_output=True, text=True).stdout.split()
    assert f"v{version}" in tags

    again = run("release.sh", clone, version)
    assert again.returncode == 2 and f"tag v{version} already exists" in again.stderr


def test_release_refuses_a_version_that_is_not_declared_or_a_dirty_tree(clone: Path) -> None:
    res = run("release.sh", clone, "9.9.9")
    assert res.returncode == 2 and "not pyproject.toml's version" in res.stderr
    (clone / "scratch.txt").write_text("x")
    res = run("release.sh", clone, version_of(clone))
    assert res.returncode == 2 and "uncommitted changes" in res.stderr
    assert not (clone / "dist").exists()
