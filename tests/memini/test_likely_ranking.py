"""A likely update that was reported but not confirmed costs the older fact nothing (issue 27
item 3; issue 17 had it re-rank the query, and a related fact that was no update then lost its
first place to its own question). It is still reported on add and kept as a RELATED_TO edge
for the one call that confirms it. Both stores, real MiniLM."""

from __future__ import annotations

OLD = "Releases are tagged by Maria from the web team."
NEW = "Releases are tagged by Tom."
QUESTION = "Who on the web team tags releases?"


def add(client, content: str, **extra) -> dict:
    r = client.post("/memory/add", json={"content": content, "project": "shop", **extra})
    assert r.status_code in (200, 201), r.text
    return r.json()


def hit_ids(client, query: str) -> list[str]:
    r = client.post("/memory/query", json={"query": query, "project": "shop"})
    assert r.status_code == 200, r.text
    return [h["memory"]["id"] for h in r.json()["hits"]]


def test_a_likely_update_is_reported_and_recorded_but_does_not_change_ranking(client):
    old = add(client, OLD)["memory"]["id"]
    added = add(client, NEW)
    new = added["memory"]["id"]
    assert added["superseded"] == [] and [f["id"] for f in added["likely_updates"]] == [old]
    # kept as an edge new -> old that says what it is
    [edge] = client.get(f"/memory/{old}").json()["relationships"]
    assert (edge["source_id"], edge["target_id"]) == (new, old)
    assert edge["relationship_type"] == "RELATED_TO"
    assert edge["metadata"]["detected"] == "likely_update"
    # the order is the ranking's own: the older, the better match, stays first
    found = hit_ids(client, QUESTION)
    assert found[:2] == [old, new]
    # confirming supersedes it (the edge stays as history)
    r = client.post(f"/memory/{new}/supersede", json={"ids": [old]})
    assert r.status_code == 200
    assert old not in hit_ids(client, QUESTION)


def test_the_order_is_the_same_as_without_any_detection(client):
    """The same two facts written with detection `report` (nothing recorded) rank the same
    way as with the likely-update edge of the test above."""
    old = add(client, OLD, detection="report")["memory"]["id"]
    new = add(client, NEW, detection="report")["memory"]["id"]
    assert client.get("/health").json()["counts"]["relationships"] == 0
    assert hit_ids(client, QUESTION)[:2] == [old, new]
