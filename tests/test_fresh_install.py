"""`pip install .` with no extras, an empty model cache and a fresh HOME gives a working service.

The issue this guards (#15): the default install pulled torch (6.3 GB) and still answered 500 on
the first add until a separate export step ran. Here a new virtualenv gets the project as a
user would install it (a built wheel, not the editable source tree, so package data counts),
with the current pip, then `neuralgentics serve` adds and finds a memory over HTTP with the
credential it made in the new config dir. Only pip's download cache is shared with the machine;
HOME, the XDG dirs, the config dir and the model cache are new and empty.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from support.ports import free_port as _free_port

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def _pip_cache() -> str:
    out = subprocess.run(
        [sys.executable, "-m", "pip", "cache", "dir"], capture_output=True, text=True, timeout=60
    )
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else ""


def _dir_mib(path: Path) -> float:
    return (
        sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink()) / 2**20
    )


def _fresh_env(root: Path) -> dict[str, str]:
    home = root / "home"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("NEURALGENTICS_", "XDG_", "VIRTUAL_ENV", "PYTHON", "HF_"))
    }
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        NEURALGENTICS_HOME=str(root / "ng-home"),
        NEURALGENTICS_CONFIG_DIR=str(root / "ng-config"),
        NEURALGENTICS_MODEL_CACHE=str(root / "empty-model-cache"),
    )
    home.mkdir(parents=True)
    return env


def test_pip_install_without_extras_serves_and_finds_a_memory(tmp_path: Path) -> None:
    env = _fresh_env(tmp_path)
    venv = tmp_path / "venv"
    pip_env = dict(env, PIP_DISABLE_PIP_VERSION_CHECK="1")
    if cache := _pip_cache():
        pip_env["PIP_CACHE_DIR"] = cache  # downloads only; nothing else of the machine's
    # The new venv gets the current pip from the index, as `python -m venv --upgrade-deps`
    # would, but without first unpacking the pip bundled with Python: this pip only puts pip
    # into the venv. An old bundled pip (23.x) spends most of the install checking the wheel
    # tags of every file on every project page (tens of seconds); the install below is the
    # same `pip install <source>` either way.
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    python = venv / "bin" / "python"
    bootstrap = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "pip"],
        env=pip_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bootstrap.returncode == 0, bootstrap.stderr[-3000:]
    # a copy of the source files (tracked or new, not ignored): the build neither sees the
    # worktree's .venv, caches and egg-info nor writes into the worktree
    source = tmp_path / "source"
    files = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=REPO,
            capture_output=True,
            check=True,
            timeout=60,
        )
        .stdout.decode()
        .split("\0")
    )
    for rel in filter(None, files):
        if (REPO / rel).is_file():
            (source / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, source / rel)
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", str(source)],
        env=pip_env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert install.returncode == 0, install.stderr[-3000:]

    no_torch = subprocess.run(
        [str(python), "-c", "import importlib.util as u; print(u.find_spec('torch') is None)"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert no_torch.stdout.strip() == "True", "the default install must not bring torch"
    assert _dir_mib(venv) < 1024, f"default venv is {_dir_mib(venv):.0f} MiB (target < 1 GiB)"
    # every `broker add` example of the README runs after this install alone (issue 16, item 9)
    examples = re.findall(r"broker add \S+ -- (\S+)", (REPO / "README.md").read_text())
    assert examples
    for command in examples:
        assert (venv / "bin" / command).exists(), f"README's `broker add … -- {command}`: missing"

    port = _free_port()
    log = (tmp_path / "serve.log").open("w")
    # no NEURALGENTICS_TOKEN: serve makes the local credential in the fresh config dir
    proc = subprocess.Popen(
        [str(venv / "bin" / "neuralgentics"), "serve", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=tmp_path,
    )
    token_file = tmp_path / "ng-config" / "token"
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as http:
            deadline = time.monotonic() + 90
            while True:
                try:
                    if http.get("/health").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert proc.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
                assert time.monotonic() < deadline, "serve did not answer /health"
                time.sleep(0.3)
            http.headers["Authorization"] = f"Bearer {token_file.read_text().strip()}"
            added = http.post(
                "/memory/add",
                json={
                    "content": "The staging database moved to port 6543 last week",
                    "project": "p",
                },
            )
            assert added.status_code == 201, added.text
            http.post(
                "/memory/add", json={"content": "Lunch is at noon on Fridays", "project": "p"}
            )
            found = http.post(
                "/memory/query", json={"query": "which port does staging use?", "top_k": 2}
            )
            assert found.status_code == 200, found.text
            hits = found.json()["hits"]
            assert hits and "6543" in hits[0]["memory"]["content"]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
    # the graph was built into the empty cache on first use; nothing went to the real HOME's
    built = list((tmp_path / "empty-model-cache").glob("all-MiniLM-L6-v2-packaged-*/model.onnx"))
    assert len(built) == 1
