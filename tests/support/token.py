"""The owner token a served process created in its config dir, for tests that call it."""

from __future__ import annotations

import time
from pathlib import Path


def owner_token(config_dir: Path, timeout: float = 30.0) -> str:
    """`<config_dir>/token`, waiting for the process that creates it on start."""
    path = Path(config_dir) / "token"
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path} was not created")
        time.sleep(0.05)
    return path.read_text().strip()


def bearer(config_dir: Path, **extra: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {owner_token(config_dir)}", **extra}
