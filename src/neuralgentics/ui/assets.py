"""The dashboard's static files, shipped as package data and served from memory.

Only the files present in the package at import time can be served: a request names a file
from that fixed set, so no path from the URL ever reaches the file system.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}


@dataclass(frozen=True)
class Asset:
    name: str
    body: bytes
    media_type: str


def _load() -> dict[str, Asset]:
    found: dict[str, Asset] = {}
    root = resources.files("neuralgentics.ui") / "static"

    def walk(node: Traversable, prefix: str) -> None:
        for entry in node.iterdir():
            name = f"{prefix}{entry.name}"
            if entry.is_dir():
                walk(entry, name + "/")
                continue
            suffix = "." + entry.name.rsplit(".", 1)[-1] if "." in entry.name else ""
            if suffix in _TYPES:
                found[name] = Asset(name, entry.read_bytes(), _TYPES[suffix])

    walk(root, "")
    return found


ASSETS: dict[str, Asset] = _load()
