"""Binding rules shared by every service: loopback by default, a token before anything else."""

from __future__ import annotations

import ipaddress


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
