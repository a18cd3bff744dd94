"""OpenCode source trees for the patch tests, built from fixtures/upstream-files.json (see
test_patches.py for why the upstream files themselves are not stored)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

from oc_support import HERE, REPO

RECORD = json.loads((HERE / "fixtures" / "upstream-files.json").read_text())
TREES = sorted(RECORD["trees"])
BRANDED = "<b>Neuralgentics</b> powered by <b>Open</b>"


def patch_for(layout: str) -> Path:
    return (
        REPO
        / "patches"
        / ("rebrand.patch" if layout == "packages/tui" else "legacy-tui-layout/rebrand.patch")
    )


def preimage(patch: Path, path: str) -> list[str]:
    """The lines of ``path``'s hunk before the patch: context and removed lines."""
    lines, inside, out = patch.read_text().splitlines(), False, []
    for line in lines:
        if line.startswith("+++ b/"):
            inside = line[6:] == path
        elif line.startswith("diff --git"):
            inside = False
        elif inside and line[:1] in (" ", "-") and not line.startswith("---"):
            out.append(line[1:])
    assert out, f"{patch} has no hunk for {path}"
    return out


def build_tree(name: str, dest: Path) -> Path:
    tree = RECORD["trees"][name]
    real = os.environ.get("NEURALGENTICS_UPSTREAM_FILES")
    for path, f in tree["files"].items():
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if real:
            data = (Path(real) / f["commit"] / path).read_bytes()
            assert hashlib.sha256(data).hexdigest() == f["sha256"], (
                f"{path}@{f['commit']} is not the recorded file"
            )
        else:
            hunk = preimage(patch_for(tree["layout"]), path)
            body = [f"// upstream line {i} (not stored here)" for i in range(1, f["lines"] + 1)]
            start = f["hunk_at"] - 1
            body[start : start + len(hunk)] = hunk
            data = ("\n".join(body) + "\n").encode()
        target.write_bytes(data)
    subprocess.run(["git", "init", "-q", str(dest)], check=True)  # a real checkout is a git repo
    return dest
