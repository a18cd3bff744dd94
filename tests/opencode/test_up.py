"""`neuralgentics up`: refusal of a busy port (starting both and Ctrl-C are in test_e2e_opencode)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from oc_support import free_port, stop

NEURALGENTICS = str(Path(sys.executable).parent / "neuralgentics")


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def start_up(env: dict[str, str], port: int, broker_port: int) -> tuple[subprocess.Popen[str], list[str]]:
    log = Path(env["NEURALGENTICS_HOME"]) / "up.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as err:
        proc = subprocess.Popen(
            [NEURALGENTICS, "up", "--port", str(port), "--broker-port", str(broker_port)],
            stdout=subprocess.PIPE, stderr=err, text=True, env={**os.environ, **env},
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


def test_up_refuses_a_port_in_use_and_starts_nothing(isolated_env: dict[str, str]) -> None:
    port, broker_port = free_port(), free_port()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", broker_port))
        busy.listen()
        res = subprocess.run([NEURALGENTICS, "up", "--port", str(port), "--broker-port", str(broker_port)],
                             capture_output=True, text=True, timeout=60, env={**os.environ, **isolated_env})
    assert res.returncode == 2
    assert f"127.0.0.1:{broker_port} is already in use" in res.stderr
    assert not listening(port)
