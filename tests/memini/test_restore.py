"""Every automatic decision is reviewable and reversible (issue 27 item 5), on both stores: the
add response, `GET /memory/{id}` and `memory get` say what was hidden and why; `memory list
--include-superseded` marks hidden rows; `POST /memory/{id}/restore` and `memory restore` undo a
supersession in one call, recorded in the memory's history; bad ids change nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.cli import neuralgentics
from support.postgres import drop_database, fresh_database

OLD = "The CI pipeline runs on Jenkins."
NEW = "CI moved to GitHub Actions; the Jenkins box was retired."


def _add(client, content: str, **kw) -> dict:
    r = client.post("/memory/add", json={"content": content, "project": "web", **kw})
    assert r.status_code == 201, r.text
    return r.json()


def _query_ids(client) -> list[str]:
    r = client.post(
        "/memory/query", json={"query": "Which CI does the project use?", "project": "web"}
    )
    return [h["memory"]["id"] for h in r.json()["hits"]]


def test_get_says_what_hid_a_memory_and_why(client) -> None:
    old = _add(client, OLD)["memory"]
    added = _add(client, NEW)
    assert [f["id"] for f in added["superseded"]] == [old["id"]]
    reason = added["superseded"][0]["reason"]
    assert reason

    hidden = client.get(f"/memory/{old['id']}").json()
    assert hidden["memory"]["superseded_by"] == added["memory"]["id"]
    [d] = hidden["decisions"]
    assert (d["relation"], d["direction"], d["other_id"], d["how"]) == (
        "SUPERSEDES",
        "by",
        added["memory"]["id"],
        "auto",
    )
    assert d["reason"] == reason and d["other_content"] == NEW and d["score"] > 0.5
    assert d["undo"] == f"neuralgentics memory restore {old['id']}"
    # seen from the newer memory: what it hid
    [d] = client.get(f"/memory/{added['memory']['id']}").json()["decisions"]
    assert (d["direction"], d["other_id"], d["other_content"]) == ("of", old["id"], OLD)
    assert d["undo"] == f"neuralgentics memory restore {old['id']}"


def test_restore_brings_a_superseded_memory_back_in_one_call(client) -> None:
    old = _add(client, OLD)["memory"]
    new = _add(client, NEW, detection="off", supersedes=[old["id"]])["memory"]
    assert old["id"] not in _query_ids(client)

    r = client.post(f"/memory/{old['id']}/restore", json={"actor": "alice"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["memory"]["superseded_by"] is None
    assert body["memory"]["trust_score"] == old["trust_score"]
    [undone] = body["restored"]
    assert (undone["relation"], undone["other_id"], undone["how"]) == (
        "SUPERSEDES",
        new["id"],
        "explicit",
    )
    assert old["id"] in _query_ids(client)
    listed = client.get("/memory", params={"project": "web"}).json()["items"]
    assert {m["id"] for m in listed} == {old["id"], new["id"]}

    detail = client.get(f"/memory/{old['id']}").json()
    assert detail["decisions"] == [] and detail["relationships"] == []
    [event] = detail["trust_history"]
    assert (event["event"], event["delta"], event["actor"]) == ("restored", 0.0, "alice")
    assert new["id"] in event["note"] and "explicit" in event["note"]
    assert body["events"] == [event]


def test_restore_undoes_every_supersession_hiding_it(client) -> None:
    old = _add(client, OLD)["memory"]
    a = _add(client, "CI runs on Buildkite.", detection="off")["memory"]
    b = _add(client, "CI runs on CircleCI.", detection="off")["memory"]
    for newer in (a, b):
        r = client.post(f"/memory/{newer['id']}/supersede", json={"ids": [old["id"]]})
        assert r.status_code == 200
    body = client.post(f"/memory/{old['id']}/restore").json()
    assert {d["other_id"] for d in body["restored"]} == {a["id"], b["id"]}
    assert body["memory"]["superseded_by"] is None
    assert len(client.get(f"/memory/{old['id']}").json()["trust_history"]) == 2


def test_restore_refuses_what_it_cannot_undo_and_changes_nothing(client) -> None:
    live = _add(client, OLD)["memory"]
    before = client.get(f"/memory/{live['id']}").json()

    r = client.post(f"/memory/{live['id']}/restore")
    assert r.status_code == 409
    assert "not superseded" in r.json()["error"]["message"]
    r = client.post("/memory/00000000-0000-4000-8000-000000000000/restore")
    assert r.status_code == 404
    r = client.post("/memory/not-an-id/restore")
    assert r.status_code == 422 and r.json()["error"]["field"] == "id"
    r = client.post(f"/memory/{live['id']}/restore", json={"actor": "a", "extra": 1})
    assert r.status_code == 422
    assert client.get(f"/memory/{live['id']}").json() == before


# -- the CLI, on each store -----------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgres"])
def cli_env(request, tmp_path) -> Iterator[dict]:
    if request.param == "sqlite":
        yield {"NEURALGENTICS_HOME": str(tmp_path / "home")}
        return
    url = fresh_database(request.getfixturevalue("pg_server"), "restorecli")
    yield {"NEURALGENTICS_HOME": str(tmp_path / "home"), "NEURALGENTICS_DATABASE_URL": url}
    drop_database(url)


def test_cli_list_get_and_restore(cli_env) -> None:
    def memory(*args: str):
        return neuralgentics("memory", *args, "--local", env=cli_env)

    import json

    old = json.loads(memory("add", OLD, "-p", "web", "--json").stdout)["memory"]["id"]
    added = memory("add", NEW, "-p", "web")
    assert added.returncode == 0
    assert f"undo: neuralgentics memory restore {old}" in added.stdout
    new = added.stdout.split()[1]

    listed = memory("list", "-p", "web", "--include-superseded")
    assert "hidden by" in listed.stdout
    rows = {line.split()[1]: line for line in listed.stdout.splitlines() if line.startswith("│")}
    assert new[:8] in rows[old[:8]]  # the hidden row names what hides it
    assert rows[new[:8]].rstrip(" │").endswith("-")
    assert "memory restore ID" in listed.stdout
    plain = memory("list", "-p", "web")
    assert old[:8] not in plain.stdout and "hidden by" not in plain.stdout

    got = memory("get", old[:8])
    assert got.returncode == 0
    assert "hidden by" in got.stdout and "why:" in got.stdout
    assert f"undo: neuralgentics memory restore {old}" in got.stdout

    restored = memory("restore", old[:8], "--actor", "alice")
    assert restored.returncode == 0, restored.stderr
    assert f"restored: {old}" in restored.stdout and "was hidden by" in restored.stdout
    assert "restored" in memory("get", old).stdout
    assert old[:8] in memory("list", "-p", "web").stdout

    again = memory("restore", old)
    assert again.returncode == 2 and "not superseded" in again.stderr
    missing = memory("restore", "00000000-0000-4000-8000-000000000000")
    assert missing.returncode == 2


def test_the_store_removes_edges_all_or_nothing(service) -> None:
    """`remove_relationships` (what restore writes through): an edge gone by then fails the
    whole call, and the other edges and the trust change stay as they were."""
    from neuralgentics.memini.errors import NotFound
    from neuralgentics.memini.store.base import TrustChange

    old = service.add(OLD, project="web").memory
    new = service.add(NEW, project="web", detection="off", supersedes=[old.id]).memory
    [edge] = service.store.edges_of([old.id], ["SUPERSEDES"])
    change = TrustChange(old.id, "restored", 0.0, "t", "n")
    with pytest.raises(NotFound):
        service.store.remove_relationships(
            [edge.id, "00000000-0000-4000-8000-000000000000"], [change]
        )
    assert service.store.get_memory(old.id).superseded_by == new.id
    assert service.store.trust_history(old.id) == []
    [removed] = service.store.remove_relationships([edge.id], [change])
    assert removed.id == edge.id
    assert service.store.get_memory(old.id).superseded_by is None
