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


def test_serve_and_broker_serve_refuse_a_busy_port_as_up_does(
    isolated_env: dict[str, str],
) -> None:
    """Issue 32 item 10: `serve` printed its banner, then uvicorn's [Errno 98], exit 3."""
    port = free_port()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", port))
        busy.listen()
        for cmd, name in (("serve", "memini-core"), ("broker serve", "broker")):
            res = subprocess.run(
                [NEURALGENTICS, *cmd.split(), "--port", str(port)],
                capture_output=True,
                text=True,
                timeout=60,
                env={**os.environ, **isolated_env},
            )
            assert res.returncode == 2, (cmd, res.stderr)
            assert res.stderr.strip() == (
                f"error: {name}: 127.0.0.1:{port} is already in use (another `neuralgentics up`?); "
                "stop it or choose another port"
            ), cmd
            assert "Errno" not in res.stderr and "Traceback" not in res.stderr


def test_up_detach_returns_once_ready_and_down_stops_both(isolated_env: dict[str, str]) -> None:
    """Issue 32 item 5: serve.sh held the terminal. `up --detach` hands it back once both
    services answer, prints where they are and where the dashboard's token is."""
    import httpx

    port, broker_port = free_port(), free_port()
    env = {**os.environ, **isolated_env}
    up = [NEURALGENTICS, "up", "--detach", "--port", str(port), "--broker-port", str(broker_port)]
    res = subprocess.run(up, capture_output=True, text=True, timeout=240, env=env)
    try:
        assert res.returncode == 0, res.stderr
        assert f"dashboard    http://127.0.0.1:{port}/ui" in res.stdout
        token_file = os.path.join(isolated_env["NEURALGENTICS_CONFIG_DIR"], "token")
        assert f"token        {token_file}" in res.stdout
        assert "`neuralgentics down` stops both" in res.stdout
        assert httpx.get(f"http://127.0.0.1:{port}/health").status_code == 200
        assert httpx.get(f"http://127.0.0.1:{broker_port}/health").status_code == 200
        again = subprocess.run(up, capture_output=True, text=True, timeout=60, env=env)
        assert again.returncode == 2 and "already running in the background" in again.stderr
    finally:
        stopped = subprocess.run(
            [NEURALGENTICS, "down"], capture_output=True, text=True, timeout=60, env=env
        )
    assert stopped.returncode == 0 and stopped.stdout.startswith("stopped (pid "), stopped
    assert not listening(port) and not listening(broker_port)
    res = subprocess.run([NEURALGENTICS, "down"], capture_output=True, text=True, env=env)
    assert res.returncode == 0 and "nothing to stop" in res.stdout
