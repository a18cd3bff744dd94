"""Ids by a unique prefix, as the tables print them (8 digits), like git's short hashes: the
resolve route on both stores, and every `memory` command that takes an id."""

from __future__ import annotations

import json
import sys
import uuid
from types import SimpleNamespace

import pytest
from support.cli import invoke

from neuralgentics.cli import build_app

# Three ids sharing their first four digits, two of them their first eight.
A = "abcd1234-0000-4000-8000-000000000001"
B = "abcd1234-1111-4000-8000-000000000002"
C = "abcd9999-0000-4000-8000-000000000003"


@pytest.fixture
def next_ids(monkeypatch: pytest.MonkeyPatch, store) -> list[str]:
    """Ids the store hands to its next inserts, in order (then random ones again)."""
    queue: list[str] = []
    module = sys.modules[type(store).__module__]

    def uuid4() -> uuid.UUID:
        return uuid.UUID(queue.pop(0)) if queue else uuid.uuid4()

    monkeypatch.setattr(module, "uuid", SimpleNamespace(uuid4=uuid4, UUID=uuid.UUID))
    return queue


def add(client, content: str) -> str:
    # detection off: "the second memory" reads as a likely update of "the first memory", and
    # the edge kept for it would take the next queued id (ids are for memories here)
    r = client.post("/memory/add", json={"content": content, "detection": "off"})
    assert r.status_code == 201, r.text
    return r.json()["memory"]["id"]


def test_a_unique_start_names_one_memory_and_a_shared_one_is_refused(client, next_ids):
    next_ids += [A, B, C]
    for text in ("first", "second", "third"):
        add(client, f"the {text} memory")

    def resolve(ref: str, **params):
        return client.get(f"/memory/resolve/{ref}", params=params)

    assert resolve("abcd9").json() == {"id": C, "kind": "memory"}
    assert resolve("ABCD-9999").json()["id"] == C  # case and dashes do not matter
    assert resolve(A).json()["id"] == A  # a whole id is itself
    ambiguous = resolve("abcd")
    assert ambiguous.status_code == 422
    error = ambiguous.json()["error"]
    assert error["code"] == "ambiguous_id" and error["candidates"] == [A, B, C]
    assert "3 memory ids start with it" in error["message"]
    assert resolve("abcd1234").json()["error"]["candidates"] == [A, B]
    missing = resolve("0123")
    assert missing.status_code == 404 and "no memory id starts with '0123'" in missing.text
    for bad in ("abc", "zzzz", "abcd1234abcd1234abcd1234abcd12345"):
        r = resolve(bad)
        assert r.status_code == 422 and "at least 4 hex digits" in r.json()["error"]["message"]
    assert resolve("abcd", kind="task").status_code == 422


def test_relationship_ids_resolve_on_their_own(client, next_ids):
    first, second = add(client, "one memory"), add(client, "another memory")
    next_ids.append("feedface-0000-4000-8000-000000000009")
    rel = client.post(
        "/memory/relationship",
        json={"source_id": first, "target_id": second, "relationship_type": "RELATED_TO"},
    ).json()["id"]
    assert rel.startswith("feedface")
    got = client.get("/memory/resolve/feedface", params={"kind": "relationship"}).json()
    assert got == {"id": rel, "kind": "relationship"}
    assert client.get("/memory/resolve/feedface").status_code == 404  # not a memory's


# --- the commands, in-process against the local store ------------------------------------


def cli(*args: str):
    result = invoke(build_app("memory"), ["memory", *args])
    return result


def seed(*contents: tuple[str, str, dict]) -> None:
    """Memories with chosen ids in the store `--local` opens: (id, content, extra fields)."""
    from fastapi.testclient import TestClient

    from neuralgentics.app.core import create_app
    from neuralgentics.config import get_settings
    from neuralgentics.memini.store import sqlite

    settings = get_settings()
    store = sqlite.SQLiteStore(settings.sqlite_path)
    queue = [memory_id for memory_id, _, _ in contents]
    real = sqlite.uuid
    sqlite.uuid = SimpleNamespace(uuid4=lambda: uuid.UUID(queue.pop(0)), UUID=uuid.UUID)  # type: ignore[assignment]
    try:
        with TestClient(create_app(settings, store=store)) as client:
            for memory_id, content, extra in contents:
                r = client.post("/memory/add", json={"content": content, **extra})
                assert r.json()["memory"]["id"] == memory_id
    finally:
        sqlite.uuid = real
        store.close()


def added(*args: str) -> str:
    r = cli("add", *args, "--local", "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)["memory"]["id"]


def test_every_memory_command_takes_the_short_id_the_tables_print():
    seed(
        (A, "Deploys go out on Tuesdays", {"tags": ["ops"], "metadata": {"owner": "platform"}}),
        (B, "The staging database listens on port 6543", {}),
    )

    listed = cli("list", "--local")
    assert listed.exit_code == 0 and A[:8] in listed.stdout
    # the table prints 8 digits; those two share them, so one more is needed
    shared = cli("get", A[:8], "--local")
    assert shared.exit_code == 2
    assert "ambiguous" in shared.stderr and A in shared.stderr and B in shared.stderr

    shown = cli("get", "abcd1234-", "--local")
    assert shown.exit_code == 2  # still both
    shown = cli("get", "abcd12340", "--local")
    assert shown.exit_code == 0, shown.output
    assert "tags:       ops" in shown.stdout
    assert 'metadata:   {"owner": "platform"}' in shown.stdout
    assert "Deploys go out on Tuesdays" in shown.stdout

    assert cli("trust", B[:13], "user_confirmed", "--local").exit_code == 0
    linked = cli("relate", A[:13], "RELATED_TO", B[:13], "--local")
    assert linked.exit_code == 0, linked.output
    rel_id = linked.stdout.split("linked: ")[1].strip()
    detail = cli("get", A, "--local")
    assert f"{rel_id[:8]}  {A[:8]} RELATED_TO {B[:8]} (1.00)" in detail.stdout
    related = cli("related", A[:13], "--local")
    assert related.exit_code == 0 and B[:8] in related.stdout
    assert cli("unrelate", rel_id[:8], "--local").exit_code == 0
    assert "no memory is linked to" in cli("related", A, "--local").stdout
    assert cli("update", B[:13], "--tag", "db", "--local").exit_code == 0
    assert "tags:       db" in cli("get", B, "--local").stdout
    gone = cli("delete", B[:13], "--local")
    assert gone.exit_code == 0 and f"deleted: {B}" in gone.stdout
    # B gone: its 8 digits name A alone now
    assert cli("get", A[:8], "--local").exit_code == 0
    nothing = cli("get", "0000", "--local")
    assert nothing.exit_code == 2 and "no memory id starts with '0000'" in nothing.stderr
    newer = added("Deploys go out on Wednesdays now", "--detection", "off")
    replaced = cli("supersede", newer[:8], A[:8], "--local")
    assert replaced.exit_code == 0, replaced.output
    assert f"superseded: {A}" in replaced.stdout
    assert f"superseded by: {newer}" in cli("get", A[:8], "--local").stdout


def test_commands_that_find_nothing_say_so():
    empty = cli("list", "--local")
    assert empty.exit_code == 0 and empty.stdout.strip() == "no memory stored yet"
    assert added("Lunch is at noon") != ""
    filtered = cli("list", "--local", "-p", "nope")
    assert filtered.exit_code == 0 and filtered.stdout.strip() == "no memory matches these filters"
    nohit = cli("query", "anything", "--local", "-p", "nope")
    assert nohit.exit_code == 0 and "no memory matches 'anything'" in nohit.stdout
    assert json.loads(cli("query", "x", "--local", "-p", "nope", "--json").stdout)["hits"] == []
