"""scripts/apply-patches.sh and scripts/verify.sh on OpenCode trees of both source layouts.

fixtures/upstream-files.json records, for three upstream trees (two commits of the packages/tui
layout that OpenCode 1.18 is built from, one of the earlier layout), each file's commit, the
sha256 of its bytes, its line count and the line where the patch's hunk starts. The upstream
files are not stored in this repository. With NEURALGENTICS_UPSTREAM_FILES pointing at a folder
of ``<commit>/<path>`` files (their sha256 checked against the record), the tests run on them;
otherwise on stand-ins built from the record: the same length, and the lines the patch itself
carries (its context and the brand line) at the recorded position, so a hunk that applies at an
offset upstream does so here too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from oc_support import REPO
from upstream_trees import BRANDED, RECORD, TREES, build_tree, patch_for


def run(script: str, checkout: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(REPO / "scripts" / script), *args, str(checkout)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )


@pytest.fixture(params=TREES)
def tree(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    return build_tree(request.param, tmp_path / "opencode")


def files_of(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*.tsx"))


def test_apply_brands_every_file_of_the_layout_and_verify_confirms(tree: Path) -> None:
    before = {p: p.read_text() for p in files_of(tree)}
    res = run("apply-patches.sh", tree)
    assert res.returncode == 0, res.stderr
    assert "applied: rebrand.patch" in res.stdout and "layout: packages/" in res.stdout
    for p, text in before.items():
        after = p.read_text()
        assert BRANDED in after and after.count("<b>Open</b>") == 1
        assert after.replace("<b>Neuralgentics</b> powered by ", "") == text  # nothing else changed
    res = run("verify.sh", tree)
    assert res.returncode == 0 and "ok: rebrand.patch" in res.stdout


def test_each_layout_gets_its_own_patch() -> None:
    assert {t["layout"] for t in RECORD["trees"].values()} == {
        "packages/tui",
        "packages/opencode/src/cli/cmd/tui",
    }
    assert "packages/tui/src/routes/session/sidebar.tsx" in patch_for("packages/tui").read_text()
    assert "+++ b/packages/tui/" not in patch_for("legacy").read_text()
    assert "+++ b/packages/opencode/src/cli/cmd/tui/" in patch_for("legacy").read_text()


def test_check_mode_changes_nothing(tree: Path) -> None:
    before = {p: p.read_bytes() for p in files_of(tree)}
    res = run("apply-patches.sh", tree, "--check")
    assert res.returncode == 0 and "applies: rebrand.patch" in res.stdout
    assert {p: p.read_bytes() for p in files_of(tree)} == before


def test_apply_twice_is_success_and_changes_nothing(tree: Path) -> None:
    assert run("apply-patches.sh", tree).returncode == 0
    once = {p: p.read_bytes() for p in files_of(tree)}
    res = run("apply-patches.sh", tree)
    assert res.returncode == 0 and "already applied: rebrand.patch" in res.stdout
    assert {p: p.read_bytes() for p in files_of(tree)} == once


def test_verify_fails_on_an_unpatched_tree_naming_patch_and_file(tree: Path) -> None:
    res = run("verify.sh", tree)
    assert res.returncode == 1
    assert "NOT APPLIED: rebrand.patch" in res.stderr and "footer.tsx" in res.stderr


def test_conflict_is_a_clear_failure_naming_the_file_and_changes_nothing(tree: Path) -> None:
    footer = next(p for p in files_of(tree) if p.name == "footer.tsx")
    # upstream moved on: the brand line no longer matches the patch's context
    footer.write_text(footer.read_text().replace("<b>Open</b>", "<b>open</b>"))
    before = {p: p.read_bytes() for p in files_of(tree)}
    res = run("apply-patches.sh", tree)
    assert res.returncode == 1
    assert "conflict: rebrand.patch" in res.stderr and "footer.tsx" in res.stderr
    assert "nothing was changed" in res.stderr
    assert {p: p.read_bytes() for p in files_of(tree)} == before


def test_a_later_conflicting_patch_stops_all_of_them(tmp_path: Path) -> None:
    tree = build_tree("packages-tui@0d58cadd", tmp_path / "opencode")
    pdir = tmp_path / "patches"
    pdir.mkdir()
    shutil.copy(REPO / "patches" / "rebrand.patch", pdir / "0001-rebrand.patch")
    (pdir / "0002-other.patch").write_text(
        "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n"
        "@@ -1 +1 @@\n-upstream readme\n+neuralgentics readme\n"
    )
    before = {p: p.read_bytes() for p in files_of(tree)}
    res = run("apply-patches.sh", tree, PATCHES_DIR=str(pdir))
    assert (
        res.returncode == 1
        and "conflict: 0002-other.patch" in res.stderr
        and "README.md" in res.stderr
    )
    assert {p: p.read_bytes() for p in files_of(tree)} == before


def test_a_missing_checkout_or_an_unknown_layout_is_refused(tmp_path: Path) -> None:
    res = run("apply-patches.sh", tmp_path / "nope")
    assert res.returncode == 2 and "is not a directory" in res.stderr
    (tmp_path / "elsewhere" / "packages" / "app").mkdir(parents=True)
    for script in ("apply-patches.sh", "verify.sh"):
        res = run(script, tmp_path / "elsewhere")
        assert (
            res.returncode == 2
            and "has neither packages/tui/src nor packages/opencode/src/cli/cmd/tui" in res.stderr
        )


@pytest.mark.opt_in
@pytest.mark.skipif(
    not os.environ.get("NEURALGENTICS_TEST_OPENCODE_CHECKOUT"),
    reason="set NEURALGENTICS_TEST_OPENCODE_CHECKOUT to a real OpenCode checkout",
)
def test_the_patches_apply_to_a_real_checkout() -> None:
    res = run(
        "apply-patches.sh", Path(os.environ["NEURALGENTICS_TEST_OPENCODE_CHECKOUT"]), "--check"
    )
    assert res.returncode == 0, res.stdout + res.stderr
