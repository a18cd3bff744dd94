"""Issue 13 (finding 2, the general rule): a request that fails changes nothing. For every
route of memini-core that can write (every POST/PATCH/DELETE route of the app, mounted routers
included, and `GET /project/index`, the original API's way to start a job), failing requests of every kind — bad
text, bad types, malformed JSON, unknown or malformed ids, conflicts, a supersession cycle,
steps out of order — answer 4xx, and a snapshot of every table of the store (both stores) and
of the orchestrator's task database is the same before and after each one."""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path

import psycopg
from fastapi.routing import APIRoute


def snapshot_store(store) -> dict[str, list[str]]:
    if store.kind == "sqlite":
        conn = sqlite3.connect(store.path)
        conn.text_factory = bytes
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_stat%'"
            )
        ]
        out = {
            n.decode() if isinstance(n, bytes) else n: sorted(
                repr(r)
                for r in conn.execute(
                    f'SELECT * FROM "{n.decode() if isinstance(n, bytes) else n}"'
                )
            )
            for n in names
        }
        conn.close()
        return out
    with psycopg.connect(store.url) as conn:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
                " AND table_type = 'BASE TABLE'"
            )
        ]
        return {
            n: sorted(r[0] for r in conn.execute(f'SELECT t::text FROM "{n}" t')) for n in names
        }


def snapshot_tasks(home: Path) -> list[str]:
    path = home / "orchestrator.db"
    if not path.exists():
        return []
    conn = sqlite3.connect(path)
    rows = sorted(repr(r) for r in conn.execute("SELECT * FROM orchestrator_tasks"))
    conn.close()
    return rows


def raw(text: str) -> dict:
    return {"content": text.encode(), "headers": {"content-type": "application/json"}}


def _routes(routes):
    for route in routes:
        inner = getattr(route, "original_router", None)  # FastAPI keeps included routers whole
        if inner is not None:
            yield from _routes(inner.routes)
        else:
            yield route


def write_routes(app) -> set[tuple[str, str]]:
    found = set()
    for route in _routes(app.routes):
        if isinstance(route, APIRoute):
            for method in route.methods - {"HEAD", "OPTIONS"}:
                if method != "GET" or route.path == "/project/index":
                    found.add((method, route.path))
    return found


def test_every_failing_write_changes_nothing(client, store, settings, tmp_path) -> None:
    def add(text: str, **kw) -> str:
        return client.post("/memory/add", json={"content": text, **kw}).json()["memory"]["id"]

    a, b, c = (
        add("Seed A: the build runs on Python 3.12", tags=["seed"]),
        add("Seed B: tests use pytest"),
        add("Seed C"),
    )
    assert (
        client.post(
            "/memory/relationship",
            json={"source_id": a, "target_id": b, "relationship_type": "SUPERSEDES"},
        ).status_code
        == 201
    )
    rel = client.post(
        "/memory/relationship",
        json={"source_id": b, "target_id": c, "relationship_type": "RELATED_TO"},
    ).json()["id"]
    client.post(f"/memory/{a}/trust", json={"event": "user_confirmed"})
    task = client.post(
        "/orchestrator/tasks", json={"task": "fix the flaky test", "session": "s1"}
    ).json()["id"]
    file_path = tmp_path / "a-file.txt"
    file_path.write_text("not a directory")
    missing = str(uuid.uuid4())
    nested = '{"d": ' * 40 + "1" + "}" * 40

    # export files for POST /memory/import: one in conflict with the store (memory `a` stored
    # with other content), one whose last edge points at nothing — found in the writing pass,
    # after a new memory was inserted, so the transaction must take it back out
    ndjson = {"content-type": "application/x-ndjson"}
    lines = [json.loads(line) for line in client.get("/memory/export").text.splitlines()]
    first = next(r for r in lines if r["type"] == "memory")
    conflicting = [dict(r, content="something else") if r is first else r for r in lines]
    fresh = dict(first, id=str(uuid.uuid4()), content="a memory only the file has", trust_events=[])
    dangling = {
        "type": "relationship",
        "id": str(uuid.uuid4()),
        "source_id": fresh["id"],
        "target_id": str(uuid.uuid4()),
        "relationship_type": "RELATED_TO",
        "confidence": 1.0,
        "created_at": "2026-01-01T00:00:00.000000+00:00",
        "metadata": {},
    }
    end = dict(lines[-1], memories=lines[-1]["memories"] + 1)
    end["relationships"] += 1
    with_dangling = [lines[0], fresh, *lines[1:-1], dangling, end]

    def ndjson_body(records: list[dict]) -> dict:
        return {"content": "".join(json.dumps(r) + "\n" for r in records), "headers": ndjson}

    failing: dict[tuple[str, str], list[tuple[str, dict]]] = {
        ("POST", "/memory/import"): [
            ("/memory/import", {"content": b"not an export\n", "headers": ndjson}),
            ("/memory/import", {"content": b"", "headers": ndjson}),
            ("/memory/import?on_conflict=merge", ndjson_body(lines)),
            ("/memory/import", ndjson_body(conflicting)),
            ("/memory/import", ndjson_body(with_dangling)),
            ("/memory/import", ndjson_body(lines[:-1])),  # cut short
        ],
        ("POST", "/memory/add"): [
            ("/memory/add", raw('{"content": "x", "metadata": {"a": "\\ud800"}}')),
            ("/memory/add", raw('{"content": "x", "tags": ["\\udfff"]}')),
            ("/memory/add", raw('{"content": "x", "metadata": {"\\ud800": 1}}')),
            ("/memory/add", raw('{"content": "x", "project": "p\\u0000"}')),
            ("/memory/add", raw('{"content": "x", "metadata": {"n": NaN}}')),
            ("/memory/add", raw('{"content": "x", "metadata": ' + nested + "}")),
            ("/memory/add", raw('{"content": "x", "metadata": {')),
            ("/memory/add", raw("[1, 2]")),
            ("/memory/add", {"json": {"content": ""}}),
            ("/memory/add", {"json": {"content": "x" * 40_000}}),
            ("/memory/add", {"json": {"content": "x", "tags": ["t"] * 51}}),
            ("/memory/add", {"json": {"content": "x", "source_type": "s" * 51}}),
            ("/memory/add", {"json": {"content": "x", "similar_threshold": 2}}),
            ("/memory/add", {"json": {"content": "x", "unknown": 1}}),
            (
                "/memory/add",
                {"json": {"content": "Seed A: the build runs on Python 3.12", "tags": "seed"}},
            ),
            ("/memory/add", {"json": {"content": "CI uses tox now", "supersedes": [c, missing]}}),
            ("/memory/add", {"json": {"content": "CI uses tox now", "supersedes": ["nope"]}}),
            ("/memory/add", {"json": {"content": "CI uses tox now", "detection": "sometimes"}}),
        ],
        ("POST", "/memory/{memory_id}/supersede"): [
            (f"/memory/{c}/supersede", {"json": {"ids": []}}),
            (f"/memory/{c}/supersede", {"json": {"ids": [b, missing]}}),  # all or none
            (f"/memory/{c}/supersede", {"json": {"ids": ["not-a-uuid"]}}),
            (f"/memory/{c}/supersede", {"json": {"ids": [c]}}),
            (f"/memory/{b}/supersede", {"json": {"ids": [a]}}),  # a supersedes b: a cycle
            (f"/memory/{missing}/supersede", {"json": {"ids": [c]}}),
            ("/memory/nope/supersede", {"json": {"ids": [c]}}),
            (f"/memory/{c}/supersede", raw('{"ids": ["' + b + '"], "actor": "\\ud800"}')),
        ],
        ("POST", "/memory/{memory_id}/restore"): [
            (f"/memory/{c}/restore", {}),  # not superseded: nothing to restore
            (f"/memory/{missing}/restore", {}),
            ("/memory/nope/restore", {}),
            (f"/memory/{b}/restore", raw('{"actor": "\\ud800"}')),  # b is hidden by a
            (f"/memory/{b}/restore", {"json": {"actor": "x", "extra": 1}}),
        ],
        ("PATCH", "/memory/{memory_id}"): [
            (f"/memory/{a}", raw('{"content": "\\ud800"}')),
            (f"/memory/{a}", raw('{"metadata": {"a": [1, {"b": "\\udc00"}]}}')),
            (
                f"/memory/{a}",
                {"json": {"content": "Seed B: tests use pytest"}},
            ),  # another memory's content
            (f"/memory/{a}", {"json": {"tags": "not-a-list"}}),
            (f"/memory/{missing}", {"json": {"tags": ["x"]}}),
            ("/memory/not-a-uuid", {"json": {"tags": ["x"]}}),
        ],
        ("DELETE", "/memory/{memory_id}"): [
            (f"/memory/{missing}", {}),
            ("/memory/not-a-uuid", {}),
        ],
        ("POST", "/memory/{memory_id}/trust"): [
            (f"/memory/{a}/trust", {"json": {"event": "liked_it"}}),
            (f"/memory/{a}/trust", raw('{"event": "agent_used", "note": "\\ud800"}')),
            (f"/memory/{a}/trust", {"json": {"event": "agent_used", "note": "n" * 2001}}),
            (f"/memory/{missing}/trust", {"json": {"event": "agent_used"}}),
        ],
        ("POST", "/memory/{memory_id}/confirm"): [
            (f"/memory/{missing}/confirm", {"json": {}}),
            ("/memory/nope/confirm", {"json": {}}),
            (f"/memory/{a}/confirm", {"json": {"note": "n" * 2001}}),
            (f"/memory/{a}/confirm", {"json": {"note": "x", "event": "user_confirmed"}}),
        ],
        ("POST", "/memory/{memory_id}/reject"): [
            (f"/memory/{missing}/reject", {"json": {}}),
            (f"/memory/{a}/reject", raw('{"note": "\\ud800"}')),
        ],
        ("POST", "/memory/relationship"): [
            (
                "/memory/relationship",
                {"json": {"source_id": b, "target_id": a, "relationship_type": "SUPERSEDES"}},
            ),
            (
                "/memory/relationship",
                {"json": {"source_id": a, "target_id": b, "relationship_type": "SUPERSEDES"}},
            ),
            (
                "/memory/relationship",
                {"json": {"source_id": a, "target_id": a, "relationship_type": "RELATED_TO"}},
            ),
            (
                "/memory/relationship",
                {
                    "json": {
                        "source_id": a,
                        "target_id": missing,
                        "relationship_type": "CONTRADICTS",
                    }
                },
            ),
            (
                "/memory/relationship",
                {"json": {"source_id": a, "target_id": c, "relationship_type": "LIKES"}},
            ),
            (
                "/memory/relationship",
                {
                    "json": {
                        "source_id": a,
                        "target_id": c,
                        "relationship_type": "RELATED_TO",
                        "confidence": 1.5,
                    }
                },
            ),
            (
                "/memory/relationship",
                raw(
                    json.dumps(
                        {"source_id": a, "target_id": c, "relationship_type": "CONTRADICTS"}
                    )[:-1]
                    + ', "metadata": {"k": "\\ud800"}}'
                ),
            ),
        ],
        ("DELETE", "/memory/relationship/{relationship_id}"): [
            (f"/memory/relationship/{missing}", {}),
            ("/memory/relationship/nope", {}),
        ],
        ("GET", "/project/index"): [
            ("/project/index?path=%2Ftmp%2Fa%00b", {}),
            (f"/project/index?path={tmp_path}/does-not-exist", {}),
            (f"/project/index?path={file_path}", {}),
            ("/project/index?path=~no-such-user-xyz/repo", {}),
        ],
        ("POST", "/project/index"): [
            ("/project/index", {"json": {"path": "/tmp/a\u0000b"}}),
            ("/project/index", {"json": {"path": f"{tmp_path}/does-not-exist"}}),
            ("/project/index", {"json": {"path": str(file_path)}}),
            ("/project/index", {"json": {"path": ""}}),
            ("/project/index", {"json": {"path": "/tmp", "recursive": True}}),
            ("/project/index", raw('{"path": "\\ud800"}')),
        ],
        ("POST", "/project/search"): [
            ("/project/search", {"json": {"query": "x", "project": str(tmp_path)}}),
            ("/project/search", raw('{"query": "\\ud800"}')),
        ],
        ("POST", "/memory/query"): [
            ("/memory/query", raw('{"query": "x", "tags": ["\\ud800"]}')),
            ("/memory/query", {"json": {"query": "x", "tags": [f"t{i}" for i in range(60)]}}),
            ("/memory/query", {"json": {"query": ""}}),
        ],
        ("POST", "/orchestrator/tasks"): [
            ("/orchestrator/tasks", raw('{"task": "t \\ud800", "session": "s"}')),
            ("/orchestrator/tasks", {"json": {"task": "", "session": "s"}}),
            ("/orchestrator/tasks", {"json": {"task": "t", "session": ""}}),
            ("/orchestrator/tasks", raw('{"task": "t", "session": "s\\u0000"}')),
        ],
        ("POST", "/orchestrator/tasks/{task_id}/result"): [
            ("/orchestrator/tasks/nope/result", {"json": {"summary": "done"}}),
            (f"/orchestrator/tasks/{task}/result", {"json": {"summary": ""}}),
            (f"/orchestrator/tasks/{task}/result", {"json": {"summary": "x", "extra": 1}}),
        ],
        ("POST", "/orchestrator/tasks/{task_id}/close"): [
            ("/orchestrator/tasks/nope/close", {"json": {}}),
            (f"/orchestrator/tasks/{task}/close", {"json": {"outcome": "maybe"}}),
        ],
        ("POST", "/orchestrator/tasks/{task_id}/resume"): [
            ("/orchestrator/tasks/nope/resume", {}),
        ],
        ("POST", "/orchestrator/tasks/{task_id}/step"): [
            (
                f"/orchestrator/tasks/{task}/step",
                {"json": {"step": "return", "data": {"summary": "done"}}},
            ),
            (f"/orchestrator/tasks/{task}/step", {"json": {"step": "route"}}),
            (f"/orchestrator/tasks/{task}/step", {"json": {"step": "teleport"}}),
            (
                f"/orchestrator/tasks/{task}/step",
                raw('{"step": "recall", "data": {"top_k": "\\ud800"}}'),
            ),
            (
                f"/orchestrator/tasks/{task}/step",
                {"json": {"step": "recall", "data": {"top_k": 1000}}},
            ),
            (f"/orchestrator/tasks/{uuid.uuid4()}/step", {"json": {"step": "recall"}}),
        ],
        ("POST", "/orchestrator/route"): [("/orchestrator/route", {"json": {"task": ""}})],
        ("POST", "/orchestrator/context"): [
            ("/orchestrator/context", {"json": {"task": "t", "agent": "coder", "budget_tokens": 1}})
        ],
        ("POST", "/ui/session"): [
            ("/ui/session", {"json": {"token": ""}}),
            ("/ui/session", raw("{")),
        ],
        ("DELETE", "/ui/session"): [],  # clears a cookie; no state to change
        ("POST", "/ui/login-code"): [
            ("/ui/login-code", {"json": {"scope": "admin"}}),
            ("/ui/login-code", raw("{")),
        ],
        ("POST", "/ui/api/broker/{path:path}"): [
            ("/ui/api/broker/call", {"json": {}}),
            ("/ui/api/broker/match/../call", {"json": {}}),
        ],
    }
    assert set(failing) == write_routes(client.app), "a write route has no failing-request case"

    before_store, before_tasks = snapshot_store(store), snapshot_tasks(settings.home)
    assert before_tasks, "the seed task is stored"
    tried = 0
    for (method, _), requests in failing.items():
        for path, kwargs in requests:
            r = client.request(method, path, **kwargs)
            assert 400 <= r.status_code < 500, (method, path, r.status_code, r.text[:300])
            assert set(r.json()) == {"error"}, (method, path, r.text[:300])
            assert snapshot_store(store) == before_store, (method, path, r.text[:300])
            assert snapshot_tasks(settings.home) == before_tasks, (method, path, r.text[:300])
            tried += 1
    print(
        f"failing writes: {tried} requests on {len(failing)} routes, {store.kind}: nothing changed"
    )
    assert tried >= 55
    # and the seeded state still reads back as it was written
    assert [m["id"] for m in client.get("/memory").json()["items"]] == [c, a]
    assert client.get(f"/memory/related/{b}").status_code == 200
    assert rel in {r["id"] for r in client.get(f"/memory/{c}").json()["relationships"]}
