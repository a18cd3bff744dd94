"""Versioned schema migrations: NNN_name.sql files per store kind, applied in order at start-up."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations(kind: str) -> list[Migration]:
    folder = resources.files(__package__) / kind
    found = []
    for entry in folder.iterdir():
        if entry.name.endswith(".sql"):
            number, _, rest = entry.name.partition("_")
            found.append(Migration(int(number), rest.removesuffix(".sql"), entry.read_text()))
    return sorted(found, key=lambda m: m.version)
