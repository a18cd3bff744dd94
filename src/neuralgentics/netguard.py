"""Binding rules shared by every service: loopback by default, a token before anything else."""

from __future__ import annotations

import ipaddress
import socket


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str | None) -> None:
    """Raise ValueError when a service would be reachable from other machines without a token."""
    if not is_loopback(host) and not token:
        raise ValueError(
            f"refusing to bind {host}: set NEURALGENTICS_TOKEN to expose a service beyond loopback"
        )


def port_in_use(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((host, port)) == 0


def check_port_free(name: str, host: str, port: int) -> None:
    """Raise ValueError, one message for `serve`, `broker serve` and `up`, when something already
    listens on host:port (checked before a second of imports; a race past it is uvicorn's)."""
    if port_in_use(host, port):
        raise ValueError(
            f"{name}: {host}:{port} is already in use (another `neuralgentics up`?); "
            "stop it or choose another port"
        )
