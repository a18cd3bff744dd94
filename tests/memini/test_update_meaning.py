"""Update detection, eighth pass (issue 27): real updates said without shared words.

Once two facts are positively about one entity and a value of one type changed, the attribute
may be read from what the two sentences mean (MiniLM, the entity's words taken out), and a
newer fact that names the older one's value beside a new value of its kind states a change of
it; a replacing memory answers the questions the replaced one answered. And what must stay
apart: two quantities of one unit that are two attributes, two sources that disagree. Through
the HTTP API on both stores, real MiniLM, detection on (the default)."""

from __future__ import annotations

from neuralgentics.memini.updates import detect
from neuralgentics.memini.updates.evidence import weigh
from neuralgentics.memini.updates.text import read


def add(client, content: str, **extra) -> dict:
    r = client.post("/memory/add", json={"content": content, "project": "shop", **extra})
    assert r.status_code in (200, 201), r.text
    return r.json()


def superseded(client, memory_id: str) -> str | None:
    return client.get(f"/memory/{memory_id}").json()["memory"]["superseded_by"]


def first(client, question: str) -> str:
    r = client.post("/memory/query", json={"query": question, "project": "shop", "top_k": 5})
    assert r.status_code == 200, r.text
    return r.json()["hits"][0]["memory"]["content"]


def test_one_entitys_attribute_said_in_other_words_is_read_by_meaning(client):
    # "writes at most 40 GB of temporary files" / "the scratch quota ... 120 GB": no word of
    # the attribute in common, one entity, one unit; the sentences mean one attribute
    old = add(client, "The quota-keeper writes at most 40 GB of temporary files.")
    add(client, "The quota-keeper is owned by the Lynx team.")
    new = add(client, "Ops retuned the scratch quota of the quota-keeper to 120 GB.")
    assert [s["id"] for s in new["superseded"]] == [old["memory"]["id"]]
    assert superseded(client, old["memory"]["id"]) == new["memory"]["id"]


def test_the_old_value_named_beside_a_new_one_of_its_kind_is_a_stated_change(client):
    # no change word: the newer fact names the headset that went and the one that came
    old = add(client, "On calls Tomasz Wierzbicki wears a Logitech Zone 900 headset.")
    add(client, "Tomasz Wierzbicki plays the cello in an amateur orchestra.")
    new = add(
        client, "Tomasz Wierzbicki's Logitech Zone 900 broke, so IT issued a Jabra Evolve2 85."
    )
    assert superseded(client, old["memory"]["id"]) == new["memory"]["id"]
    assert first(client, "What does Tomasz Wierzbicki listen with in meetings?") == (
        "Tomasz Wierzbicki's Logitech Zone 900 broke, so IT issued a Jabra Evolve2 85."
    )


def test_a_replacing_memory_answers_the_question_the_replaced_one_answered(client):
    # the update says only the new value ("Now it's ..."); the question is worded like the
    # fact it replaced, which is hidden and still the best match for it
    add(client, "The invoice-renderer is written in Rust.")
    add(client, "The invoice-renderer is owned by the Lynx team.")
    old = add(client, "Rendered invoices are kept in the invoices-archive bucket for seven years.")
    new = add(client, "Now it's the ledger-cold bucket.", supersedes=[old["memory"]["id"]])
    assert superseded(client, old["memory"]["id"]) == new["memory"]["id"]
    assert (
        first(client, "Where are rendered invoices stored?") == "Now it's the ledger-cold bucket."
    )
    # a question of another fact still finds that fact
    assert first(client, "Which team owns the invoice-renderer?") == (
        "The invoice-renderer is owned by the Lynx team."
    )


def test_two_quantities_of_one_unit_are_two_attributes(client):
    # "seconds" is the numbers' unit, no word of the attribute: a timeout is no flush interval
    old = add(client, "The ledger-exporter flushes every 5 seconds.")
    new = add(client, "The request timeout of the ledger-exporter is 30 seconds.")
    assert new["superseded"] == [] and new["contradicts"] == []
    assert superseded(client, old["memory"]["id"]) is None


def test_meaning_reads_no_change_between_two_sources(embedder):
    # two sources that disagree are a contradiction at most, never an update read by meaning
    meaning = detect.meaning_of(embedder.embed)
    ev = weigh(
        read("Dana counted 9 worker nodes behind the quota-keeper."),
        read("The capacity sheet says the quota-keeper has 12 worker nodes."),
        meaning,
    )
    assert not ev.may_act
    # nor between two entities whose subjects only share a frame's words
    ev = weigh(
        read("At startup, the API keys for the billing-relay are loaded from kv/prod/relay."),
        read("At startup, the API keys for the roster-sync job are loaded from kv/stage/sync."),
        meaning,
    )
    assert not (ev.may_act or ev.may_report)
