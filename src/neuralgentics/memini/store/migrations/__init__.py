"""memini's schema (memories, relationships, trust events, the project index): `NNN_name.sql`
files per backend, applied in order by the one runner (`neuralgentics.db.migrations`) as
component ``memini``."""

from __future__ import annotations

from neuralgentics.db import migrations as runner

COMPONENT = "memini"


def migrations(kind: str) -> list[runner.Migration]:
    """memini's migrations for ``sqlite`` or ``postgres``, in version order."""
    return runner.load(__package__, kind)


def migrate_postgres(url: str) -> list[int]:
    """Apply memini's pending PostgreSQL migrations to the database at `url` (what opening a
    `PostgresStore` does first); returns the versions applied now."""
    from neuralgentics.db.postgres import PostgresDatabase

    return PostgresDatabase(url).migrate(COMPONENT, migrations("postgres"))
