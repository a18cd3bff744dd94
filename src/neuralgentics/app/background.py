"""`neuralgentics up --detach` and `neuralgentics down`: the services without holding a terminal.

`up --detach` runs the ordinary foreground `up` as a process of its own session (so closing the
terminal does not stop it), its output in ``<home>/logs/up.log``, its pid in ``<home>/up.pid``,
and returns once that `up` said "ready" — or fails with the log's last lines if it exited
first. `down` sends it SIGTERM, which stops both services the usual way.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from neuralgentics.app.up import UpError, UpRefused, cli_args
from neuralgentics.config import Settings
from neuralgentics.filemodes import private_dir

PID_FILE = "up.pid"
_BANNER = re.compile(r"^(memini-core|broker|dashboard|token) +\S+$|^ready")
LOG_FILE = "up.log"


def pid_path(s: Settings) -> Path:
    return s.home / PID_FILE


def log_path(s: Settings) -> Path:
    return s.home / "logs" / LOG_FILE


def running_pid(s: Settings) -> int | None:
    """The pid of a detached `up` that still runs; a stale pid file is removed."""
    path = pid_path(s)
    try:
        pid = int(path.read_text().strip())
    except (OSError, ValueError):
        return None
    try:
        # the pid may have been reused since: it must still be our `up`
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        cmdline = []
    if b"up" not in cmdline or not any(b"neuralgentics" in part for part in cmdline):
        path.unlink(missing_ok=True)
        return None
    return pid


def up_detached(
    s: Settings,
    args: list[str],
    *,
    timeout: float = 180.0,
    echo: Callable[[str], None] = print,
) -> None:
    """Start `up ARGS` in the background and return once it is ready (its lines echoed)."""
    if (pid := running_pid(s)) is not None:
        raise UpRefused(
            f"neuralgentics is already running in the background (pid {pid}); "
            "`neuralgentics down` stops it"
        )
    private_dir(s.home)
    log = log_path(s)
    private_dir(log.parent)
    with log.open("w") as out:
        proc = subprocess.Popen(
            cli_args("up", *args),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=os.environ.copy(),
        )
    pid_path(s).write_text(f"{proc.pid}\n")
    deadline = time.monotonic() + timeout
    shown = 0
    while time.monotonic() < deadline:
        lines = log.read_text(errors="replace").splitlines()
        for line in lines[shown:]:
            if _BANNER.match(line):  # up's own lines, not the services' logs
                echo(line.replace("Ctrl-C stops both", "`neuralgentics down` stops both"))
        shown = len(lines)
        if any(line.startswith("ready") for line in lines):
            echo(f"log: {log}")
            return
        if proc.poll() is not None:
            pid_path(s).unlink(missing_ok=True)
            raise UpError(f"`up` exited with status {proc.returncode} while starting (log: {log})")
        time.sleep(0.2)
    proc.terminate()
    pid_path(s).unlink(missing_ok=True)
    raise UpError(f"the services were not ready within {timeout:.0f}s (log: {log})")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"  # a zombie (a child of this process, in tests) has stopped


def down(s: Settings, *, timeout: float = 20.0) -> int | None:
    """Stop the detached `up`; the pid it had, or None when none was running."""
    pid = running_pid(s)
    if pid is None:
        return None
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while _alive(pid):
        if time.monotonic() > deadline:
            raise UpError(f"pid {pid} did not stop within {timeout:.0f}s")
        time.sleep(0.1)
    pid_path(s).unlink(missing_ok=True)
    return pid
