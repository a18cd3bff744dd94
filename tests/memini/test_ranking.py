"""What a user of POST /memory/query notices about the ranking, on both stores (real MiniLM):
meaning wins over shared words, exact tokens still win, the newer of two statements of one
fact comes first, nothing irrelevant comes back, and a disputed memory says so."""

from __future__ import annotations

import pytest

from neuralgentics.memini import ranking

BILLING = [
    "The billing service retries a declined card three times over five days before it cancels the subscription.",
    # shares more of the question's words ("billing", "customer", "card") and does not answer it
    "The billing service sends the customer an email when the billing address on the card changes.",
    "The billing service generates invoices on the first calendar day of each month.",
    "The billing service is written in Kotlin and runs on the JVM.",
    "The billing service stores all amounts as integer cents.",
]


def add(client, content: str, project: str = "p", **extra) -> str:
    body = {"content": content, "project": project, **extra}
    response = client.post("/memory/add", json=body)
    assert response.status_code in (200, 201), response.text
    return response.json()["memory"]["id"]


def query(client, text: str, project: str = "p", **extra) -> list[dict]:
    response = client.post("/memory/query", json={"query": text, "project": project, **extra})
    assert response.status_code == 200, response.text
    return response.json()["hits"]


def test_a_paraphrased_question_finds_its_fact_before_a_sibling_that_shares_more_words(client):
    for fact in BILLING:
        add(client, fact)
    hits = query(
        client, "What does the billing service do when a customer's card keeps getting declined?"
    )
    assert hits[0]["memory"]["content"] == BILLING[0]
    assert hits[1]["memory"]["content"] == BILLING[1]


def test_an_identifier_question_finds_the_memory_holding_the_identifier(client):
    add(client, "ECONNRESET during npm install means the corporate proxy dropped the connection.")
    wanted = add(
        client, "ECONNREFUSED 127.0.0.1:4000 in the e2e job means the API container is not up yet."
    )
    add(client, "The e2e job waits for the API health check before it starts Playwright.")
    hits = query(client, "What does ECONNREFUSED in the e2e job mean?")
    assert hits[0]["memory"]["id"] == wanted
    assert hits[0]["why"]["exact_match"] > 0.9  # the one memory holding the token
    assert hits[0]["why"]["relevance"] > hits[0]["why"]["similarity"]


def test_the_newer_of_two_statements_of_one_fact_ranks_first(client):
    # detection off: this is ranking alone, before anything is superseded (issue 17 item 3)
    old = add(client, "The API listens on port 8080 in local development.", detection="off")
    new = add(client, "The API listens on port 8181 in local development.", detection="off")
    add(client, "The web app is built with Vite.")
    hits = query(client, "Which port does the API use locally?")
    assert [h["memory"]["id"] for h in hits[:2]] == [new, old]
    assert hits[1]["why"]["newer"] == new and hits[0]["why"]["newer"] is None


def test_two_different_true_facts_keep_the_order_the_question_asks_for(client):
    frontend = add(client, "The frontend is built with Vite.")
    add(client, "The backend is built with Gradle.")
    hits = query(client, "What builds the frontend?")
    assert hits[0]["memory"]["id"] == frontend and hits[0]["why"]["newer"] is None


def test_an_unrelated_question_returns_nothing_unless_the_floor_is_lowered(client):
    for fact in (
        "The API listens on port 8080 in local development.",
        "Deploys go out on Tuesdays.",
    ):
        add(client, fact)
    assert query(client, "How long should sourdough bread proof before baking?") == []
    everything = query(client, "How long should sourdough bread proof before baking?", min_score=-1)
    assert len(everything) == 2
    assert all(h["why"]["relevance"] < ranking.MIN_SCORE for h in everything)
    strict = query(client, "When do deploys go out?", min_score=0.99)
    assert strict == []


@pytest.mark.parametrize("bad", [5, -3, "high"])
def test_a_bad_floor_is_refused_and_names_the_field(client, bad):
    add(client, "Deploys go out on Tuesdays.")
    response = client.post("/memory/query", json={"query": "deploys", "min_score": bad})
    assert response.status_code == 422
    assert response.json()["error"]["field"] == "min_score"


def test_a_contradicted_memory_says_which_memory_disputes_it(client):
    # detection off: the link is made by hand here; detection's own links are tested in test_updates
    wiki = add(client, "The infra wiki says the staging cluster has 15 nodes.", detection="off")
    console = add(
        client, "According to the cloud console the staging cluster has 14 nodes.", detection="off"
    )
    plain = add(client, "Staging is rebuilt every Sunday night.")
    r = client.post(
        "/memory/relationship",
        json={"source_id": console, "target_id": wiki, "relationship_type": "CONTRADICTS"},
    )
    assert r.status_code == 201
    hits = {h["memory"]["id"]: h for h in query(client, "How many nodes does staging have?")}
    assert hits[wiki]["contradicted"] is True and hits[wiki]["contradicts"] == [console]
    assert hits[console]["contradicted"] is True and hits[console]["contradicts"] == [wiki]
    assert hits[plain]["contradicted"] is False and hits[plain]["contradicts"] == []


def test_exact_tokens_are_identifier_shaped_words_and_quoted_strings():
    found = ranking.exact_terms(
        'Why does vite.config.ts use port 5174, and what is "denied: requested access" with '
        "--dist loadfile, ERR_OSSL_EVP_UNSUPPORTED, maxUnavailable or .nvmrc for the service?"
    )
    assert {
        "vite.config.ts",
        "5174",
        "denied: requested access",
        "--dist",
        "err_ossl_evp_unsupported",
        "maxunavailable",
        ".nvmrc",
    } <= found
    assert not {"why", "port", "service", "loadfile", "what"} & found
