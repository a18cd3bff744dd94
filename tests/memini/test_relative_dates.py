"""A relative date in a memory is kept with the moment it was said (issue 30 item 5), on both
stores: the text is never rewritten; the memory JSON's `said_on`, the context package and the
plugin's search results say "said on YYYY-MM-DD" beside a memory whose text holds one."""

from __future__ import annotations

import io
import json

from neuralgentics.memini import dates
from neuralgentics.memini.portability import format as fmt
from neuralgentics.memini.portability import import_file
from neuralgentics.memini.portability.importer import model_id

SAID = "The payments outage was last week; the fix ships in two days."


def test_the_phrases_it_reads() -> None:
    text = "Yesterday we met; next Monday we ship, 3 days ago it broke, in a few weeks v2."
    assert dates.relative_phrases(text) == [
        "Yesterday",
        "next Monday",
        "3 days ago",
        "in a few weeks",
    ]
    for plain in ("The week view shows Monday first.", "Deploys go out on Tuesdays.", "v2 in 2026"):
        assert dates.relative_phrases(plain) == []


def test_a_memory_with_a_relative_date_says_when_it_was_said(client) -> None:
    r = client.post("/memory/add", json={"content": SAID, "project": "p"})
    memory = r.json()["memory"]
    assert memory["content"] == SAID  # never rewritten
    assert memory["said_on"] == memory["created_at"][:10]
    assert client.get(f"/memory/{memory['id']}").json()["memory"]["said_on"] == memory["said_on"]
    plain = client.post("/memory/add", json={"content": "The API listens on 8000.", "project": "p"})
    assert plain.json()["memory"]["said_on"] is None
    hits = client.post("/memory/query", json={"query": "payments outage", "project": "p"}).json()
    assert hits["hits"][0]["memory"]["said_on"] == memory["said_on"]
    package = client.post(
        "/orchestrator/context",
        json={
            "task": "When was the payments outage?",
            "agent": "build",
            "project": "p",
            "format": "markdown",
        },
    ).text
    assert f"said on {memory['said_on']})\n{SAID}" in package


def test_the_moment_is_the_one_it_was_said_at_through_an_import(store, embedder) -> None:
    stamp = "2025-03-14T23:30:00.000000+00:00"
    line = {
        "type": "memory",
        "id": "00000000-0000-4000-8000-0000000da7e5",
        "content": "The release slipped to next week.",
        "project": "p",
        "trust_score": 0.5,
        "created_at": stamp,
        "updated_at": stamp,
    }
    lines = [fmt.header(model_id(embedder), None), line, fmt.end_record(1, 0, 0)]
    import_file(store, embedder, io.BytesIO("".join(json.dumps(x) + "\n" for x in lines).encode()))
    from neuralgentics.memini.models import memory_out

    out = memory_out(store.get_memory(line["id"]))
    assert out.said_on == "2025-03-14" and out.content == line["content"]
