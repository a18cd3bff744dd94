"""The plugin's one token-file routine (ng/token_file.ts), which the TUI brand imports too:
its unit tests under Node, and the installer copying it beside the brand."""

from __future__ import annotations

import subprocess
from pathlib import Path

from oc_support import node_tool, which_or_fail

from neuralgentics.opencode import tui

HERE = Path(__file__).parent
REPO = HERE.parents[1]


def test_the_token_file_routine_under_node() -> None:
    node_tool("tsx")
    proc = subprocess.run(
        [which_or_fail("node"), "--import", "tsx", "--test", str(HERE / "token_file.test.ts")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_brand_imports_only_what_the_installer_copies_beside_it(tmp_path: Path) -> None:
    files = dict(tui.brand_files(tmp_path))
    brand = files[tui.brand_file(tmp_path)]
    for rel in tui.BRAND_HELPERS:
        assert f'from "./{rel}"' in brand
        assert tmp_path / tui.BRAND_DIR / rel in files
    # the brand no longer has a token-file routine of its own that could drift
    assert "XDG_CONFIG_HOME" not in brand and "Application Support" not in brand
