"""`neuralgentics up`: refusal of a busy port (starting both and Ctrl-C are in test_e2e_loop)."""

from __future__ import annotations

import os
import socket
import subprocess

from oc_support import NEURALGENTICS, free_port, listening


def test_up_refuses_a_port_in_use_and_starts_nothing(isolated_env: dict[str, str]) -> None:
    port, broker_port = free_port(), free_port()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", broker_port))
        busy.listen()
        res = subprocess.run(
            [NEURALGENTICS, "up", "--port", str(port), "--broker-port", str(broker_port)],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, **isolated_env},
        )
    assert res.returncode == 2
    assert f"127.0.0.1:{broker_port} is already in use" in res.stderr
    assert not listening(port)
