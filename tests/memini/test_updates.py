"""Update detection on write (issue 17 items 1, 2 and 4), through the HTTP API and the CLI,
on both stores (SQLite and PostgreSQL), with the real MiniLM model and the fitted weights.

What a user notices: an update hides the fact it replaces (kept, with its history); a related
but different fact hides nothing; an unsure case is reported and one call confirms it; two
sources disagreeing are linked and the older loses trust; a failing request changes nothing.
The facts here are invented for the tests (none is from the evaluation set)."""

from __future__ import annotations

import json
import uuid

import pytest
from support.cli import CliResult, neuralgentics


def add(client, content: str, **extra) -> dict:
    r = client.post("/memory/add", json={"content": content, "project": "shop", **extra})
    assert r.status_code in (200, 201), r.text
    return r.json()


def live_ids(client, query: str) -> list[str]:
    hits = client.post("/memory/query", json={"query": query, "project": "shop"}).json()["hits"]
    return [h["memory"]["id"] for h in hits]


def counts(client) -> dict:
    return client.get("/health").json()["counts"]


def test_an_update_supersedes_the_fact_it_replaces(client):
    old = add(client, "The CI pipeline runs on Jenkins.")["memory"]["id"]
    add(client, "Frontend tests run with Vitest.")
    new = add(client, "CI moved to GitHub Actions; the Jenkins box was retired.")
    [gone] = new["superseded"]
    assert gone["id"] == old and gone["relation"] == "SUPERSEDES"
    assert gone["score"] >= 0.5 and "Jenkins" in gone["reason"]
    assert new["likely_updates"] == [] and new["contradicts"] == []
    # hidden from queries, kept with its history and the edge that says why
    assert old not in live_ids(client, "where does CI run?")
    assert new["memory"]["id"] in live_ids(client, "where does CI run?")
    detail = client.get(f"/memory/{old}").json()
    assert detail["memory"]["superseded_by"] == new["memory"]["id"]
    [edge] = detail["relationships"]
    assert edge["relationship_type"] == "SUPERSEDES" and edge["metadata"]["detected"] == "auto"
    assert edge["metadata"]["reason"] == gone["reason"]
    everything = client.post(
        "/memory/query", json={"query": "CI", "project": "shop", "include_superseded": True}
    ).json()["hits"]
    assert old in {h["memory"]["id"] for h in everything}


@pytest.mark.parametrize(
    "first, second",
    [
        ("The frontend is built with Vite.", "The backend is built with Gradle."),
        (
            "Ana Lima owns the billing service.",
            "Ana's team also includes Bo Chen for the invoice exports.",
        ),
        ("Deploys go out on Thursdays.", "Database backups run every night at 02:00."),
    ],
)
def test_a_related_but_different_fact_hides_nothing(client, first, second):
    old = add(client, first)["memory"]["id"]
    new = add(client, second)
    assert new["superseded"] == [] and new["contradicts"] == []
    assert client.get(f"/memory/{old}").json()["memory"]["superseded_by"] is None
    assert old in live_ids(client, first)
    assert counts(client)["relationships"] == 0


def test_unsure_is_reported_and_one_call_confirms(client):
    old = add(client, "Releases are tagged by Maria.")["memory"]["id"]
    new = add(client, "Releases are tagged by Tom.")
    new_id = new["memory"]["id"]
    assert new["superseded"] == []
    [likely] = new["likely_updates"]
    assert likely["id"] == old and likely["content"].startswith("Releases are tagged by Maria")
    assert 0 < likely["score"] < 1 and likely["reason"]
    assert client.get(f"/memory/{old}").json()["memory"]["superseded_by"] is None  # nothing yet

    r = client.post(f"/memory/{new_id}/supersede", json={"ids": [old], "actor": "agent"})
    assert r.status_code == 200, r.text
    assert [f["id"] for f in r.json()["superseded"]] == [old]
    detail = client.get(f"/memory/{old}").json()
    assert detail["memory"]["superseded_by"] == new_id
    # the likely update was kept as a RELATED_TO edge on add (it ranks the newer first until
    # confirmed: test_likely_ranking.py); the confirmation is a SUPERSEDES edge beside it
    edges = {e["relationship_type"]: e["metadata"] for e in detail["relationships"]}
    # who made the supersession (issue 28): the owner token is the user, "agent" only a label
    assert edges["SUPERSEDES"] == {"detected": "confirmed", "by": "user", "by_name": "agent"}
    assert edges["RELATED_TO"]["detected"] == "likely_update"
    assert old not in live_ids(client, "who tags the releases?")
    # confirming again changes nothing
    again = client.post(f"/memory/{new_id}/supersede", json={"ids": [old]})
    assert again.status_code == 200 and counts(client)["relationships"] == 2


def test_two_sources_disagreeing_are_linked_and_the_older_loses_trust(client):
    old = add(client, "The wiki says the search cluster has 12 nodes.")["memory"]["id"]
    new = add(client, "The ops dashboard shows 9 nodes in the search cluster.")
    [linked] = new["contradicts"]
    assert linked["id"] == old and linked["relation"] == "CONTRADICTS"
    assert new["superseded"] == []
    detail = client.get(f"/memory/{old}").json()
    assert detail["memory"]["trust_score"] == pytest.approx(0.4)
    assert detail["memory"]["superseded_by"] is None  # both stay: the user decides
    assert [e["event"] for e in detail["trust_history"]] == ["contradicted"]
    [edge] = detail["relationships"]
    assert (edge["source_id"], edge["target_id"]) == (new["memory"]["id"], old)
    assert edge["relationship_type"] == "CONTRADICTS"
    assert set(live_ids(client, "how many nodes does the search cluster have?")) >= {
        old,
        new["memory"]["id"],
    }


def test_report_mode_and_off_change_nothing(client):
    old = add(client, "Nightly backups are kept for 7 days.")["memory"]["id"]
    reported = add(client, "Backups are now kept for 30 days.", detection="report")
    assert reported["superseded"] == []
    assert [f["id"] for f in reported["likely_updates"]] == [old]
    off = add(client, "Backups are kept for 60 days from now on.", detection="off")
    assert off["superseded"] == off["likely_updates"] == off["contradicts"] == []
    assert counts(client)["relationships"] == 0
    assert client.get(f"/memory/{old}").json()["memory"]["superseded_by"] is None


def test_supersedes_on_add_is_explicit_and_all_or_nothing(client):
    a = add(client, "Lint runs with flake8.", detection="off")["memory"]["id"]
    b = add(client, "Type checks run with pyright.", detection="off")["memory"]["id"]
    missing = str(uuid.uuid4())
    before = counts(client)
    r = client.post(
        "/memory/add",
        json={
            "content": "Code checks: ruff and mypy.",
            "project": "shop",
            "supersedes": [a, missing],
        },
    )
    assert r.status_code == 404 and r.json()["error"]["field"] == "supersedes"
    assert counts(client) == before  # the memory was not stored either
    done = add(client, "Code checks: ruff and mypy.", supersedes=[a, b], detection="off")
    assert {f["id"] for f in done["superseded"]} == {a, b}
    assert all(f["reason"] == "requested" for f in done["superseded"])
    assert live_ids(client, "which linters run?") == [done["memory"]["id"]]


def test_supersede_similar_still_works_with_detection_on(client):
    first = add(client, "The staging database password rotates every 30 days")["memory"]["id"]
    again = add(
        client,
        "Staging DB password rotates every 30 days",
        similar_threshold=0.8,
        supersede_similar=True,
    )
    assert [f["id"] for f in again["superseded"]] == [first]
    assert client.get(f"/memory/{first}").json()["memory"]["superseded_by"] == again["memory"]["id"]


def test_detection_stays_within_the_project(client):
    old = add(client, "The CI pipeline runs on Jenkins.", project="other")["memory"]["id"]
    new = add(client, "CI moved to GitHub Actions; the Jenkins box was retired.")
    assert new["superseded"] == [] and new["likely_updates"] == []
    assert client.get(f"/memory/{old}").json()["memory"]["superseded_by"] is None


def test_the_supersede_route_refuses_bad_requests(client):
    a = add(client, "Uploads are limited to 10 MB.", detection="off")["memory"]["id"]
    b = add(client, "The upload limit is 25 MB.", detection="off")["memory"]["id"]
    missing = str(uuid.uuid4())
    cases = [
        (b, {"ids": []}, 422, "ids"),
        (b, {"ids": [a, missing]}, 404, "ids"),
        (b, {"ids": ["nope"]}, 422, "ids"),
        (b, {"ids": [b]}, 422, "ids"),
        (missing, {"ids": [a]}, 404, "id"),
    ]
    for source, body, status, field in cases:
        r = client.post(f"/memory/{source}/supersede", json=body)
        assert r.status_code == status, (body, r.text)
        assert r.json()["error"]["field"] == field
    assert counts(client)["relationships"] == 0
    assert client.post(f"/memory/{b}/supersede", json={"ids": [a]}).status_code == 200
    cycle = client.post(f"/memory/{a}/supersede", json={"ids": [b]})
    assert cycle.status_code == 409 and "cycle" in cycle.json()["error"]["message"]
    assert counts(client)["relationships"] == 1


def test_the_cli_says_what_the_add_did_and_how_to_confirm():
    def run(*args: str) -> CliResult:
        done = neuralgentics("memory", *args, "--local")  # over this test's private home
        assert done.returncode == 0, done.stderr
        return done

    old = json.loads(run("add", "The CI pipeline runs on Jenkins.", "--json").stdout)["memory"][
        "id"
    ]
    shown = run("add", "CI moved to GitHub Actions; the Jenkins box was retired.").stdout
    assert f"supersedes: {old}" in shown and "why:" in shown
    rest = json.loads(run("add", "Releases are tagged by Maria.", "--json").stdout)
    unsure = run("add", "Releases are tagged by Tom.").stdout
    assert f"likely update of: {rest['memory']['id']}" in unsure
    confirm = next(line.strip() for line in unsure.splitlines() if "confirm:" in line)
    args = confirm.removeprefix("confirm: neuralgentics memory ").split()
    assert run(*args).stdout.startswith(f"superseded: {rest['memory']['id']}")
    listed = json.loads(run("list", "--json").stdout)["items"]
    assert {m["content"] for m in listed} == {
        "CI moved to GitHub Actions; the Jenkins box was retired.",
        "Releases are tagged by Tom.",
    }


def test_adding_the_same_text_again_with_supersedes_links_the_existing_memory(client):
    old = add(client, "Lint runs with flake8.", detection="off")["memory"]["id"]
    first = add(client, "Lint runs with ruff.", detection="off")["memory"]["id"]
    refused = client.post(
        "/memory/add",
        json={"content": "Lint runs with ruff.", "project": "shop", "supersedes": [first]},
    )
    assert refused.status_code == 422  # a memory cannot supersede itself
    assert client.get(f"/memory/{first}").json()["trust_history"] == []  # nothing recorded
    again = add(client, "Lint runs with ruff.", supersedes=[old])
    assert again["created"] is False and again["memory"]["id"] == first
    assert [f["id"] for f in again["superseded"]] == [old]
    assert client.get(f"/memory/{old}").json()["memory"]["superseded_by"] == first


def test_records_of_what_happened_are_history_not_updates(client):
    """Task results and session backups (the orchestrator's and the plugin's) never supersede
    one another, and a fact never supersedes or contradicts them."""
    first = add(
        client,
        'Result of "run tests" by coder:\n12 passed, 1 failed: test_login timed out',
        source_type="task_result",
    )["memory"]["id"]
    second = add(
        client, 'Result of "run tests" by coder:\n13 passed in 4.2 s', source_type="task_result"
    )
    assert second["superseded"] == second["likely_updates"] == second["contradicts"] == []
    fact = add(client, "The test suite now passes: 13 tests, test_login fixed.")
    assert fact["superseded"] == fact["likely_updates"] == fact["contradicts"] == []
    assert client.get(f"/memory/{first}").json()["memory"]["superseded_by"] is None
    assert counts(client)["relationships"] == 0
