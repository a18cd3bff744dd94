"""`neuralgentics up`: memini-core and the broker's HTTP front as one foreground command.

Each service runs as its own child process (the same `neuralgentics` program), so one that
crashes cannot take the other's state with it. Ctrl-C or SIGTERM stops both; if either dies
on its own the other is stopped too and the exit status says so.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType

import httpx

from neuralgentics import errors
from neuralgentics.config import Settings
from neuralgentics.credentials import CredentialError, ensure_token, token_location
from neuralgentics.netguard import check_port_free

STOP_GRACE_SECONDS = 10.0


class UpError(errors.NeuralgenticsError):
    """Could not start (or stop); nothing is left running. The message says what to fix. A
    service that died or did not answer in time is a failure (exit 1)."""


class UpRefused(UpError, errors.InvalidConfig):
    """Refused before anything started: a busy port, a bind or credential the settings get
    wrong, an `up` already running. Bad input (exit 2), as `serve` refuses the same."""


@dataclass
class Service:
    name: str
    args: list[str]
    health_url: str
    shown_url: str
    proc: subprocess.Popen[bytes] | None = None


def cli_args(*args: str) -> list[str]:
    # The same interpreter and package as this process, whatever PATH says.
    return [sys.executable, "-c", "from neuralgentics.cli import main; main()", *args]


def plan(host: str, port: int, broker_port: int, with_broker: bool = True) -> list[Service]:
    services = [
        Service(
            "memini-core",
            cli_args("serve", "--host", host, "--port", str(port)),
            f"http://{host}:{port}/health",
            f"http://{host}:{port}",
        )
    ]
    if with_broker:
        services.append(
            Service(
                "broker",
                cli_args("broker", "serve", "--host", host, "--port", str(broker_port)),
                f"http://{host}:{broker_port}/health",
                f"http://{host}:{broker_port}/mcp",
            )
        )
    return services


def _wait_healthy(svc: Service, timeout: float) -> None:
    assert svc.proc is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if svc.proc.poll() is not None:
            raise UpError(
                f"{svc.name} exited with status {svc.proc.returncode} while starting (see its output above)"
            )
        try:
            if httpx.get(svc.health_url, timeout=1.0).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise UpError(f"{svc.name} did not answer {svc.health_url} within {timeout:.0f}s")


def _warm_up(svc: Service, token: str) -> None:
    """Load the embedding model now, so the plugin's first routing check does not time out."""
    base = svc.health_url.removesuffix("/health")
    try:
        httpx.post(
            base + "/orchestrator/route",
            json={"task": "warm up the routing model"},
            headers={"Authorization": f"Bearer {token}"},
            timeout=120.0,
        )
    except httpx.HTTPError:
        pass  # the service answers /health; a slow first call is not a reason to refuse to start


def stop_all(services: list[Service]) -> None:
    running = [s for s in services if s.proc is not None and s.proc.poll() is None]
    for s in running:
        s.proc.send_signal(signal.SIGTERM)  # type: ignore[union-attr]
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    for s in running:
        try:
            s.proc.wait(timeout=max(0.1, deadline - time.monotonic()))  # type: ignore[union-attr]
        except subprocess.TimeoutExpired:
            s.proc.kill()  # type: ignore[union-attr]
            s.proc.wait(timeout=5)  # type: ignore[union-attr]


def up(
    settings: Settings,
    host: str,
    port: int,
    broker_port: int,
    *,
    with_broker: bool = True,
    start_timeout: float = 120.0,
    echo: Callable[[str], None] = print,
) -> int:
    """Start, report where each service listens, wait for a signal or a death; return the exit code."""
    services = plan(host, port, broker_port, with_broker)
    try:
        # Made here, before either child starts, so both serve with the same credential (each
        # would otherwise race to create the token file; the loser would read the winner's).
        token = ensure_token(settings)
    except CredentialError as exc:
        raise UpRefused(str(exc)) from None
    for svc, p in zip(services, (port, broker_port)):
        try:
            check_port_free(svc.name, host, p)
        except ValueError as exc:
            raise UpRefused(str(exc)) from None
    stopping: list[int] = []

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        stopping.append(signum)

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        # Both start at once (neither needs the other), so the broker's start-up overlaps
        # memini-core's and its warm-up; each is then reported in order once it answers.
        for svc in services:
            # Own process group: the terminal's Ctrl-C reaches us once, and we stop the children in order.
            svc.proc = subprocess.Popen(svc.args, start_new_session=True, env=os.environ.copy())
        for svc in services:
            _wait_healthy(svc, start_timeout)
            if svc.name == "memini-core":
                _warm_up(svc, token)
            echo(f"{svc.name:<12} {svc.shown_url}")
            if stopping:
                break
        if not stopping:
            echo(f"{'dashboard':<12} {services[0].shown_url}/ui")
            echo(f"{'token':<12} {token_location(settings)}")
            echo("ready; Ctrl-C stops both")
        while not stopping:
            dead = [s for s in services if s.proc is not None and s.proc.poll() is not None]
            if dead:
                code = dead[0].proc.returncode if dead[0].proc is not None else None
                echo(f"{dead[0].name} exited with status {code}; stopping the rest")
                return 1
            time.sleep(0.3)
        echo("stopping")
        return 0
    finally:
        stop_all(services)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
