"""The orchestrator's task records (SQLite, `<home>/orchestrator.db`), component ``tasks`` of
the one migration runner (`neuralgentics.db.migrations`)."""

from __future__ import annotations

from neuralgentics.db import migrations as runner

COMPONENT = "tasks"


def migrations(kind: str) -> list[runner.Migration]:
    return runner.load(__package__, kind)
