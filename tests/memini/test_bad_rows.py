"""Issue 13, finding 2 (reads): one row holding data that cannot be sent as JSON — written
straight into the database with SQL, as another tool or an older version could — must not
make `GET /memory`, queries, the dashboard's reads or `memory list --local` fail. The row is
shown repaired, a warning says so, and the stored row is left as it was."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient

from neuralgentics.app.core import create_app
from neuralgentics.config import Settings

NEURALGENTICS = str(Path(sys.executable).parent / "neuralgentics")


def add(client, content: str, **extra) -> str:
    # numbered look-alike rows read as updates of one another; update detection is not
    # what these tests are about, so it is off unless a test asks for it
    extra.setdefault("detection", "off")
    r = client.post("/memory/add", json={"content": content, **extra})
    assert r.status_code == 201, r.text
    return r.json()["memory"]["id"]


def plant_bad_rows(store, ids: list[str], rel_id: str) -> None:
    """Damage five memories, one relationship and one trust event directly in the database."""
    a, b, c, d, e = ids
    if store.kind == "sqlite":
        conn = sqlite3.connect(store.path, isolation_level=None)
        # JSON escapes of lone surrogates in metadata (the issue's poison) and in tags
        conn.execute(
            "UPDATE memories SET metadata = ?, tags = ? WHERE id = ?",
            ('{"a": "\\ud800", "\\udfff": {"deep": ["\\udc80"]}}', '["ok", "\\ud800"]', a),
        )
        # bytes that are not UTF-8 in text columns
        conn.execute(
            "UPDATE memories SET content = CAST(X'6261642062797465733a20fffe20656e64' AS TEXT),"
            " project = CAST(X'70726f6aff' AS TEXT) WHERE id = ?",
            (b,),
        )
        conn.execute(
            "UPDATE memories SET metadata = 'not json {', tags = '{\"not\": \"a list\"}' WHERE id = ?",
            (c,),
        )
        conn.execute(
            'UPDATE memories SET metadata = \'{"n": NaN, "z": "\\u0000"}\', created_at = \'yesterday\''
            " WHERE id = ?",
            (d,),
        )
        conn.execute("UPDATE memories SET metadata = '[1, 2, 3]' WHERE id = ?", (e,))
        conn.execute(
            'UPDATE memory_relationships SET metadata = \'{"k": "\\udc80"}\' WHERE id = ?',
            (rel_id,),
        )
        conn.execute(
            "UPDATE trust_events SET note = CAST(X'6e6f7465ff' AS TEXT) WHERE memory_id = ?", (a,)
        )
        conn.close()
    else:
        with psycopg.connect(store.url, autocommit=True) as conn:
            # PostgreSQL refuses surrogates and NUL itself; what it can hold is the wrong shape
            conn.execute(
                "UPDATE memories SET metadata = '[1, 2]'::jsonb, tags = ARRAY['ok', NULL]"
                " WHERE id = %s",
                [a],
            )
            conn.execute("UPDATE memories SET metadata = '\"just text\"'::jsonb WHERE id = %s", [b])
            conn.execute(
                "UPDATE memories SET metadata = 'null'::jsonb, tags = ARRAY[NULL]::text[]"
                " WHERE id = %s",
                [c],
            )
            conn.execute("UPDATE memories SET metadata = '42'::jsonb WHERE id = %s", [d])
            conn.execute("UPDATE memories SET metadata = 'true'::jsonb WHERE id = %s", [e])
            conn.execute(
                "UPDATE memory_relationships SET metadata = '[\"x\"]'::jsonb WHERE id = %s",
                [rel_id],
            )


def stored_rows(store) -> list:
    if store.kind == "sqlite":
        conn = sqlite3.connect(store.path)
        conn.text_factory = bytes
        rows = conn.execute(
            "SELECT id, content, metadata, tags FROM memories ORDER BY id"
        ).fetchall()
        conn.close()
        return rows
    with psycopg.connect(store.url) as conn:
        return conn.execute(
            "SELECT id, content, metadata::text, tags FROM memories ORDER BY id"
        ).fetchall()


def test_one_bad_row_never_fails_a_read(client, store, caplog):
    ids = [
        add(client, f"Poisoned row number {i} about the release checklist", tags=["t"])
        for i in range(5)
    ]
    healthy = add(client, "A healthy memory about the release checklist")
    r = client.post(
        "/memory/relationship",
        json={"source_id": ids[0], "target_id": ids[1], "relationship_type": "RELATED_TO"},
    )
    rel_id = r.json()["id"]
    assert (
        client.post(
            f"/memory/{ids[0]}/trust", json={"event": "agent_used", "note": "n"}
        ).status_code
        == 200
    )
    plant_bad_rows(store, ids, rel_id)
    before = stored_rows(store)

    caplog.set_level(logging.WARNING, logger="neuralgentics.memini.store.repair")
    listed = client.get("/memory", params={"limit": 100})
    assert listed.status_code == 200, listed.text
    assert {m["id"] for m in listed.json()["items"]} == {*ids, healthy}
    # the dashboard's reads: overview list, a query, a memory page and its graph walk
    assert client.get("/memory", params={"limit": 8}).status_code == 200
    hits = client.post("/memory/query", json={"query": "release checklist", "top_k": 10})
    assert hits.status_code == 200, hits.text
    assert {h["memory"]["id"] for h in hits.json()["hits"]} >= {*ids, healthy}
    for mid in ids:
        detail = client.get(f"/memory/{mid}")
        assert detail.status_code == 200, detail.text
        json.dumps(detail.json())
        assert client.get(f"/memory/related/{mid}", params={"depth": 2}).status_code == 200
    assert client.post("/memory/query", json={"query": "release", "tags": ["t"]}).status_code == 200

    by_id = {m["id"]: m for m in listed.json()["items"]}
    if store.kind == "sqlite":
        assert by_id[ids[0]]["metadata"]["a"] == "\ufffd" and by_id[ids[0]]["tags"] == [
            "ok",
            "\ufffd",
        ]
        assert "\ufffd" in by_id[ids[1]]["content"] and by_id[ids[1]]["project"] == "proj\ufffd"
        assert by_id[ids[2]]["metadata"] == {} and by_id[ids[2]]["tags"] == []
        assert by_id[ids[3]]["metadata"] == {"n": None, "z": "\ufffd"}
    else:
        assert by_id[ids[0]]["metadata"] == {} and by_id[ids[0]]["tags"] == ["ok"]
        assert by_id[ids[2]]["tags"] == []
    assert by_id[ids[4]]["metadata"] == {}

    warned = [rec.getMessage() for rec in caplog.records]
    for mid in ids:
        assert any(mid in line for line in warned), (mid, warned)
    assert any(rel_id in line for line in warned)
    # reading repaired nothing in the database: fixing or deleting the row is the user's call
    assert stored_rows(store) == before
    # and the bad rows can be deleted through the API like any other
    assert client.delete(f"/memory/{ids[2]}").status_code == 204


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_memory_list_local_survives_a_bad_row(tmp_path, kind, embedder, request):
    """`neuralgentics memory list --local` in its own process, on the same database."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEURALGENTICS_")}
    env |= {
        "NEURALGENTICS_HOME": str(tmp_path / "home"),
        "NEURALGENTICS_CONFIG_DIR": str(tmp_path / "cfg"),
    }
    url = None
    if kind == "postgres":
        from support.postgres import drop_database, fresh_database

        url = fresh_database(request.getfixturevalue("pg_server"), "badrows")
        env["NEURALGENTICS_DATABASE_URL"] = url
    settings = Settings(home=tmp_path / "home", database_url=url)
    try:
        with TestClient(create_app(settings, embedder=embedder)) as client:
            ids = [add(client, f"CLI row {i}") for i in range(5)]
            rel = client.post(
                "/memory/relationship",
                json={"source_id": ids[0], "target_id": ids[1], "relationship_type": "RELATED_TO"},
            ).json()["id"]
            client.post(f"/memory/{ids[0]}/trust", json={"event": "agent_used"})
            plant_bad_rows(client.app.state.service().store, ids, rel)
        done = subprocess.run(
            [NEURALGENTICS, "memory", "list", "--local", "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        assert {m["id"] for m in json.loads(done.stdout)["items"]} == set(ids)
        assert "shown repaired" in done.stderr
    finally:
        if url:
            drop_database(url)
