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
    # a label names its attribute with its own words: that still replaces the older value
    page = add(client, "The status page refreshes every 15 minutes.")
    label = add(client, "Status page refresh: 2 minutes.")
    assert superseded(client, page["memory"]["id"]) == label["memory"]["id"]


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


def test_a_number_said_in_words_is_a_count_not_part_of_the_entity(client):
    # "Two build agents" / "Four build agents": one set of agents, its count changed
    old = add(client, "Two build agents sit behind the load balancer.")
    new = add(client, "Four build agents sit behind the load balancer.")
    assert superseded(client, old["memory"]["id"]) == new["memory"]["id"]


def test_an_identifier_in_a_phrase_of_time_is_not_the_entity(client):
    # "after the latency-fix project" says when; the fact is still about the transcoder
    old = add(client, "The transcoder cuts 10-second chunks.")
    new = add(client, "The transcoder cuts 2-second chunks after the latency-fix project.")
    assert superseded(client, old["memory"]["id"]) == new["memory"]["id"]


def test_a_number_after_a_name_is_its_version(client):
    # "Blender 3.6" / "Blender 4.2 during the upgrade": the version of one name changed,
    # whatever word follows the number and however the verb changed
    old = add(client, "The render farm runs Blender 3.6.")
    new = add(client, "The render farm was moved onto Blender 4.2 during the spring upgrade.")
    assert superseded(client, old["memory"]["id"]) == new["memory"]["id"]
    # a version of another name of another thing replaces nothing
    other = add(client, "The render farm's asset server runs Redis 7.2.")
    assert other["superseded"] == []
    assert superseded(client, new["memory"]["id"]) is None


def test_two_uncited_facts_that_clash_are_an_update_not_two_sources(client):
    # nobody is cited: the newer word of one writer replaces the older (main linked them as
    # two sources disagreeing and kept both)
    old = add(client, "Ward lists are frozen 48 hours before surgery.")
    new = add(client, "Ward lists are frozen 24 hours before surgery.")
    assert new["contradicts"] == []
    assert superseded(client, old["memory"]["id"]) == new["memory"]["id"]
    # a fact that cites its source still only contradicts ("The wiki says ...")
    wiki = add(client, "The wiki says the sync daemon polls every 30 seconds.")
    console = add(client, "The ops console shows the sync daemon polling every 10 seconds.")
    assert console["superseded"] == []
    assert superseded(client, wiki["memory"]["id"]) is None


def test_every_week_is_one_week(client):
    # "every week" / "every two weeks": one schedule, its period changed
    old = add(client, "Wiki backups are copied offsite every two weeks.")
    new = add(client, "Wiki backups are copied offsite every week.")
    assert superseded(client, old["memory"]["id"]) == new["memory"]["id"]


def test_a_count_is_of_the_noun_after_its_modifier(client):
    # "16 worker threads" counts threads, as "4 threads" does
    old = add(client, "The image-resizer (EU pool) runs 16 worker threads.")
    new = add(client, "The image-resizer (EU pool) received a new thread count: 4 threads.")
    assert superseded(client, old["memory"]["id"]) == new["memory"]["id"]


def test_numbered_things_and_one_name_of_several_are_no_change(client, embedder):
    # "Errno 13" / "Errno 2" are two errors, not two versions of one; the newer repeats one
    # name of the older ("Errno") but not its value
    meaning = detect.meaning_of(embedder.embed)
    old = "OSError: [Errno 13] Permission denied on the export folder was fixed by chmod 750."
    new = "OSError: [Errno 2] No such file or directory hit the upload worker after a remount."
    assert not weigh(read(new), read(old), meaning).may_act
    first_error = add(client, old)
    second = add(client, new)
    assert second["superseded"] == [] and second["contradicts"] == []
    assert superseded(client, first_error["memory"]["id"]) is None
    # one entity's two attributes said in one verb frame stay two facts
    mjml = add(client, "The mailer service renders email templates with MJML.")
    ses = add(client, "The mailer service sends email through Amazon SES.")
    assert ses["superseded"] == [] and ses["likely_updates"] == []
    assert superseded(client, mjml["memory"]["id"]) is None
