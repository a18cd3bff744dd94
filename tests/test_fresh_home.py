"""scripts/fresh-home.sh, which `scripts/test.sh` sources under CI=true (what `.ci/run` sets)
or NEURALGENTICS_TEST_FRESH=1: a new, empty HOME, no model cache from before, and the pip and
npm download caches (and their user config) still the user's own."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _sourced(home: Path, tmp: Path, **extra: str) -> tuple[dict[str, str], str]:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "NEURALGENTICS_MODEL_CACHE": str(home / "old-models"),
        **extra,
    }
    done = subprocess.run(
        ["bash", "-c", ". scripts/fresh-home.sh && env -0"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    pairs = (item.split("=", 1) for item in done.stdout.decode().split("\0") if "=" in item)
    return dict(pairs), done.stderr.decode()


def test_home_moves_to_an_empty_temporary_dir_and_the_download_caches_stay(tmp_path):
    home = tmp_path / "me"
    (home / ".config" / "pip").mkdir(parents=True)
    (home / ".config" / "pip" / "pip.conf").write_text("[global]\ntimeout = 30\n")
    (home / ".cache" / "neuralgentics").mkdir(parents=True)  # an earlier run's model cache
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    assert shutil.which("npm"), "npm is part of the test install (scripts/install.sh --test)"
    (home / ".npmrc").write_text(f"cache={home / 'npm-cache'}\n")

    env, said = _sourced(home, tmp)

    moved = Path(env["HOME"])
    assert moved.parent.parent == tmp and moved.name == "home"
    assert "fresh machine" in said and env["HOME"] in said
    for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        assert Path(env[var]).is_relative_to(moved), var
    assert "NEURALGENTICS_MODEL_CACHE" not in env
    # the user's pip cache and config, by name, now that HOME no longer leads to them
    assert env["PIP_CACHE_DIR"] == str(home / ".cache" / "pip")
    assert env["PIP_CONFIG_FILE"] == str(home / ".config" / "pip" / "pip.conf")
    assert env["npm_config_cache"] == str(home / "npm-cache")
    assert env["npm_config_userconfig"] == str(home / ".npmrc")
    # the temporary home went with the shell that made it
    assert not moved.exists() and list(tmp.iterdir()) == []


def test_caches_named_by_the_caller_are_kept(tmp_path):
    home, tmp = tmp_path / "me", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    env, _ = _sourced(home, tmp, PIP_CACHE_DIR="/var/cache/pip-ci")
    assert env["PIP_CACHE_DIR"] == "/var/cache/pip-ci"
    assert "PIP_CONFIG_FILE" not in env  # none to keep


def test_ci_runs_exactly_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    command = "bash scripts/test.sh"
    assert f"\n{command}" in readme
    lines = [
        line.strip()
        for line in (ROOT / ".ci" / "run").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert lines[-1] == command and "export CI=true" in lines
