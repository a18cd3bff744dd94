"""What the HTTP front adds to every `memory_save` and `memory_search` (issue 31 item 4).

The OpenCode plugin saves and searches through memini-core over HTTP, so whatever the front
does per request is paid on each one. It used to rebuild every dependency of the route from its
signature on every request (FastAPI does that whenever `app.dependency_overrides` is set) and
hand the work to the threadpool four or five times (each plain `def` dependency, the route,
the response's validation); now the objects are given to the routes once, when the app is
built (neuralgentics/provided.py), and an add or a query runs in one worker thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio.to_thread
import fastapi.dependencies.utils as fastapi_deps
import pytest
from fastapi.testclient import TestClient


@pytest.fixture
def hops(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Any]]:
    """Counts, from here on, the thread hand-offs and the per-request dependency rebuilds. One
    add and one query first: FastAPI builds a route's dependencies on its first request."""
    assert client.post("/memory/add", json={"content": "warm up"}).status_code == 201
    assert client.post("/memory/query", json={"query": "warm up"}).status_code == 200
    seen: dict[str, list[Any]] = {"threads": [], "rebuilds": []}
    run_sync = anyio.to_thread.run_sync
    get_dependant = fastapi_deps.get_dependant

    async def counted_run_sync(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        seen["threads"].append(func)
        return await run_sync(func, *args, **kwargs)

    def counted_get_dependant(*args: Any, **kwargs: Any) -> Any:
        seen["rebuilds"].append(kwargs.get("call"))
        return get_dependant(*args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted_run_sync)
    monkeypatch.setattr(fastapi_deps, "get_dependant", counted_get_dependant)
    return seen


def test_an_add_runs_in_one_worker_thread_and_rebuilds_nothing(
    client: TestClient, hops: dict[str, list[Any]]
) -> None:
    first = client.post("/memory/add", json={"content": "the deploy script uses rsync"})
    assert first.status_code == 201, first.text
    assert len(hops["threads"]) == 1 and not hops["rebuilds"], hops
    # the same content again: the first memory back, 200, on the same single hop
    hops["threads"].clear()
    again = client.post("/memory/add", json={"content": "the deploy script uses rsync"})
    assert again.status_code == 200 and again.json()["memory"]["id"] == first.json()["memory"]["id"]
    assert len(hops["threads"]) == 1 and not hops["rebuilds"], hops


def test_a_query_runs_in_one_worker_thread_and_rebuilds_nothing(
    client: TestClient, hops: dict[str, list[Any]]
) -> None:
    client.post("/memory/add", json={"content": "the billing job runs at 02:00 UTC"})
    hops["threads"].clear()
    r = client.post("/memory/query", json={"query": "when does the billing job run?"})
    assert r.status_code == 200, r.text
    assert [h["memory"]["content"] for h in r.json()["hits"]] == [
        "the billing job runs at 02:00 UTC"
    ]
    assert len(hops["threads"]) == 1 and not hops["rebuilds"], hops


def test_bad_input_is_still_a_422_before_any_thread_runs(
    client: TestClient, hops: dict[str, list[Any]]
) -> None:
    r = client.post("/memory/add", json={"content": ""})
    assert r.status_code == 422, r.text
    assert r.json()["error"] == {
        "code": "invalid_input",
        "message": "content: String should have at least 1 character",
        "field": "content",
    }
    assert hops["threads"] == [] and hops["rebuilds"] == []
