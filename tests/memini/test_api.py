"""memini-core over HTTP, on both stores: what a caller of each route sees."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

SEED_ROUTES = {
    ("post", "/memory/query"),
    ("post", "/memory/add"),
    ("get", "/memory/{memory_id}"),
    ("post", "/memory/{memory_id}/trust"),
    ("get", "/memory/related/{memory_id}"),
    ("post", "/memory/relationship"),
    ("get", "/project/index"),
    ("get", "/health"),
}


def add(client, content: str, **extra) -> dict:
    response = client.post("/memory/add", json={"content": content, **extra})
    assert response.status_code in (200, 201), response.text
    return response.json()


def test_openapi_lists_every_seed_route(client):
    spec = client.get("/openapi.json").json()
    present = {(method, path) for path, ops in spec["paths"].items() for method in ops}
    assert SEED_ROUTES <= present


def test_health_reports_store_model_and_counts(client, store):
    add(client, "Health checks should count me")
    body = client.get("/health").json()
    assert body["status"] == "ok"
    assert body["store"] == store.kind
    assert body["embedding_model"] == "all-MiniLM-L6-v2"
    assert body["counts"]["memories"] == 1


def test_add_then_get_shows_memory_and_history(client):
    created = add(
        client, "The CI runs on two cores", project="/repo", tags=["ci"], source_type="agent"
    )
    assert created["created"] is True
    mem = created["memory"]
    assert mem["trust_score"] == 0.5 and mem["tags"] == ["ci"] and mem["project"] == "/repo"
    detail = client.get(f"/memory/{mem['id']}").json()
    assert detail["memory"]["content"] == "The CI runs on two cores"
    assert detail["trust_history"] == []


def test_same_content_twice_is_one_memory_with_an_agent_used_event(client):
    first = add(client, "Use ruff for linting", project="p")
    again = client.post(
        "/memory/add", json={"content": "Use ruff for linting", "project": "p", "actor": "coder"}
    )
    assert again.status_code == 200
    assert again.json()["created"] is False
    assert again.json()["memory"]["id"] == first["memory"]["id"]
    assert again.json()["memory"]["trust_score"] == pytest.approx(0.55)
    history = client.get(f"/memory/{first['memory']['id']}").json()["trust_history"]
    assert [(e["event"], e["actor"]) for e in history] == [("agent_used", "coder")]
    # another project is another scope
    assert add(client, "Use ruff for linting", project="q")["created"] is True
    assert client.get("/memory", params={"project": "p"}).json()["total"] == 1


def test_query_finds_by_meaning_and_by_keyword_and_says_why(client):
    add(client, "Deployments go out every Tuesday after the release review")
    add(client, "The function parse_config_file reads YAML settings")
    add(client, "Bananas are rich in potassium")
    by_meaning = client.post(
        "/memory/query", json={"query": "when do we ship to production?", "top_k": 3}
    ).json()
    assert by_meaning["hits"][0]["memory"]["content"].startswith("Deployments go out")
    why = by_meaning["hits"][0]["why"]
    assert why["similarity"] > 0.2 and why["vector_rank"] == 1 and why["trust"] == 0.5
    by_word = client.post("/memory/query", json={"query": "parse_config_file", "top_k": 3}).json()
    top = by_word["hits"][0]
    assert "parse_config_file" in top["memory"]["content"]
    assert top["why"]["keyword_rank"] == 1


def test_query_filters(client):
    add(
        client, "Postgres runs the team store", project="a", source_type="user", tags=["db", "team"]
    )
    add(client, "Postgres is also used by project b", project="b", source_type="agent", tags=["db"])
    low = add(
        client, "Postgres tuning notes nobody trusts", project="a", source_type="agent", tags=["db"]
    )
    client.post(f"/memory/{low['memory']['id']}/trust", json={"event": "user_rejected"})

    def contents(**flt):
        hits = client.post("/memory/query", json={"query": "postgres", "top_k": 10, **flt}).json()[
            "hits"
        ]
        return {h["memory"]["content"] for h in hits}

    assert contents(project="b") == {"Postgres is also used by project b"}
    assert contents(source_type="user") == {"Postgres runs the team store"}
    assert contents(tags=["db", "team"]) == {"Postgres runs the team store"}
    assert "Postgres tuning notes nobody trusts" not in contents(min_trust=0.5)
    assert len(contents()) == 3


def test_trust_weighs_the_ranking(client):
    a = add(client, "Cache invalidation uses Redis pub/sub")["memory"]["id"]
    b = add(client, "Cache invalidation uses Redis keyspace events")["memory"]["id"]
    for _ in range(5):
        client.post(f"/memory/{b}/trust", json={"event": "user_confirmed"})
    for _ in range(2):
        client.post(f"/memory/{a}/trust", json={"event": "user_rejected"})
    hits = client.post("/memory/query", json={"query": "cache invalidation redis"}).json()["hits"]
    assert hits[0]["memory"]["id"] == b


def test_trust_is_clamped_and_recorded(client):
    mid = add(client, "Trust me")["memory"]["id"]
    for _ in range(7):
        r = client.post(f"/memory/{mid}/trust", json={"event": "user_confirmed", "actor": "alice"})
        assert r.status_code == 200
    assert r.json()["memory"]["trust_score"] == 1.0
    for _ in range(8):
        r = client.post(f"/memory/{mid}/trust", json={"event": "user_rejected"})
    assert r.json()["memory"]["trust_score"] == 0.0
    history = client.get(f"/memory/{mid}").json()["trust_history"]
    assert len(history) == 15
    assert history[0]["event"] == "user_confirmed" and history[0]["actor"] == "alice"
    assert history[-1]["score_after"] == 0.0


def test_parallel_trust_updates_are_never_lost(client):
    mid = add(client, "Counted from many threads")["memory"]["id"]
    for _ in range(5):  # to 1.0, so eight unbounded -0.10 steps have room (agent's are banded)
        client.post(f"/memory/{mid}/trust", json={"event": "user_confirmed"})

    def bump(_: int) -> int:
        return client.post(f"/memory/{mid}/trust", json={"event": "contradicted"}).status_code

    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(bump, range(8)))
    assert codes == [200] * 8
    detail = client.get(f"/memory/{mid}").json()
    assert detail["memory"]["trust_score"] == pytest.approx(1.0 - 8 * 0.10)
    assert len(detail["trust_history"]) == 13


def test_unknown_trust_event_changes_nothing(client):
    mid = add(client, "Stable")["memory"]["id"]
    r = client.post(f"/memory/{mid}/trust", json={"event": "liked_it"})
    assert r.status_code == 422
    assert "liked_it" in r.json()["error"]["message"]
    detail = client.get(f"/memory/{mid}").json()
    assert detail["memory"]["trust_score"] == 0.5 and detail["trust_history"] == []


def test_graph_traversal_with_depth_types_and_cycles(client):
    # numbered variants of one sentence read as updates of each other: detection off here
    ids = [
        add(client, f"Fact number {i} about the graph", detection="off")["memory"]["id"]
        for i in range(4)
    ]
    link = lambda s, t, kind: client.post(  # noqa: E731
        "/memory/relationship",
        json={
            "source_id": ids[s],
            "target_id": ids[t],
            "relationship_type": kind,
            "confidence": 0.8,
        },
    )
    assert link(0, 1, "RELATED_TO").status_code == 201
    assert link(1, 2, "DERIVED_FROM").status_code == 201
    assert link(2, 0, "RELATED_TO").status_code == 201  # a cycle
    assert link(2, 3, "RELATED_TO").status_code == 201
    one = client.get(f"/memory/related/{ids[0]}").json()
    assert {n["memory"]["id"]: n["distance"] for n in one["nodes"]} == {ids[1]: 1, ids[2]: 1}
    two = client.get(f"/memory/related/{ids[0]}", params={"depth": 2}).json()
    dist = {n["memory"]["id"]: n["distance"] for n in two["nodes"]}
    assert dist == {ids[1]: 1, ids[2]: 1, ids[3]: 2}
    far = next(n for n in two["nodes"] if n["memory"]["id"] == ids[3])
    assert [s["relationship"]["target_id"] for s in far["path"]][-1] == ids[3]
    only = client.get(f"/memory/related/{ids[1]}", params={"types": "DERIVED_FROM"}).json()
    assert [n["memory"]["id"] for n in only["nodes"]] == [ids[2]]


def test_relationship_errors_name_the_problem(client):
    a = add(client, "Edge end A", detection="off")["memory"]["id"]
    b = add(client, "Edge end B", detection="off")["memory"]["id"]
    cases = [
        ({"source_id": a, "target_id": a, "relationship_type": "RELATED_TO"}, 422, "itself"),
        ({"source_id": a, "target_id": b, "relationship_type": "LIKES"}, 422, "LIKES"),
        (
            {"source_id": a, "target_id": str(uuid.uuid4()), "relationship_type": "RELATED_TO"},
            404,
            "does not exist",
        ),
        (
            {"source_id": "not-a-uuid", "target_id": b, "relationship_type": "RELATED_TO"},
            422,
            "UUID",
        ),
        (
            {"source_id": a, "target_id": b, "relationship_type": "RELATED_TO", "confidence": 2},
            422,
            "confidence",
        ),
    ]
    for body, status, words in cases:
        r = client.post("/memory/relationship", json=body)
        assert r.status_code == status, (body, r.text)
        assert words in r.json()["error"]["message"]
    assert (
        client.post(
            "/memory/relationship",
            json={"source_id": a, "target_id": b, "relationship_type": "RELATED_TO"},
        ).status_code
        == 201
    )
    dup = client.post(
        "/memory/relationship",
        json={"source_id": a, "target_id": b, "relationship_type": "RELATED_TO"},
    )
    assert dup.status_code == 409
    assert client.get("/health").json()["counts"]["relationships"] == 1


def test_supersedes_hides_the_old_memory_unless_asked(client):
    old = add(client, "The API listens on port 8000")["memory"]["id"]
    new = add(client, "The API listens on port 8900")["memory"]["id"]
    client.post(
        "/memory/relationship",
        json={"source_id": new, "target_id": old, "relationship_type": "SUPERSEDES"},
    )
    hits = client.post("/memory/query", json={"query": "API port"}).json()["hits"]
    assert [h["memory"]["id"] for h in hits] == [new]
    hits = client.post(
        "/memory/query", json={"query": "API port", "include_superseded": True}
    ).json()["hits"]
    assert {h["memory"]["id"] for h in hits} == {old, new}
    assert client.get(f"/memory/{old}").json()["memory"]["superseded_by"] == new


def test_a_supersedes_cycle_is_a_409_naming_the_edge(client):
    a, b, c = (
        add(client, f"Port fact version {i}", detection="off")["memory"]["id"] for i in range(3)
    )
    link = lambda s, t: client.post(  # noqa: E731
        "/memory/relationship",
        json={"source_id": s, "target_id": t, "relationship_type": "SUPERSEDES"},
    )
    assert link(a, b).status_code == 201
    back = link(b, a)
    assert back.status_code == 409
    err = back.json()["error"]
    assert err["code"] == "conflict" and err["field"] == "target_id"
    assert f"{b} SUPERSEDES {a}" in err["message"] and "cycle" in err["message"]
    assert link(b, c).status_code == 201
    loop = link(c, a)
    assert (
        loop.status_code == 409
        and f"{a} SUPERSEDES {b} SUPERSEDES {c}" in loop.json()["error"]["message"]
    )
    assert [m["id"] for m in client.get("/memory").json()["items"]] == [a]
    assert client.get("/health").json()["counts"]["relationships"] == 2


def test_contradiction_lowers_the_older_memorys_trust(client):
    older = add(client, "Tabs are the house style")["memory"]["id"]
    newer = add(client, "Spaces are the house style")["memory"]["id"]
    r = client.post(
        "/memory/relationship",
        json={"source_id": newer, "target_id": older, "relationship_type": "CONTRADICTS"},
    )
    assert r.status_code == 201
    assert client.get(f"/memory/{older}").json()["memory"]["trust_score"] == pytest.approx(0.4)
    assert client.get(f"/memory/{newer}").json()["memory"]["trust_score"] == 0.5
    assert client.get(f"/memory/{older}").json()["trust_history"][0]["event"] == "contradicted"


def test_near_duplicates_are_reported_and_can_be_superseded(client):
    # supersede_similar is an explicit request, apart from update detection (off here)
    first = add(client, "The staging database password rotates every 30 days")["memory"]["id"]
    second = add(
        client,
        "The staging database password is rotated every thirty days",
        similar_threshold=0.8,
        detection="off",
    )
    assert [s["memory"]["id"] for s in second["similar"]] == [first]
    assert second["superseded"] == []
    third = add(
        client,
        "Staging DB password rotates every 30 days",
        similar_threshold=0.8,
        supersede_similar=True,
        detection="off",
    )
    [gone] = third["superseded"]
    assert gone["id"] in {first, second["memory"]["id"]} and gone["relation"] == "SUPERSEDES"
    detail = client.get(f"/memory/{gone['id']}").json()
    assert detail["memory"]["superseded_by"] == third["memory"]["id"]


def test_list_filters_and_pages(client):
    for i in range(7):
        add(
            client,
            f"Paged memory {i}",
            project="pages",
            tags=["even"] if i % 2 == 0 else [],
            detection="off",
        )
    page = client.get("/memory", params={"project": "pages", "limit": 3, "offset": 0}).json()
    assert page["total"] == 7 and len(page["items"]) == 3
    assert page["items"][0]["content"] == "Paged memory 6"  # newest first
    rest = client.get("/memory", params={"project": "pages", "limit": 10, "offset": 3}).json()
    assert len(rest["items"]) == 4
    assert {m["id"] for m in page["items"]}.isdisjoint({m["id"] for m in rest["items"]})
    assert client.get("/memory", params={"tag": "even"}).json()["total"] == 4


def test_update_re_embeds_and_refuses_duplicates(client):
    mid = add(client, "The logo is blue")["memory"]["id"]
    other = add(client, "The favicon is green")["memory"]["id"]
    r = client.patch(
        f"/memory/{mid}", json={"content": "Our deployment target is Kubernetes", "tags": ["infra"]}
    )
    assert r.status_code == 200 and r.json()["tags"] == ["infra"]
    hits = client.post(
        "/memory/query", json={"query": "where do we deploy? k8s cluster", "top_k": 1}
    ).json()["hits"]
    assert hits[0]["memory"]["id"] == mid
    clash = client.patch(
        f"/memory/{other}", json={"content": "Our deployment target is Kubernetes"}
    )
    assert clash.status_code == 409
    assert client.get(f"/memory/{other}").json()["memory"]["content"] == "The favicon is green"


def test_delete_removes_memory_and_its_edges(client):
    a = add(client, "Delete me")["memory"]["id"]
    b = add(client, "Keep me")["memory"]["id"]
    client.post(
        "/memory/relationship",
        json={"source_id": a, "target_id": b, "relationship_type": "RELATED_TO"},
    )
    assert client.delete(f"/memory/{a}").status_code == 204
    assert client.get(f"/memory/{a}").status_code == 404
    assert client.delete(f"/memory/{a}").status_code == 404
    assert client.get(f"/memory/related/{b}").json()["nodes"] == []
    hits = client.post("/memory/query", json={"query": "Delete me"}).json()["hits"]
    assert a not in {h["memory"]["id"] for h in hits}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"content": ""}, "content"),
        ({"content": "   "}, "content"),
        ({"content": "x" * 40_000}, "content"),
        ({"content": "ok", "tags": "not-a-list"}, "tags"),
        ({"content": "ok", "surprise": 1}, "surprise"),
    ],
)
def test_bad_add_is_refused_and_writes_nothing(refusing_client, body, field):
    r = refusing_client.post("/memory/add", json=body)
    assert r.status_code == 422
    assert r.json()["error"]["field"] == field
    assert refusing_client.get("/health").json()["counts"]["memories"] == 0


def test_missing_and_malformed_ids(client):
    assert client.get(f"/memory/{uuid.uuid4()}").status_code == 404
    r = client.get("/memory/nope")
    assert r.status_code == 422 and "UUID" in r.json()["error"]["message"]
    assert (
        client.post(f"/memory/{uuid.uuid4()}/trust", json={"event": "agent_used"}).status_code
        == 404
    )
    assert client.get(f"/memory/related/{uuid.uuid4()}").status_code == 404
    assert client.post("/memory/query", json={"query": ""}).status_code == 422


def test_content_that_is_not_valid_unicode_is_refused(client):
    r = client.post(
        "/memory/add",
        content=b'{"content": "half a pair \\ud800"}',
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 422 and r.json()["error"]["field"] == "content"
    assert client.get("/health").json()["counts"]["memories"] == 0


def test_list_paging_bounds_are_checked(client):
    assert client.get("/memory", params={"offset": 2**70}).status_code == 422
    assert client.get("/memory", params={"offset": -1}).status_code == 422
    assert client.get("/memory", params={"limit": 0}).status_code == 422
    assert client.get("/memory", params={"offset": 10**9}).json()["items"] == []
