"""Databases left at an older schema version, as an install of an earlier release left them:
the migration tests write old-shaped rows into them and check what the next open makes of them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg

from neuralgentics.memini.store.migrations import migrations


def sqlite_before(path: Path, version: int) -> sqlite3.Connection:
    """A SQLite memini database at `path` with every migration below `version` applied."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);"
        "CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    )
    for m in migrations("sqlite"):
        if m.version < version:
            conn.executescript(m.sql)
            conn.execute(
                "INSERT INTO schema_migrations VALUES (?, ?, '2025-01-01')", (m.version, m.name)
            )
    return conn


def postgres_before(conn: psycopg.Connection, version: int) -> None:
    """Apply every PostgreSQL migration below `version` on `conn` (autocommit), recorded."""
    conn.execute(
        "CREATE TABLE schema_migrations (version INT PRIMARY KEY, name TEXT NOT NULL,"
        " checksum TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
    )
    for m in migrations("postgres"):
        if m.version < version:
            conn.execute(m.sql)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, checksum) VALUES (%s, %s, %s)",
                [m.version, m.name, m.checksum],
            )
