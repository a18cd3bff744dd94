"""Issue 13, finding 2: text that cannot round-trip as UTF-8 JSON is refused with a 422 naming
the field, before anything is written — on both stores, in every field that takes text.

The bodies are sent as raw bytes: JSON's `\\ud800` escape is how a lone surrogate arrives over
HTTP (an HTTP client cannot encode one), and `NaN`/`1e400` are what Python's JSON parser lets
through that no JSON encoder writes back.
"""

from __future__ import annotations

import json

import pytest

SURROGATES = ["\\ud800", "\\udfff", "x\\udc80y", "\\ud83d"]  # high, low, embedded, half an emoji


def raw(client, method: str, path: str, text: str):
    return client.request(
        method, path, content=text.encode(), headers={"content-type": "application/json"}
    )


def counts(client) -> dict:
    return client.get("/health").json()["counts"]


def add(client, content: str, **extra) -> str:
    # numbered look-alike rows read as updates of one another; update detection is not
    # what these tests are about, so it is off unless a test asks for it
    extra.setdefault("detection", "off")
    r = client.post("/memory/add", json={"content": content, **extra})
    assert r.status_code == 201, r.text
    return r.json()["memory"]["id"]


# (body template with {s} where the surrogate escape goes, the field the error must name)
ADD_CASES = [
    ('{{"content": "a{s}b"}}', "content"),
    ('{{"content": "c", "project": "p{s}"}}', "project"),
    ('{{"content": "c", "source_type": "{s}"}}', "source_type"),
    ('{{"content": "c", "actor": "{s}"}}', "actor"),
    ('{{"content": "c", "tags": ["ok", "{s}"]}}', "tags[1]"),
    ('{{"content": "c", "metadata": {{"a": "{s}"}}}}', "metadata.a"),
    ('{{"content": "c", "metadata": {{"{s}": 1}}}}', "metadata."),
    ('{{"content": "c", "metadata": {{"a": {{"b": [1, {{"c": "{s}"}}]}}}}}}', "metadata.a.b[1].c"),
    ('{{"content": "c", "metadata": {{"a": {{"{s}": "v"}}}}}}', "metadata.a."),
]


@pytest.mark.parametrize("template,field", ADD_CASES)
def test_a_lone_surrogate_anywhere_in_an_add_is_refused_and_nothing_is_written(
    refusing_client, template, field
):
    client = refusing_client
    for s in SURROGATES:
        r = raw(client, "POST", "/memory/add", template.format(s=s))
        assert r.status_code == 422, (template, s, r.text)
        err = r.json()["error"]
        assert err["code"] == "invalid_input" and err["field"].startswith(field), (field, err)
        assert "surrogate" in err["message"]
    assert counts(client)["memories"] == 0
    assert client.get("/memory").status_code == 200


def test_the_issues_exact_request_answers_422_and_commits_nothing(client):
    r = raw(client, "POST", "/memory/add", '{"content":"x","metadata":{"a":"\\ud800"}}')
    assert r.status_code == 422 and r.json()["error"]["field"] == "metadata.a"
    assert counts(client)["memories"] == 0
    assert client.get("/memory").json()["items"] == []
    assert client.post("/memory/query", json={"query": "x"}).status_code == 200


def test_surrogates_in_patch_relationship_trust_and_filters_are_refused(client):
    a, b = add(client, "Surrogate target A", tags=["t"]), add(client, "Surrogate target B")
    before = client.get(f"/memory/{a}").json()
    cases = [
        ("PATCH", f"/memory/{a}", '{"content": "new \\ud800"}', "content"),
        ("PATCH", f"/memory/{a}", '{"tags": ["\\udfff"]}', "tags[0]"),
        ("PATCH", f"/memory/{a}", '{"metadata": {"k": {"\\ud800": 1}}}', "metadata.k."),
        ("PATCH", f"/memory/{a}", '{"source_type": "\\ud800"}', "source_type"),
        (
            "POST",
            "/memory/relationship",
            json.dumps({"source_id": a, "target_id": b, "relationship_type": "RELATED_TO"})[:-1]
            + ', "metadata": {"why": ["\\ud800"]}}',
            "metadata.why[0]",
        ),
        (
            "POST",
            "/memory/relationship",
            json.dumps({"source_id": a, "target_id": b, "relationship_type": "RELATED_TO"})[:-1]
            + ', "actor": "\\ud800"}',
            "actor",
        ),
        ("POST", f"/memory/{a}/trust", '{"event": "user_confirmed", "note": "\\ud800"}', "note"),
        ("POST", f"/memory/{a}/trust", '{"event": "user_confirmed", "actor": "\\udfff"}', "actor"),
        ("POST", "/memory/query", '{"query": "surrogate \\ud800"}', "query"),
        ("POST", "/memory/query", '{"query": "surrogate", "tags": ["\\ud800"]}', "tags[0]"),
        ("POST", "/memory/query", '{"query": "surrogate", "project": "\\ud800"}', "project"),
        (
            "POST",
            "/memory/query",
            '{"query": "surrogate", "source_type": "\\udc00"}',
            "source_type",
        ),
        ("POST", "/project/search", '{"query": "x", "project": "/tmp/\\ud800"}', "project"),
        ("POST", "/orchestrator/tasks", '{"task": "do \\ud800", "session": "s"}', "task"),
        ("POST", "/orchestrator/route", '{"task": "route \\ud800"}', "task"),
    ]
    for method, path, body, field in cases:
        r = raw(client, method, path, body)
        assert r.status_code == 422, (method, path, body, r.text)
        assert r.json()["error"]["field"].startswith(field), (body, r.json())
    after = client.get(f"/memory/{a}").json()
    assert after == before
    assert counts(client)["relationships"] == 0 and counts(client)["trust_events"] == 0


@pytest.mark.parametrize(
    "body,field,words",
    [
        ('{"content": "n", "metadata": {"a": NaN}}', "metadata.a", "NaN"),
        ('{"content": "n", "metadata": {"a": -Infinity}}', "metadata.a", "Infinity"),
        ('{"content": "n", "metadata": {"a": 1e400}}', "metadata.a", "not a JSON number"),
        ('{"content": "n", "metadata": {"a": "nul \\u0000 here"}}', "metadata.a", "NUL"),
        ('{"content": "n", "project": "p\\u0000"}', "project", "NUL"),
        (
            '{"content": "n", "metadata": ' + '{"d": ' * 40 + "1" + "}" * 40 + "}",
            "metadata.d",
            "deeper",
        ),
        ('{"content": "n", "metadata": ' + "[" * 3000 + "]" * 3000 + "}", "body", "too deeply"),
        ('{"content": "n", "metadata": {"a": ' + "9" * 5000 + "}}", "body", "could not be parsed"),
        ('{"content": "n", "metadata": {"a": 1}', "body", "not valid JSON"),
    ],
)
def test_other_values_that_do_not_round_trip_are_refused(refusing_client, body, field, words):
    client = refusing_client
    r = raw(client, "POST", "/memory/add", body)
    assert r.status_code == 422, r.text
    err = r.json()["error"]
    assert err["field"].startswith(field) and words in err["message"], err
    assert counts(client)["memories"] == 0


def test_the_service_refuses_the_same_values_without_http(service):
    """The orchestrator calls MemoryService directly: the rule holds there too."""
    from neuralgentics.memini.errors import InvalidInput

    for kwargs, field in [
        ({"metadata": {"a": "\ud800"}}, "metadata.a"),
        ({"tags": ["\udfff"]}, "tags[0]"),
        ({"project": "p\ud800"}, "project"),
        ({"metadata": {"x": float("nan")}}, "metadata.x"),
    ]:
        with pytest.raises(InvalidInput) as caught:
            service.add("direct call", **kwargs)
        assert caught.value.field == field
    assert service.store.counts()["memories"] == 0


def test_stores_refuse_bad_text_on_their_own(store):
    """Defence in depth: both stores check what they are handed, whoever calls them."""
    import numpy as np

    from neuralgentics.memini.errors import InvalidInput
    from neuralgentics.memini.store.base import MemoryFilter, NewMemory

    vec = np.ones(384, dtype=np.float32) / np.sqrt(384)
    for bad in ({"metadata": {"k": ["\ud800"]}}, {"tags": ["\udc00"]}, {"project": "\ud800"}):
        with pytest.raises(InvalidInput):
            store.add_memory(NewMemory(content="c", embedding=vec, content_hash="h", **bad))
    with pytest.raises(InvalidInput):
        store.list_memories(MemoryFilter(tags=["\ud800"]))
    assert store.counts()["memories"] == 0


@pytest.mark.parametrize(
    "path",
    [
        "/memory/add",
        "/memory/query",
        "/memory/relationship",
        "/project/search",
        "/orchestrator/route",
        "/orchestrator/tasks",
        "/orchestrator/context",
    ],
)
@pytest.mark.parametrize("body", ['{"task": ', "not json", '{"a": 1}}', "[" * 5000])
def test_body_parse_errors_have_the_documented_shape(refusing_client, path, body):
    r = raw(refusing_client, "POST", path, body)
    assert r.status_code == 422, r.text
    assert set(r.json()) == {"error"} and "detail" not in r.text
    err = r.json()["error"]
    assert err["code"] == "invalid_input" and err["field"] == "body"
    assert "not valid JSON" in err["message"] or "could not be parsed" in err["message"]


def test_unknown_routes_and_methods_have_the_documented_shape(client):
    assert client.get("/nope").json() == {
        "error": {"code": "not_found", "message": "Not Found", "field": None}
    }
    r = client.put("/memory")
    assert r.status_code == 405 and r.json()["error"]["code"] == "method_not_allowed"
