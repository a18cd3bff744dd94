"""Issue 13: trust replays drifted (0.5 + 0.05 + 0.10 - 0.15 read back as 0.5000000000000006).
Trust is now kept in integer thousandths on both stores: a score reads back as the exact
decimal after any sequence of events, and the migration converts rows written before."""

from __future__ import annotations

import hashlib
import uuid

import numpy as np
import psycopg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.postgres import drop_database, fresh_database
from support.schema import postgres_before, sqlite_before

from neuralgentics.memini.store.base import MemoryFilter, NewMemory, TrustChange
from neuralgentics.memini.trust import EVENTS, EVENTS_MILLI

DIM = 384


def new(text: str) -> NewMemory:
    v = np.random.default_rng(len(text)).standard_normal(DIM).astype(np.float32)
    return NewMemory(
        content=text,
        embedding=v / np.linalg.norm(v),
        content_hash=hashlib.sha256(text.encode()).hexdigest(),
    )


def replay(events: list[str], start: int = 500) -> list[int]:
    """The scores after each event, in thousandths, clamped to [0, 1000]."""
    out, k = [], start
    for e in events:
        k = min(1000, max(0, k + EVENTS_MILLI[e]))
        out.append(k)
    return out


@settings(
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(events=st.lists(st.sampled_from(sorted(EVENTS)), min_size=1, max_size=40))
def test_any_sequence_of_events_reads_back_exactly(store, events: list[str]) -> None:
    m, _ = store.add_memory(new(f"exact trust {uuid.uuid4()}"))
    for e in events:
        store.apply_trust(TrustChange(m.id, e, EVENTS[e]))
    expected = replay(events)
    got = store.get_memory(m.id).trust_score
    # exact: the float that prints as the decimal (0.55, never 0.5500000000000002)
    assert got == expected[-1] / 1000 and repr(got) == repr(expected[-1] / 1000)
    history = store.trust_history(m.id)
    assert [e.score_after for e in history] == [k / 1000 for k in expected]
    assert [e.delta for e in history] == [EVENTS_MILLI[e] / 1000 for e in events]
    # the filter sees the exact value too
    flt = MemoryFilter(min_trust=expected[-1] / 1000, include_superseded=True)
    assert m.id in {x.id for x in store.list_memories(flt, limit=1000)[0]}


def test_the_issues_replay_is_exact_over_http(client) -> None:
    mid = client.post("/memory/add", json={"content": "drift check"}).json()["memory"]["id"]
    scores = [
        client.post(f"/memory/{mid}/trust", json={"event": e}).json()["memory"]["trust_score"]
        for e in ("agent_used", "user_confirmed", "user_rejected") * 7
    ]
    assert scores[-1] == 0.5 and set(scores) == {0.55, 0.65, 0.5}
    detail = client.get(f"/memory/{mid}").json()
    assert [e["delta"] for e in detail["trust_history"]][:3] == [0.05, 0.1, -0.15]


# --- the migration converts what older versions wrote -----------------------------------------


DRIFTED = [  # (stored score, [(event, stored delta, stored score_after)], exact score expected)
    (
        0.5000000000000006,
        [
            ("agent_used", 0.05, 0.55),
            ("user_confirmed", 0.1, 0.6500000000000001),
            ("user_rejected", -0.15000000000000002, 0.5000000000000006),
        ],
        0.5,
    ),
    (0.30000000000000004, [("contradicted", -0.1, 0.30000000000000004)], 0.3),
    (1.0, [], 1.0),
    (0.0, [("user_rejected", -0.15, 0.0)], 0.0),
]


def _old_rows(insert_memory, insert_event) -> list[str]:
    ids = []
    for i, (score, events, _) in enumerate(DRIFTED):
        mid = str(uuid.uuid4())
        insert_memory(mid, f"written by an older version {i}", score)
        for event, delta, after in events:
            insert_event(mid, event, delta, after)
        ids.append(mid)
    return ids


def test_sqlite_migration_converts_existing_rows(tmp_path) -> None:
    from neuralgentics.memini.store.sqlite import SQLiteStore

    path = tmp_path / "memini.db"
    conn = sqlite_before(path, 4)
    blob = np.ones(DIM, dtype="<f4").tobytes()
    stamp = "2025-01-01T00:00:00.000000+00:00"
    ids = _old_rows(
        lambda mid, text, score: conn.execute(
            "INSERT INTO memories (id, content, embedding, trust_score, created_at, updated_at, content_hash)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (mid, text, blob, score, stamp, stamp, mid),
        ),
        lambda mid, event, delta, after: conn.execute(
            "INSERT INTO trust_events (memory_id, event, delta, score_after, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (mid, event, delta, after, stamp),
        ),
    )
    conn.close()
    store = SQLiteStore(path)
    try:
        assert store.schema_version() >= 4
        _check_converted(store, ids)
    finally:
        store.close()


def test_postgres_migration_converts_existing_rows(pg_server) -> None:
    from neuralgentics.memini.store.postgres import PostgresStore

    url = fresh_database(pg_server, "trustmig")
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            postgres_before(conn, 3)
            vec = "[" + ",".join(["0.05"] * DIM) + "]"
            ids = _old_rows(
                lambda mid, text, score: conn.execute(
                    "INSERT INTO memories (id, content, embedding, trust_score, content_hash)"
                    " VALUES (%s, %s, %s::vector, %s, %s)",
                    [mid, text, vec, score, mid],
                ),
                lambda mid, event, delta, after: conn.execute(
                    "INSERT INTO trust_events (memory_id, event, delta, score_after)"
                    " VALUES (%s, %s, %s, %s)",
                    [mid, event, delta, after],
                ),
            )
        store = PostgresStore(url)
        try:
            _check_converted(store, ids)
        finally:
            store.close()
    finally:
        drop_database(url)


def _check_converted(store, ids: list[str]) -> None:
    for mid, (_, events, exact) in zip(ids, DRIFTED):
        memory = store.get_memory(mid)
        assert memory.trust_score == exact and repr(memory.trust_score) == repr(exact)
        history = store.trust_history(mid)
        assert [e.delta for e in history] == [round(d * 1000) / 1000 for _, d, _ in events]
        assert [e.score_after for e in history] == [round(a * 1000) / 1000 for _, _, a in events]
    # and from here on it stays exact
    after, _ = store.apply_trust(TrustChange(ids[0], "agent_used", EVENTS["agent_used"]))
    assert after.trust_score == 0.55
