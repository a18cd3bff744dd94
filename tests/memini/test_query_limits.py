"""A query's text is bounded (issue 29 item 11), on both stores: over 4,000 characters is a 422
naming the limit, and a store handed a text of tens of thousands of words still answers (SQLite
once ran out of SQL variables: a plain-text 500)."""

from __future__ import annotations

import itertools

from neuralgentics.memini.service import MAX_QUERY_CHARS
from neuralgentics.memini.store.base import MemoryFilter


def test_a_query_over_the_limit_is_a_422_naming_it(client) -> None:
    client.post("/memory/add", json={"content": "The API listens on port 8000.", "project": "p"})
    long = ("port " * (MAX_QUERY_CHARS // 5 + 1))[: MAX_QUERY_CHARS + 1]
    r = client.post("/memory/query", json={"query": long, "project": "p"})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["field"] == "query" and "4000" in error["message"]
    r = client.post("/memory/query", json={"query": long[:MAX_QUERY_CHARS], "project": "p"})
    assert r.status_code == 200
    assert r.json()["hits"][0]["memory"]["content"] == "The API listens on port 8000."


def test_a_store_searches_a_text_of_thousands_of_words(store, embedder) -> None:
    import sqlite3

    from neuralgentics.memini.store.base import NewMemory

    if store.kind == "sqlite":
        # SQLite's historical default (builds differ: this one allows 250,000): the text's
        # words went into one IN list, so 300,000 words failed here with the default build
        store.db.connection().setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 999)
    store.add_memory(
        NewMemory(
            content="The deploy key rotates monthly.",
            embedding=embedder.embed_one("The deploy key rotates monthly."),
            content_hash="k",
            project="p",
        )
    )
    words = ["".join(w) for w in itertools.product("bcdfghjklm", repeat=4)][:5_000]
    text = "rotates " + " ".join(words)
    found = store.keyword_search(text, MemoryFilter(project="p"), 5)
    assert [mid for mid, _ in found] != []
