"""A likely update that was reported but not acted on still orders the query (issue 17): the
newer fact ranks above the older one it probably replaces, the older stays findable, and a
question that plainly asks for the older fact still gets it first. Both stores, real MiniLM.
The pure rule (ranking.likely_updates_first) is checked on made-up candidates."""

from __future__ import annotations

from datetime import UTC, datetime

from neuralgentics.memini import ranking

OLD = "Releases are tagged by Maria."
NEW = "Tom tags the releases these days."
QUESTION = "Who tags releases?"


def add(client, content: str, **extra) -> dict:
    r = client.post("/memory/add", json={"content": content, "project": "shop", **extra})
    assert r.status_code in (200, 201), r.text
    return r.json()


def hits(client, query: str) -> list[dict]:
    r = client.post("/memory/query", json={"query": query, "project": "shop"})
    assert r.status_code == 200, r.text
    return r.json()["hits"]


def test_the_newer_of_a_likely_pair_ranks_first_and_the_older_stays(client):
    old = add(client, OLD)["memory"]["id"]
    added = add(client, NEW)
    new = added["memory"]["id"]
    assert added["superseded"] == [] and [f["id"] for f in added["likely_updates"]] == [old]
    # kept as an edge new -> old that says what it is
    [edge] = client.get(f"/memory/{old}").json()["relationships"]
    assert (edge["source_id"], edge["target_id"]) == (new, old)
    assert edge["relationship_type"] == "RELATED_TO"
    assert edge["metadata"]["detected"] == "likely_update"
    assert edge["confidence"] == added["likely_updates"][0]["score"]
    found = hits(client, QUESTION)
    ids = [h["memory"]["id"] for h in found]
    assert ids[:2] == [new, old]  # the ranking alone puts the older first (the next test)
    assert found[1]["why"]["newer"] == new
    # confirming later supersedes it as before (the edge stays as history)
    r = client.post(f"/memory/{new}/supersede", json={"ids": [old]})
    assert r.status_code == 200
    assert old not in [h["memory"]["id"] for h in hits(client, QUESTION)]


def test_without_the_edge_the_older_ranks_first(client):
    """The same two facts written with detection `report` (nothing recorded): the order is the
    ranking's own, so the edge is what moved the newer up in the test above."""
    old = add(client, OLD, detection="report")["memory"]["id"]
    add(client, NEW, detection="report")
    assert client.get("/health").json()["counts"]["relationships"] == 0
    assert hits(client, QUESTION)[0]["memory"]["id"] == old


def _candidate(cid: str, relevance: float, minute: int) -> ranking.Candidate:
    c = ranking.Candidate(cid, cid, datetime(2026, 1, 1, 0, minute, tzinfo=UTC), 0.5)
    c.relevance = c.score = relevance
    return c


def test_the_rule_orders_hides_only_when_sure_and_keeps_a_clear_answer():
    rule = ranking.Likely(margin=0.3, hide_score=0.8, hide_below=5)

    def order(pair_score: float, old_relevance: float) -> list[str]:
        ranked = [_candidate("old", old_relevance, 0)]
        ranked += [_candidate(f"c{i}", 0.5 - i / 100, 1) for i in range(5)]
        ranked.insert(2, _candidate("new", 0.55, 2))
        ranked.sort(key=lambda c: -c.relevance)
        pairs = [ranking.LikelyPair("new", "old", pair_score)]
        return [c.id for c in ranking.likely_updates_first(ranked, pairs, rule)]

    # unsure (0.5): the older goes right under the newer, nowhere lower
    assert order(0.5, 0.7) == ["new", "old", "c0", "c1", "c2", "c3", "c4"]
    # sure (0.85): the older leaves the top 5 but is still returned
    assert order(0.85, 0.7) == ["new", "c0", "c1", "c2", "c3", "old", "c4"]
    # the question asks for the older (it leads by more than the margin): left alone
    assert order(0.85, 0.9) == ["old", "new", "c0", "c1", "c2", "c3", "c4"]
    # no pair among the hits: nothing moves
    ranked = [_candidate("a", 0.9, 0), _candidate("b", 0.8, 1)]
    assert ranking.likely_updates_first(ranked, [ranking.LikelyPair("x", "a", 0.9)], rule) == ranked
