"""Memory scopes beyond project (issue 17 item 6) on both stores: whose a memory is, what a
query searches, which restatement wins, and that detection never crosses owners."""

from __future__ import annotations

import io
import json
import uuid

import numpy as np
import psycopg
import pytest
from support.postgres import drop_database, fresh_database
from support.schema import postgres_before, sqlite_before

from neuralgentics.memini import scopes
from neuralgentics.memini.errors import InvalidInput
from neuralgentics.memini.portability import export_lines, import_file
from neuralgentics.memini.portability.importer import model_id
from neuralgentics.memini.service import MemoryService
from neuralgentics.memini.store.base import MemoryFilter
from neuralgentics.memini.store.sqlite import SQLiteStore

DIM = 384


def contents(hits) -> list[str]:
    return [h.memory.content for h in hits]


def test_the_same_text_is_one_memory_per_owner(service: MemoryService) -> None:
    text = "Prefer tabs over spaces."
    a = service.add(text, project="web").memory
    b = service.add(text).memory  # project ''
    u = service.add(text, scope="user").memory
    s1 = service.add(text, project="web", scope="session", session="s1").memory
    s2 = service.add(text, project="web", scope="session", session="s2").memory
    g = service.add(text, scope="agent", agent="build").memory
    assert len({a.id, b.id, u.id, s1.id, s2.id, g.id}) == 6
    assert (u.scope, u.project) == ("user", "")
    assert (s1.scope, s1.session, s1.project) == ("session", "s1", "web")
    assert (g.scope, g.agent, g.project) == ("agent", "build", "")
    again = service.add(text, scope="user")
    assert not again.created and again.memory.id == u.id
    again = service.add(text, project="web", scope="session", session="s1")
    assert not again.created and again.memory.id == s1.id


def test_a_scoped_query_searches_its_owners_and_nobody_else(service: MemoryService) -> None:
    kw = {"detection": "off"}
    service.add("The web app deploys with Fly.io.", project="web", **kw)
    service.add("The mobile app deploys with Fastlane.", project="mobile", **kw)
    service.add("I deploy on Fridays only after lunch.", scope="user", **kw)
    service.add("Deploy step: run the smoke test first.", scope="agent", agent="build", **kw)
    service.add("Deploy step: ask before pushing.", scope="agent", agent="plan", **kw)
    service.add("This session deploys to staging.", project="web", scope="session", session="s1")
    service.add("That session deployed to prod.", project="web", scope="session", session="s2")
    flt = MemoryFilter(project="web")
    # no agent, session or scopes: what a project query always meant
    assert contents(service.query("how do we deploy", flt, min_score=-1)) == [
        "The web app deploys with Fly.io."
    ]
    from neuralgentics.memini import scopes

    flt.owners = scopes.search_owners("web", "build", "s1", None)
    found = set(contents(service.query("how do we deploy", flt, top_k=20, min_score=-1)))
    assert found == {
        "The web app deploys with Fly.io.",
        "I deploy on Fridays only after lunch.",
        "Deploy step: run the smoke test first.",
        "This session deploys to staging.",
    }
    flt.owners = scopes.search_owners("web", None, None, ["user"])
    assert contents(service.query("how do we deploy", flt, min_score=-1)) == [
        "I deploy on Fridays only after lunch."
    ]
    with pytest.raises(InvalidInput) as err:
        scopes.search_owners("web", None, None, ["agent"])
    assert err.value.field == "agent"


def test_a_session_restatement_outranks_the_project_one_which_outranks_the_users(
    service: MemoryService,
) -> None:
    from neuralgentics.memini import scopes

    # added session first, user last: precedence, not age, decides among restatements
    service.add(
        "The API server listens on port 8080 in this session.",
        project="web",
        scope="session",
        session="s1",
        detection="off",
    )
    service.add("The API server listens on port 8000.", project="web", detection="off")
    service.add("The API server listens on port 3000.", scope="user", detection="off")
    flt = MemoryFilter(owners=scopes.search_owners("web", None, "s1", None))
    hits = service.query("which port does the API server listen on", flt, top_k=3)
    assert [h.memory.scope for h in hits] == ["session", "project", "user"]


def test_detection_never_supersedes_across_owners(service: MemoryService) -> None:
    user = service.add("We use pnpm for JavaScript packages.", scope="user").memory
    project = service.add("We switched to npm for JavaScript packages.", project="web")
    assert project.superseded == [] and project.likely_updates == []
    assert service.store.get_memory(user.id).superseded_by is None
    # within one owner the same change is still found
    newer = service.add("We now use npm instead of pnpm for JavaScript packages.", scope="user")
    assert [f.memory.id for f in newer.superseded + newer.likely_updates] == [user.id]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"scope": "agent"}, "agent"),
        ({"scope": "session"}, "session"),
        ({"scope": "user", "project": "web"}, "project"),
        ({"scope": "agent", "agent": "build", "project": "web"}, "project"),
        ({"agent": "build"}, "agent"),
        ({"scope": "user", "session": "s1"}, "session"),
        ({"scope": "team"}, "scope"),
    ],
)
def test_an_inconsistent_add_is_a_422_naming_the_field_and_writes_nothing(
    client, store, fields, field
) -> None:
    r = client.post("/memory/add", json={"content": "Builds run on Buildkite.", **fields})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["field"] == field or field in json.dumps(error)
    assert store.counts()["memories"] == 0


def test_http_add_query_and_list_carry_the_scope(client) -> None:
    def add(content: str, **extra) -> dict:
        r = client.post("/memory/add", json={"content": content, "detection": "off", **extra})
        assert r.status_code == 201, r.text
        return r.json()["memory"]

    p = add("Lint with ruff before every commit.", project="web")
    u = add("I like short commit messages.", scope="user")
    s = add("In this session commits go to branch scopes2.", scope="session", session="s9")
    a = add("The reviewer agent checks commit messages.", scope="agent", agent="review")
    assert (u["scope"], u["agent"], u["session"]) == ("user", "", "")
    assert (s["scope"], s["session"]) == ("session", "s9")
    body = {"query": "commit", "project": "web", "session": "s9", "min_score": -1}
    got = {h["memory"]["id"] for h in client.post("/memory/query", json=body).json()["hits"]}
    assert got == {p["id"], u["id"], s["id"]}
    body = {**body, "agent": "review", "scopes": ["agent", "user"]}
    got = {h["memory"]["id"] for h in client.post("/memory/query", json=body).json()["hits"]}
    assert got == {u["id"], a["id"]}
    bad = client.post("/memory/query", json={"query": "commit", "scopes": ["session"]})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "session"
    listed = client.get("/memory", params={"scope": "agent", "agent": "review"}).json()
    assert [m["id"] for m in listed["items"]] == [a["id"]]
    listed = client.get("/memory", params={"scope": "user"}).json()
    assert [m["id"] for m in listed["items"]] == [u["id"]]
    # a project listing is what it was: that project's project memories
    listed = client.get("/memory", params={"project": "web"}).json()
    assert [m["id"] for m in listed["items"]] == [p["id"]]


def test_export_and_import_keep_the_scope(service, embedder, tmp_path) -> None:
    u = service.add("I review pull requests in the morning.", scope="user").memory
    s = service.add("This run is on branch x.", project="web", scope="session", session="r1")
    text = "".join(export_lines(service.store, embedding_model=model_id(embedder)))
    records = [json.loads(line) for line in text.splitlines()]
    assert {(r["scope"], r["session"]) for r in records if r["type"] == "memory"} == {
        ("user", ""),
        ("session", "r1"),
    }
    target = SQLiteStore(tmp_path / "target.db")
    try:
        import_file(target, embedder, io.BytesIO(text.encode()))
        assert target.get_memory(u.id).scope == "user"
        moved = target.get_memory(s.memory.id)
        assert (moved.scope, moved.session, moved.project) == ("session", "r1", "web")
        # the imported copy de-duplicates as the original did
        again = MemoryService(target, embedder, service.settings).add(
            "I review pull requests in the morning.", scope="user"
        )
        assert not again.created and again.memory.id == u.id
        # a record written before scopes (no scope fields) imports as a project memory
        old = records[0:1] + [
            {
                "type": "memory",
                "id": str(uuid.uuid4()),
                "content": "Written before scopes.",
                "project": "web",
                "trust_score": 0.5,
                "created_at": "2025-01-01T00:00:00+00:00",
                "updated_at": "2025-01-01T00:00:00+00:00",
            },
            {"type": "end", "memories": 1, "relationships": 0, "trust_events": 0},
        ]
        import_file(
            target, embedder, io.BytesIO("".join(json.dumps(r) + "\n" for r in old).encode())
        )
        rows, _ = target.list_memories(MemoryFilter(project="web"))
        assert [m.scope for m in rows if m.content == "Written before scopes."] == ["project"]
    finally:
        target.close()


# -- the migration: a database written before scopes --------------------------------------


def _check_migrated(store, ids: list[str]) -> None:
    rows, total = store.list_memories(MemoryFilter(project="web"))
    assert total == len(ids) and sorted(m.id for m in rows) == sorted(ids)
    assert {(m.scope, m.agent, m.session) for m in rows} == {("project", "", "")}
    vec = np.ones(DIM, dtype=np.float32) / np.sqrt(DIM)
    assert sorted(
        i for i, _ in store.vector_search(vec, MemoryFilter(project="web"), 10)
    ) == sorted(ids)
    # re-keyed by the later migration (sqlite 007 / postgres 0006): tests/memini/test_dedup_keys.py
    key = scopes.owner_key("project", "web", "", "", "old fact 0")
    assert store.find_by_hash("web", key) is not None


def test_sqlite_migration_makes_existing_rows_project_memories(tmp_path) -> None:
    path = tmp_path / "memini.db"
    conn = sqlite_before(path, 5)
    blob = (np.ones(DIM, dtype="<f4") / np.sqrt(DIM)).astype("<f4").tobytes()
    stamp = "2025-01-01T00:00:00.000000+00:00"
    ids = [str(uuid.uuid4()) for _ in range(3)]
    for i, mid in enumerate(ids):
        conn.execute(
            "INSERT INTO memories (id, content, embedding, trust_score, created_at, updated_at,"
            " content_hash, project) VALUES (?, ?, ?, 0.5, ?, ?, ?, 'web')",
            (mid, f"old fact {i}", blob, stamp, stamp, mid),
        )
    conn.close()
    store = SQLiteStore(path)
    try:
        assert store.schema_version() >= 5
        _check_migrated(store, ids)
    finally:
        store.close()


def test_postgres_migration_makes_existing_rows_project_memories(pg_server) -> None:
    from neuralgentics.memini.store.postgres import PostgresStore

    url = fresh_database(pg_server, "scopemig")
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            postgres_before(conn, 4)
            vec = "[" + ",".join([str(1 / np.sqrt(DIM))] * DIM) + "]"
            ids = [str(uuid.uuid4()) for _ in range(3)]
            for i, mid in enumerate(ids):
                conn.execute(
                    "INSERT INTO memories (id, content, embedding, content_hash, project)"
                    " VALUES (%s, %s, %s::vector, %s, 'web')",
                    [mid, f"old fact {i}", vec, mid],
                )
        store = PostgresStore(url)
        try:
            _check_migrated(store, ids)
        finally:
            store.close()
    finally:
        drop_database(url)
