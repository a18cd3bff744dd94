"""The broker's audit table on PostgreSQL (usually memini-core's database), component ``audit``
of the one migration runner (`neuralgentics.db.migrations`)."""

from __future__ import annotations

from neuralgentics.db import migrations as runner

COMPONENT = "audit"


def migrations(kind: str) -> list[runner.Migration]:
    return runner.load(__package__, kind)
