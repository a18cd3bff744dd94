"""Storage: one contract (base.Store), two stores (SQLite embedded default, PostgreSQL)."""

from __future__ import annotations

from neuralgentics.config import Settings
from neuralgentics.memini.store.base import Store


def open_store(settings: Settings) -> Store:
    """PostgreSQL when a database URL is configured, else the SQLite file under the home dir."""
    if settings.database_url:
        from neuralgentics.memini.store.postgres import PostgresStore

        return PostgresStore(settings.database_url)
    from neuralgentics.memini.store.sqlite import SQLiteStore

    return SQLiteStore(settings.sqlite_path)
