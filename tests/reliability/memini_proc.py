"""A real `neuralgentics serve` process for reliability tests and bench/load.py."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
from support.ports import free_port
from support.token import owner_token

from reliability import loopback

EXE = [sys.executable, "-m", "neuralgentics.cli"]


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """The caller's environment minus every NEURALGENTICS_ setting, plus a private home."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEURALGENTICS_")}
    env["NEURALGENTICS_HOME"] = str(home)
    env["NEURALGENTICS_CONFIG_DIR"] = str(home / "config")
    env.update(extra)
    return env


@dataclass
class Memini:
    url: str
    proc: subprocess.Popen[bytes]
    log: Path


# URL -> the owner token of the memini-core serving there (NEURALGENTICS_TOKEN, or the token
# file `serve` created in its config dir)
TOKENS: dict[str, str] = {}


def auth(url: str) -> dict[str, str]:
    """The bearer header for the service at `url` ({} for one this module did not start)."""
    token = TOKENS.get(url.rstrip("/"))
    return {"Authorization": f"Bearer {token}"} if token else {}


def wait_healthy(
    url: str, proc: subprocess.Popen[bytes], timeout: float = 90.0, ok: tuple[int, ...] = (200,)
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"memini-core exited with {proc.returncode} before answering")
        try:
            if loopback.get(url + "/health", timeout=5).status_code in ok:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise TimeoutError(f"memini-core at {url} did not answer /health within {timeout} s")


def start(
    env: dict[str, str],
    log: Path,
    port: int | None = None,
    ok: tuple[int, ...] = (200,),
    access_log: Path | None = None,
) -> Memini:
    """`access_log`: where uvicorn's access lines (stdout) go; by default nowhere."""
    port = port or free_port()
    proc = subprocess.Popen(
        [*EXE, "serve", "--port", str(port)],
        env=env,
        stdout=access_log.open("ab") if access_log else subprocess.DEVNULL,
        stderr=log.open("ab"),
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, ok=ok)
        TOKENS[url] = env.get("NEURALGENTICS_TOKEN") or owner_token(
            Path(env["NEURALGENTICS_CONFIG_DIR"])
        )
    except BaseException:
        stop(proc)
        raise
    return Memini(url, proc, log)


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


@contextlib.contextmanager
def running(env: dict[str, str], log: Path) -> Iterator[Memini]:
    m = start(env, log)
    try:
        yield m
    finally:
        stop(m.proc)
