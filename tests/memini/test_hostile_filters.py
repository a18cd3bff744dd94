"""Issue 13, finding 8: the 500s found — 1,000 tag filters (SQLite: "Expression tree is too
large"), a NUL byte in a path or a project (`embedded null byte`), a surrogate in query
filters — are 422s with a message naming the field, on both stores."""

from __future__ import annotations

import pytest

from neuralgentics.memini.errors import InvalidInput
from neuralgentics.memini.store.base import MemoryFilter


def test_a_thousand_tag_filters_are_a_422_not_a_500(client):
    client.post("/memory/add", json={"content": "tagged", "tags": ["t1", "t2"]})
    r = client.get("/memory", params=[("tag", f"t{i}") for i in range(1000)])
    assert r.status_code == 422 and r.json()["error"]["field"] == "query"
    assert "1000 query parameters" in r.json()["error"]["message"]
    r = client.get("/memory", params=[("tag", f"t{i}") for i in range(60)])
    assert r.status_code == 422 and r.json()["error"]["field"] == "tags"
    assert "at most 50 distinct tags" in r.json()["error"]["message"]
    r = client.post(
        "/memory/query", json={"query": "tagged", "tags": [f"t{i}" for i in range(1000)]}
    )
    assert r.status_code == 422 and "at most 50" in r.json()["error"]["message"]
    # many copies of the same tags are one filter
    r = client.post("/memory/query", json={"query": "tagged", "tags": ["t1", "t2"] * 500})
    assert r.status_code == 200 and len(r.json()["hits"]) == 1
    assert client.get("/memory", params=[("tag", "t1"), ("tag", "t2")] * 20).json()["total"] == 1


def test_the_stores_refuse_oversized_tag_filters_themselves(store):
    with pytest.raises(InvalidInput):
        store.list_memories(MemoryFilter(tags=[f"t{i}" for i in range(1000)]))
    assert store.list_memories(MemoryFilter(tags=["same"] * 1000)) == ([], 0)


@pytest.mark.parametrize(
    "method,path,kwargs,field",
    [
        ("GET", "/project/index", {"params": {"path": "/tmp/a\x00b"}}, "path"),
        ("GET", "/memory", {"params": {"project": "p\x00"}}, "project"),
        ("GET", "/memory", {"params": {"source_type": "\x00"}}, "source_type"),
        ("GET", "/memory", {"params": {"tag": "a\x00"}}, "tag"),
        ("POST", "/memory/query", {"json": {"query": "q", "project": "p\x00"}}, "project"),
        ("POST", "/memory/query", {"json": {"query": "q\x00"}}, "query"),
        ("POST", "/project/search", {"json": {"query": "q", "project": "/tmp/\x00"}}, "project"),
        ("GET", "/orchestrator/skills", {"params": {"project_dir": "/tmp/\x00"}}, "project_dir"),
        (
            "POST",
            "/orchestrator/route",
            {"json": {"task": "t", "project_dir": "/tmp/x\x00"}},
            "project_dir",
        ),
        ("GET", "/ui/api/project/files", {"params": {"root": "/tmp/\x00"}}, "root"),
    ],
)
def test_a_nul_byte_anywhere_is_a_422_naming_the_field(
    refusing_client, method, path, kwargs, field
):
    r = refusing_client.request(method, path, **kwargs)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["field"] == field and "NUL" in r.json()["error"]["message"]


def test_a_nul_byte_in_a_path_is_refused_by_the_indexer_itself(tmp_path):
    from neuralgentics.memini.indexer import resolve_root

    with pytest.raises(InvalidInput) as caught:
        resolve_root(f"{tmp_path}/a\x00b")
    assert caught.value.field == "path" and "NUL" in caught.value.message
