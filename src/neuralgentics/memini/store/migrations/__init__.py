"""memini's schema (memories, relationships, trust events, the project index): `NNN_name.sql`
files per backend, applied in order by the one runner (`neuralgentics.db.migrations`) as
component ``memini``; a migration that needs Python for its rows names its step here."""

from __future__ import annotations

from neuralgentics.db import migrations as runner
from neuralgentics.memini.store import rekey

COMPONENT = "memini"
# the Python parts of migrations, by backend and version
STEPS: dict[str, dict[int, runner.Step]] = {
    "sqlite": {7: rekey.rekey_sqlite},
    "postgres": {6: rekey.rekey_postgres},
}


def migrations(kind: str) -> list[runner.Migration]:
    """memini's migrations for ``sqlite`` or ``postgres``, in version order."""
    return runner.load(__package__, kind, STEPS.get(kind))


def migrate_postgres(url: str) -> list[int]:
    """Apply memini's pending PostgreSQL migrations to the database at `url` (what opening a
    `PostgresStore` does first); returns the versions applied now."""
    from neuralgentics.db.postgres import PostgresDatabase

    return PostgresDatabase(url).migrate(COMPONENT, migrations("postgres"))
