"""De-duplication keys that cannot collide (issue 28 item 4), on both stores: a text that spells
another owner's key prefix is a memory of its own, and older rows are re-keyed by the migration
(sqlite 007 / postgres 0006) so that a later add of the same text still finds them."""

from __future__ import annotations

import hashlib
import uuid

import numpy as np
import psycopg
from support.postgres import drop_database, fresh_database
from support.schema import postgres_before, sqlite_before

from neuralgentics.config import Settings
from neuralgentics.memini import scopes
from neuralgentics.memini.service import MemoryService
from neuralgentics.memini.store.base import MemoryFilter
from neuralgentics.memini.store.sqlite import SQLiteStore

DIM = 384
SECRET = "The staging database password is hunter2."
# what the key of a session memory of session s1 was made from before: this prefix + the text
OLD_PREFIX = "session\x1f\x1fs1\x1f"


def test_a_project_save_spelling_a_session_prefix_is_its_own_memory(client) -> None:
    own = client.post(
        "/memory/add",
        json={"content": SECRET, "project": "web", "scope": "session", "session": "s1"},
    )
    assert own.status_code == 201
    attack = client.post(
        "/memory/add", json={"content": OLD_PREFIX + SECRET, "project": "web", "detection": "off"}
    )
    # before: 200, the session memory's id and text, and +0.05 trust on it
    assert attack.status_code == 201, attack.text
    body = attack.json()
    assert body["created"] is True
    assert body["memory"]["id"] != own.json()["memory"]["id"]
    assert body["memory"]["content"] == OLD_PREFIX + SECRET
    victim = client.get(f"/memory/{own.json()['memory']['id']}").json()
    assert victim["memory"]["trust_score"] == 0.5
    assert victim["trust_history"] == []


def test_every_scope_keys_its_owner_fields_apart(service: MemoryService) -> None:
    """Each owner field is its own JSON string: moving text between fields changes the key."""
    text = "Prefer tabs."
    keys = {
        scopes.dedup_key(text, scopes.placement("project", "web", None, None)),
        scopes.dedup_key(text, scopes.placement("project", "", None, None)),
        scopes.dedup_key(text, scopes.placement("user", "", None, None)),
        scopes.dedup_key(text, scopes.placement("agent", "", "build", None)),
        scopes.dedup_key(text, scopes.placement("session", "web", None, "s1")),
        scopes.dedup_key(text, scopes.placement("session", "", None, "s1")),
    }
    assert len(keys) == 6
    # a project save that spells the session placement's JSON prefix is still another key
    forged = '"session","","","s1","' + text
    assert scopes.dedup_key(forged, scopes.placement("project", "", None, None)) not in keys
    again = service.add(text, project="web")
    assert service.add(text, project="web").memory.id == again.memory.id


# -- the migration ---------------------------------------------------------------------------


def _old_key(scope: str, session: str, content: str) -> str:
    """The key as the release before wrote it (memini/scopes.py before issue 28 item 4)."""
    if scope == "project":
        return hashlib.sha256(content.encode()).hexdigest()
    prefix = f"{scope}\x1f\x1f{session}\x1f"
    return hashlib.sha256((prefix + content).encode()).hexdigest()


# (scope, session, content): a row whose text is exactly the JSON another row's new key hashes
ROWS = [
    ("project", "", "Deploys go out on Tuesdays."),
    ("session", "s1", "This session uses staging."),
    ("project", "", '["memini-dedup/2", "project", "web", "", "", "Deploys go out on Tuesdays."]'),
]


def _check_rekeyed(store, ids: list[str], embedder, tmp_path) -> None:
    rows = store.get_memories(ids)
    for mid, (scope, session, content) in zip(ids, ROWS):
        assert rows[mid].content_hash == scopes.owner_key(scope, "web", "", session, content)
    service = MemoryService(store, embedder, Settings(home=tmp_path / "home"))
    # the same texts again are the rows already there, not new ones
    again = service.add(ROWS[0][2], project="web")
    assert not again.created and again.memory.id == ids[0]
    again = service.add(ROWS[1][2], project="web", scope="session", session="s1")
    assert not again.created and again.memory.id == ids[1]
    # the attack of before, against the migrated session row
    attack = service.add(OLD_PREFIX + ROWS[1][2], project="web", detection="off")
    assert attack.created and attack.memory.id not in ids
    assert store.list_memories(MemoryFilter(include_superseded=True))[1] == 4


def test_sqlite_migration_rekeys_existing_rows(tmp_path, embedder) -> None:
    path = tmp_path / "memini.db"
    conn = sqlite_before(path, 7)
    blob = (np.ones(DIM, dtype="<f4") / np.sqrt(DIM)).astype("<f4").tobytes()
    stamp = "2025-01-01T00:00:00.000000+00:00"
    ids = [str(uuid.uuid4()) for _ in ROWS]
    for mid, (scope, session, content) in zip(ids, ROWS):
        conn.execute(
            "INSERT INTO memories (id, content, embedding, trust_score, created_at, updated_at,"
            " content_hash, project, scope, session) VALUES (?, ?, ?, 0.5, ?, ?, ?, 'web', ?, ?)",
            (mid, content, blob, stamp, stamp, _old_key(scope, session, content), scope, session),
        )
    conn.close()
    store = SQLiteStore(path)
    try:
        assert store.schema_version() >= 7
        _check_rekeyed(store, ids, embedder, tmp_path)
    finally:
        store.close()


def test_postgres_migration_rekeys_existing_rows(pg_server, embedder, tmp_path) -> None:
    from neuralgentics.memini.store.postgres import PostgresStore

    url = fresh_database(pg_server, "rekey")
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            postgres_before(conn, 6)
            vec = "[" + ",".join([str(1 / np.sqrt(DIM))] * DIM) + "]"
            ids = [str(uuid.uuid4()) for _ in ROWS]
            for mid, (scope, session, content) in zip(ids, ROWS):
                conn.execute(
                    "INSERT INTO memories (id, content, embedding, content_hash, project, scope,"
                    " session) VALUES (%s, %s, %s::vector, %s, 'web', %s, %s)",
                    [mid, content, vec, _old_key(scope, session, content), scope, session],
                )
        store = PostgresStore(url)
        try:
            _check_rekeyed(store, ids, embedder, tmp_path)
        finally:
            store.close()
    finally:
        drop_database(url)


def test_a_failing_migration_step_leaves_the_database_as_it_was(tmp_path) -> None:
    """The step runs inside its migration's transaction: SQL, step and bookkeeping or nothing."""
    import sqlite3

    from neuralgentics.db import migrations as runner

    def boom(conn) -> None:
        conn.execute("INSERT INTO t VALUES (2)")
        raise RuntimeError("step failed")

    conn = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
    first = runner.Migration(1, "t", "CREATE TABLE t (v INTEGER);\nINSERT INTO t VALUES (1);")
    runner.migrate_sqlite(conn, "demo", [first])
    second = runner.Migration(2, "more", "-- a comment\nINSERT INTO t VALUES (3);", boom)
    try:
        runner.migrate_sqlite(conn, "demo", [first, second])
    except RuntimeError:
        pass
    else:
        raise AssertionError("the step's error was swallowed")
    assert [r[0] for r in conn.execute("SELECT v FROM t")] == [1]
    assert runner.sqlite_version(conn, "demo") == 1
    assert not conn.in_transaction
