"""SQL is parameterised everywhere: hostile strings in every text field of memini-core are
stored and returned byte for byte, filters match them literally, and nothing else changes."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from neuralgentics.app.core import create_app
from neuralgentics.config import Settings

HOSTILE = [
    "'; DROP TABLE memories; --",
    '" OR 1=1 --',
    "x' UNION SELECT id, content FROM memories --",
    "%' OR '%'='",
    "_%\\",
    "$1 $$ $tag$ ) ; COMMIT; DELETE FROM trust_events; --",
    "?; PRAGMA writable_schema=1; --",
    "Robert'); DROP TABLE memory_relationships;--",
    '{"$ne": null}',
    "\\x00 \\u0000 ' \" ` ; -- /* */",
]


@pytest.fixture(params=["sqlite", "postgres"])
def client(request, tmp_path) -> Iterator[TestClient]:
    url = request.getfixturevalue("pg_url") if request.param == "postgres" else None
    from neuralgentics.app.process import shared_embedder

    app = create_app(Settings(home=tmp_path / "home", database_url=url), embedder=shared_embedder())
    with TestClient(app) as c:
        yield c


def test_hostile_strings_in_every_field_round_trip_and_match_literally(client: TestClient) -> None:
    ids = []
    for i, s in enumerate(HOSTILE):
        r = client.post(
            "/memory/add",
            json={
                "content": f"{s} #{i}",
                "project": s,
                "tags": [s, "plain"],
                "source_type": s[:50],
                "metadata": {s: s, "k": [s]},
                "actor": s,
            },
        )
        assert r.status_code == 201, r.text
        m = r.json()["memory"]
        assert (m["content"], m["project"], m["tags"], m["source_type"], m["metadata"]) == (
            f"{s} #{i}",
            s,
            [s, "plain"],
            s[:50],
            {s: s, "k": [s]},
        )
        ids.append(m["id"])
        assert (
            client.post(
                f"/memory/{m['id']}/trust", json={"event": "user_confirmed", "actor": s, "note": s}
            ).status_code
            == 200
        )
    for a, b, s in zip(ids, ids[1:], HOSTILE):
        assert (
            client.post(
                "/memory/relationship",
                json={
                    "source_id": a,
                    "target_id": b,
                    "relationship_type": "RELATED_TO",
                    "metadata": {s: s},
                    "actor": s,
                },
            ).status_code
            == 201
        )

    for i, s in enumerate(HOSTILE):
        # filters are values, not SQL: each hostile project/tag/source selects exactly its own memory
        listed = client.get("/memory", params={"project": s}).json()
        assert [m["id"] for m in listed["items"]] == [ids[i]], s
        assert client.get("/memory", params={"tag": s}).json()["total"] == 1
        hits = client.post(
            "/memory/query", json={"query": s, "project": s, "tags": [s], "top_k": 5}
        ).json()["hits"]
        assert [h["memory"]["id"] for h in hits] == [ids[i]]
        detail = client.get(f"/memory/{ids[i]}").json()
        assert (
            detail["trust_history"][-1]["note"] == s and detail["trust_history"][-1]["actor"] == s
        )
        assert client.get("/memory/" + quote(s, safe="")).status_code in (
            404,
            422,
        )  # an id that is SQL is refused

    everything = client.get("/memory", params={"limit": 1000}).json()
    assert everything["total"] == len(HOSTILE)
    counts = client.get("/health").json()["counts"]
    assert counts["memories"] == len(HOSTILE)
    assert counts.get("relationships", len(HOSTILE) - 1) == len(HOSTILE) - 1


def test_a_nul_byte_is_refused_with_a_reason_not_a_500(client: TestClient) -> None:
    for field in ("content", "project", "actor"):
        body = {"content": "with nul", field: "a\x00b"}
        r = client.post("/memory/add", json=body)
        assert r.status_code in (201, 422), (field, r.status_code, r.text)
        if r.status_code == 422:
            assert r.json()["error"]["message"]
    assert client.post("/memory/query", json={"query": "a\x00b"}).status_code in (200, 422)
