"""Helpers and fixtures of the OpenCode-integration tests: services on free loopback ports, isolated homes."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.cli import CliResult, neuralgentics
from support.ports import free_port
from support.token import owner_token

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
NODE_BIN = REPO / "node_modules" / ".bin"

# What every real `opencode` of these tests runs with: no update check, no fetch of the model
# catalog (models.dev) and an empty catalog file instead of the built-in one. The tests' only
# provider is the scripted model their opencode.json declares in full, so the catalog is never
# consulted; building the built-in one (thousands of models) cost about 3 s of each start.
OPENCODE_ENV = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_MODELS_PATH": str(HERE / "fixtures" / "opencode-models.json"),
}


def opencode_run(
    opencode: Path, project: Path, env: Mapping[str, str], *args: str, timeout: float = 300
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """``opencode run --format json`` with the fake LLM's model in ``project`` (``OPENCODE_ENV``
    added to ``env``), and the JSON events it printed."""
    proc = subprocess.run(
        [str(opencode), "run", "--format", "json", "--model", "fake/fake-model", *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**env, **OPENCODE_ENV, "PWD": str(project)},
    )
    events = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
    return proc, events


def wait_http(url: str, proc: subprocess.Popen, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args} exited with {proc.returncode} before answering {url}")
        try:
            if httpx.get(url, timeout=1.0).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout}s")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def warm_up(url: str, token: str) -> None:
    """Load the embedding model and classifier once, as `neuralgentics up` leaves a service."""
    auth = {"Authorization": f"Bearer {token}"}
    httpx.post(
        url + "/memory/query", json={"query": "warm up", "top_k": 1}, headers=auth, timeout=120
    ).raise_for_status()
    httpx.post(
        url + "/orchestrator/route", json={"task": "warm up the model"}, headers=auth, timeout=120
    ).raise_for_status()


@pytest.fixture(scope="session")
def shared_models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One model cache for the whole run: the embedding graph is built into it once."""
    return tmp_path_factory.mktemp("ng-models")


def env_under(root: Path, models: Path) -> dict[str, str]:
    """NEURALGENTICS_* and HOME/XDG dirs under root (created), the model cache shared."""
    env = {
        "NEURALGENTICS_HOME": str(root / "ng-home"),
        "NEURALGENTICS_CONFIG_DIR": str(root / "ng-config"),
        "HOME": str(root / "home"),
        "XDG_CONFIG_HOME": str(root / "home" / ".config"),
        "XDG_DATA_HOME": str(root / "home" / ".local" / "share"),
        "XDG_CACHE_HOME": str(root / "home" / ".cache"),
        "XDG_STATE_HOME": str(root / "home" / ".local" / "state"),
        "NEURALGENTICS_MODEL_CACHE": str(models),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    for k, v in env.items():
        if k.startswith(("NEURALGENTICS_", "HOME", "XDG_")):
            Path(v).mkdir(parents=True, exist_ok=True)
    return env


@pytest.fixture
def isolated_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared_models_dir: Path
) -> dict[str, str]:
    """A temporary home for this test, in this process's environment and its children's."""
    from neuralgentics.config import get_settings

    env = env_under(tmp_path, shared_models_dir)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    get_settings.cache_clear()
    yield env
    get_settings.cache_clear()


@pytest.fixture
def project(tmp_path: Path, isolated_env: dict[str, str]) -> Path:
    """A project directory holding one source file, in an isolated home."""
    p = tmp_path / "proj"
    p.mkdir()
    (p / "main.py").write_text("print('hi')\n")
    return p


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file's bytes and every directory under root (None marks a directory)."""
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


def opencode_json(project: Path) -> dict[str, Any]:
    """The project's opencode.json."""
    return json.loads((project / "opencode.json").read_text())


@pytest.fixture(scope="session")
def service(
    tmp_path_factory: pytest.TempPathFactory, shared_models_dir: Path
) -> Iterator[tuple[str, str, Path]]:
    """(base URL, kind, token file) of one real memini-core for the run (`neuralgentics serve`,
    SQLite, own temp home; the token file is the one `serve` created in its config dir)."""
    env = env_under(tmp_path_factory.mktemp("memini-service"), shared_models_dir)
    port = free_port()
    cmd = [str(Path(sys.executable).parent / "neuralgentics"), "serve", "--port", str(port)]
    proc = subprocess.Popen(cmd, env={**os.environ, **env}, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(url + "/health", proc)
        token_file = Path(env["NEURALGENTICS_CONFIG_DIR"]) / "token"
        warm_up(url, owner_token(token_file.parent))
        yield url, "memini-core", token_file
    finally:
        stop(proc)


def node_tool(name: str) -> str:
    path = NODE_BIN / name
    if not path.exists():
        pytest.fail(
            f"{path} is missing: run `npm install` in {REPO} (scripts/install.sh --test does)"
        )
    return str(path)


def which_or_fail(name: str) -> str:
    found = shutil.which(name)
    if not found:
        pytest.fail(f"`{name}` is not on PATH")
    return found


NEURALGENTICS = str(Path(sys.executable).parent / "neuralgentics")


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def start_up(
    env: dict[str, str], port: int, broker_port: int
) -> tuple[subprocess.Popen[str], list[str]]:
    log = Path(env["NEURALGENTICS_HOME"]) / "up.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as err:
        proc = subprocess.Popen(
            [NEURALGENTICS, "up", "--port", str(port), "--broker-port", str(broker_port)],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env={**os.environ, **env},
        )
    lines: list[str] = []
    deadline = time.monotonic() + 120
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line.strip())
        if line.startswith("ready"):
            return proc, lines
    stop(proc)
    pytest.fail(f"`neuralgentics up` did not get ready: {lines}\n{log.read_text()[-3000:]}")


def exactly(env: Mapping[str, str]) -> dict[str, str | None]:
    """``env`` for an in-process command (tests/support/cli.py) as a process would get it: every
    variable of this process that ``env`` lacks is unset for the command."""
    return {**{k: None for k in os.environ if k not in env}, **env}


def opencode_install(project: Path, env: Mapping[str, str], *options: str) -> CliResult:
    """``neuralgentics opencode install --project PROJECT OPTIONS`` with ``env`` as its whole
    environment, through the Typer app the console script runs (in-process, tests/support/cli.py: a
    process of its own cost ~2 s); it must succeed."""
    res = neuralgentics(
        "opencode", "install", "--project", str(project), *options, env=exactly(env)
    )
    assert res.returncode == 0, res.stderr
    return res
