"""scripts/apply-patches.sh and scripts/verify.sh on a fixture tree with the upstream lines."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from oc_support import HERE, REPO

FOOTER = "packages/opencode/src/cli/cmd/tui/feature-plugins/sidebar/footer.tsx"
BRANDED = "<b>Neuralgentics</b> powered by <b>Open</b>"


def run(script: str, checkout: Path, **env: str) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run(["bash", str(REPO / "scripts" / script), str(checkout)], capture_output=True,
                          text=True, timeout=60, env={**os.environ, **env})


# opencode-tree: the footer as opencode 1.18.33 ships it (upstream 45a82d0d, path line above the
# brand); opencode-tree-04086d2a: the earlier layout. Each holds the upstream lines around the brand.
LAYOUTS = ["opencode-tree", "opencode-tree-04086d2a"]


@pytest.fixture(params=LAYOUTS)
def tree(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    dest = tmp_path / "opencode"
    shutil.copytree(HERE / "fixtures" / request.param, dest)
    return dest


def test_apply_brands_the_footer_and_verify_confirms(tree: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tree)], check=True)  # a real checkout is a git repo
    res = run("apply-patches.sh", tree)
    assert res.returncode == 0, res.stderr
    assert "applied: rebrand.patch" in res.stdout
    text = (tree / FOOTER).read_text()
    assert BRANDED in text and text.count("<b>Open</b>") == 1
    res = run("verify.sh", tree)
    assert res.returncode == 0 and "ok: rebrand.patch" in res.stdout


def test_apply_twice_is_success_and_changes_nothing(tree: Path) -> None:
    assert run("apply-patches.sh", tree).returncode == 0
    once = (tree / FOOTER).read_bytes()
    res = run("apply-patches.sh", tree)
    assert res.returncode == 0 and "already applied: rebrand.patch" in res.stdout
    assert (tree / FOOTER).read_bytes() == once


def test_verify_fails_on_an_unpatched_tree_naming_patch_and_file(tree: Path) -> None:
    res = run("verify.sh", tree)
    assert res.returncode == 1
    assert "NOT APPLIED: rebrand.patch" in res.stderr and FOOTER in res.stderr


def test_conflict_is_a_clear_failure_naming_the_file_and_changes_nothing(tree: Path) -> None:
    footer = tree / FOOTER
    # upstream moved on: the brand line no longer matches the patch's context
    footer.write_text(footer.read_text().replace("<b>Open</b>", "<b>open</b>"))
    before = footer.read_bytes()
    res = run("apply-patches.sh", tree)
    assert res.returncode == 1
    assert "conflict: rebrand.patch" in res.stderr and FOOTER in res.stderr
    assert "nothing was changed" in res.stderr
    assert footer.read_bytes() == before


def test_a_later_conflicting_patch_stops_all_of_them(tree: Path, tmp_path: Path) -> None:
    pdir = tmp_path / "patches"
    pdir.mkdir()
    shutil.copy(REPO / "patches" / "rebrand.patch", pdir / "0001-rebrand.patch")
    (pdir / "0002-other.patch").write_text(
        "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n"
        "@@ -1 +1 @@\n-upstream readme\n+neuralgentics readme\n"
    )
    before = (tree / FOOTER).read_bytes()
    res = run("apply-patches.sh", tree, PATCHES_DIR=str(pdir))
    assert res.returncode == 1 and "conflict: 0002-other.patch" in res.stderr and "README.md" in res.stderr
    assert (tree / FOOTER).read_bytes() == before


def test_a_missing_checkout_is_refused(tmp_path: Path) -> None:
    res = run("apply-patches.sh", tmp_path / "nope")
    assert res.returncode == 2 and "is not a directory" in res.stderr
