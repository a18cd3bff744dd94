"""`opencode uninstall` is an exact reversal even after OpenCode has started in the project
(issue 32 item 1): OpenCode adds ``"$schema"`` to opencode.json and writes ``.opencode/.gitignore``
without a final newline on its first start; neither may survive uninstall."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from oc_support import node_tool

from neuralgentics.config import Settings
from neuralgentics.opencode.installer import install, uninstall


def git(project: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=project,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def start_opencode(project: Path) -> None:
    """The real binary, started in the project: it loads (and amends) the project's config."""
    proc = subprocess.run(
        [node_tool("opencode"), "debug", "config"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "OPENCODE_DISABLE_MODELS_FETCH": "1", "PWD": str(project)},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_uninstall_after_opencode_ran_leaves_git_status_clean(project: Path) -> None:
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-qm", "init")
    report = install(Settings(), project)
    assert any("opencode.json" in w for w in report.written)
    start_opencode(project)
    # OpenCode did amend what install wrote: the test exercises the case, not a quiet one
    assert "$schema" in json.loads((project / "opencode.json").read_text())
    assert not (project / ".opencode" / ".gitignore").read_text().endswith("\n")

    report = uninstall(Settings(), project)
    assert not any("later edits" in r for r in report.removed), report.removed
    assert git(project, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_users_own_config_comes_back_byte_for_byte_after_opencode_ran(project: Path) -> None:
    mine = '{\n  "theme":   "tokyonight"\n}\n'  # odd spacing: bytes, not just keys
    (project / "opencode.json").write_text(mine)
    install(Settings(), project)
    start_opencode(project)
    uninstall(Settings(), project)
    assert (project / "opencode.json").read_text() == mine


def test_a_real_later_edit_is_still_kept(project: Path) -> None:
    install(Settings(), project)
    start_opencode(project)
    doc = json.loads((project / "opencode.json").read_text())
    doc["theme"] = "tokyonight"
    (project / "opencode.json").write_text(json.dumps(doc))
    report = uninstall(Settings(), project)
    assert any("later edits kept" in r for r in report.removed)
    left = json.loads((project / "opencode.json").read_text())
    assert left["theme"] == "tokyonight" and "mcp" not in left
