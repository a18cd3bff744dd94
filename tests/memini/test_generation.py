"""Fresh context within a turn (issue 27 item 6), on both stores: every memini-core response
names the memory generation, which changes with each committed memory write and with nothing
else, so the plugin builds its context package again after a save (the plugin side:
tests/opencode/plugin.test.ts, "a save that supersedes a fact")."""

from __future__ import annotations

from neuralgentics.memini.generation import HEADER

OLD = "The capybara cache runs on Redis 6."
NEW = "The capybara cache runs on Redis 7 since the upgrade."


def _gen(response) -> str:
    value = response.headers.get(HEADER)
    assert value, f"{response.request.method} {response.request.url.path}: no {HEADER}"
    return value


def test_every_write_changes_the_generation_and_reads_do_not(client) -> None:
    seen: list[str] = [_gen(client.get("/health"))]

    def write(response) -> dict:
        assert response.status_code < 300, response.text
        assert _gen(response) not in seen, response.request.url.path
        seen.append(_gen(response))
        return response.json() if response.content else {}

    def read(response) -> None:
        assert response.status_code < 300, response.text
        assert _gen(response) == seen[-1], response.request.url.path

    a = write(client.post("/memory/add", json={"content": OLD, "project": "p"}))["memory"]["id"]
    b = write(
        client.post("/memory/add", json={"content": NEW, "project": "p", "detection": "off"})
    )["memory"]["id"]
    read(client.post("/memory/query", json={"query": "Redis version", "project": "p"}))
    read(client.get("/memory", params={"project": "p"}))
    read(client.get(f"/memory/{a}"))
    read(
        client.post(
            "/orchestrator/context", json={"task": "Which Redis?", "agent": "build", "project": "p"}
        )
    )
    write(client.post(f"/memory/{a}/trust", json={"event": "user_confirmed"}))
    write(client.post(f"/memory/{b}/supersede", json={"ids": [a]}))
    write(client.post(f"/memory/{a}/restore"))
    rel = write(
        client.post(
            "/memory/relationship",
            json={"source_id": b, "target_id": a, "relationship_type": "RELATED_TO"},
        )
    )
    write(client.delete(f"/memory/relationship/{rel['id']}"))
    write(client.patch(f"/memory/{a}", json={"tags": ["cache"]}))
    exported = client.get("/memory/export", params={"project": "p"})
    read(exported)
    write(client.delete(f"/memory/{a}"))
    write(
        client.post(
            "/memory/import",
            content=exported.content,
            headers={"content-type": "application/x-ndjson"},
        )
    )
    # refused writes change nothing, so nothing is built again
    for refused in (
        client.post("/memory/add", json={"content": "", "project": "p"}),
        client.post(f"/memory/{b}/restore"),
        client.post("/memory/00000000-0000-4000-8000-000000000000/trust", json={"event": "x"}),
    ):
        assert refused.status_code >= 400
        assert _gen(refused) == seen[-1]


def test_the_next_context_package_after_a_supersession_has_only_the_new_fact(client) -> None:
    old = client.post("/memory/add", json={"content": OLD, "project": "p"}).json()["memory"]
    ask = {
        "task": "Which Redis version does the capybara cache run on?",
        "agent": "build",
        "project": "p",
        "format": "markdown",
    }
    before = client.post("/orchestrator/context", json=ask)
    assert OLD in before.text
    saved = client.post(
        "/memory/add", json={"content": NEW, "project": "p", "supersedes": [old["id"]]}
    )
    assert _gen(saved) != _gen(before)
    after = client.post("/orchestrator/context", json=ask)
    assert NEW in after.text and OLD not in after.text
    assert _gen(after) == _gen(saved)
