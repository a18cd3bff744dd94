"""The grammar rules of update detection, one test per rule (issue 27, second pass): each
misreading below hid a true fact, reported a likely update that was none, or linked a false
contradiction on the stream sets' tune part. Rules over the tokens, then the behaviour a user
sees through the HTTP API, on both stores, real MiniLM, detection on (the default)."""

from __future__ import annotations

import pytest

from neuralgentics.memini.updates import subject
from neuralgentics.memini.updates.evidence import same_subject_and_attribute, weigh
from neuralgentics.memini.updates.text import read


def add(client, content: str) -> dict:
    r = client.post("/memory/add", json={"content": content, "project": "shop"})
    assert r.status_code in (200, 201), r.text
    return r.json()


def superseded(client, memory_id: str) -> str | None:
    return client.get(f"/memory/{memory_id}").json()["memory"]["superseded_by"]


def test_a_word_ending_in_ed_or_s_right_before_a_verb_is_the_head_noun():
    # "feed" is no past tense: the verb is "runs"/"is"/"moved" right after it
    for text in (
        "The EU pricing feed runs in eu-west-1.",
        "The EU pricing feed is owned by the Orca team.",
        "The EU pricing feed moved to us-east-2.",
    ):
        e = subject.entity(text)
        assert "feed" in e.words and "eu" in e.anchors, (text, e)
    # still a verb when no verb follows it
    assert subject.entity("The cart service logs requests to S3.").words == {"cart", "servic"}
    assert subject.entity("Build 1423 failed on the lint step.").anchors == {"build 1423"}


def test_an_attribute_subject_before_a_wh_clause_hands_over_to_the_clause():
    said = subject.entity("Port 8084 is where the EU search cluster can be reached.")
    plain = subject.entity("The EU search cluster binds to port 8084.")
    assert said == subject.entity("The EU search cluster can be reached.")
    assert subject.same(said, plain) and said.anchors == {"eu"}
    us = "The US search cluster listens on port 8088."
    assert weigh(
        read(us), read("Port 8084 is where the EU search cluster can be reached.")
    ).different


def test_a_word_inside_another_identifier_does_not_name_an_entity():
    a = "CrashLoopBackOff on the search-api pod happened once because of a bad URL."
    b = "504 Gateway Timeout on /search means Elasticsearch took longer than 60 seconds."
    assert weigh(read(b), read(a)).different
    # an identifier's parts said as words still name it
    assert subject.mentions(subject.entity("feature-flag server is up."), "the feature flag server")


def test_values_of_different_kinds_are_two_attributes_said_with_one_verb():
    region = "The staging payment webhook is deployed to ca-central-1."
    day = "The staging payment webhook is deployed each Tuesday."
    ev = weigh(read(region), read(day))
    assert ev.same_entity and ev.kinds_apart
    assert not (ev.may_report or ev.may_act or ev.may_contradict)
    assert not same_subject_and_attribute(region, day)  # recency leaves them alone


def test_one_shared_object_word_is_no_attribute_read_with_confidence():
    old = "Dmitri Volkov administers the production PostgreSQL clusters."
    new = "Dmitri Volkov upgraded the clusters from Postgres 13 to 16 in one weekend."
    ev = weigh(read(new), read(old))
    assert ev.same_entity and not ev.confident
    assert not (ev.may_report or ev.may_act)
    # a shared unit alone, without a stated change, is none either
    horizon = "Project Helios predicts rooftop solar output 48 hours ahead."
    refresh = "Project Helios refreshes its weather inputs every three hours."
    assert not weigh(read(refresh), read(horizon)).may_act


def test_a_change_that_names_its_old_value_replaces_only_a_fact_holding_it():
    old = "Prism provides React components with built-in accessibility checks."
    new = "Prism deprecated its Modal component in favour of Dialog."
    assert not weigh(read(new), read(old)).cue
    port = "The cart service listens on port 8081."
    moved = "The cart service moved from port 8081 to port 8085."
    assert weigh(read(moved), read(port)).may_supersede


def test_a_fact_that_says_also_never_contradicts():
    old = "Log lines carry trace_id and span_id fields so Grafana can jump to Tempo."
    new = "Log lines also carry a request_id field from the gateway."
    assert not weigh(read(new), read(old)).may_contradict


def test_a_likely_update_needs_one_attribute_read_with_confidence_and_a_changed_value():
    cases = [
        ("Aiko uses IntelliJ for programming.", "Aiko moved to Nagoya."),  # another attribute
        (  # a restatement: the same value
            "The US search cluster has 2 pods behind its load balancer.",
            "The US search cluster is running with 2 replicas.",
        ),
    ]
    for old, new in cases:
        assert not weigh(read(new), read(old)).may_report, (old, new)
    ev = weigh(
        read("The cart service times out after 8 seconds."),
        read("The cart service times out after 5 seconds."),
    )
    assert ev.may_report and ev.may_supersede


@pytest.mark.parametrize(
    "facts",
    [
        [
            "Dmitri Volkov administers the production PostgreSQL clusters.",
            "Dmitri Volkov upgraded the clusters from Postgres 13 to 16 in one weekend.",
        ],
        [
            "Prism provides React components with built-in accessibility checks.",
            "Prism deprecated its Modal component in favour of Dialog.",
        ],
        [
            "Project Helios predicts rooftop solar output 48 hours ahead.",
            "Project Helios refreshes its weather inputs every three hours.",
        ],
        [
            "The staging payment webhook is deployed each Tuesday.",
            "The staging payment webhook is deployed to ca-central-1.",
        ],
        [
            "Log lines carry trace_id and span_id fields so Grafana can jump to Tempo.",
            "Log lines also carry a request_id field from the gateway.",
        ],
        [
            "The US search cluster listens on port 8088.",
            "Port 8084 is where the EU search cluster can be reached.",
        ],
    ],
    ids=["object-word", "named-old-value", "unit-only", "kinds-apart", "also", "wh-clause"],
)
def test_both_facts_stay_visible_and_nothing_is_reported(client, facts):
    first = add(client, facts[0])
    second = add(client, facts[1])
    assert second["superseded"] == [] and second["contradicts"] == [], second
    assert second["likely_updates"] == [], second["likely_updates"]
    assert superseded(client, first["memory"]["id"]) is None


def test_a_stated_change_of_one_attribute_still_supersedes(client):
    old = add(client, "We keep 4 instances of the berth planner up.")["memory"]["id"]
    add(client, "The berth planner listens on port 8090.")
    new = add(client, "The berth planner was scaled from 4 to 9 instances.")
    assert [f["id"] for f in new["superseded"]] == [old]


def test_facts_of_one_frame_that_differ_only_in_a_name_before_the_verb_are_two_entities():
    """However the subject is read ("Anything over 2 MB sent to X is refused": the pronoun hands
    over to a number and a participle), one frame with two names is two entities; a changed
    value after the verb is not a name."""
    a = "Anything over 2 MB sent to the thumbnail resizer is refused."
    b = "Anything over 9 MB sent to the audit-log shipper is refused."
    assert subject.one_frame_two_names(a, b) and weigh(read(b), read(a)).different
    c = "A call to the orders Kafka consumer is cut off at the 3-second mark."
    d = "A call to LedgerSync is cut off at the 6-second mark."
    assert weigh(read(d), read(c)).different
    # a value that changed after the verb: not a name, the frame rule stays out of it
    assert not subject.one_frame_two_names(
        "The admin UI is written in Vue.", "The admin UI is written in React."
    )
    assert not subject.one_frame_two_names(
        "Deploys go out on Tuesdays.", "Deploys go out on Thursdays."
    )


def test_a_change_verb_in_the_bare_present_states_no_change():
    """ "Engineers change the billing worker in Rust" says what they do, not that a fact about
    the worker was replaced: no cue, so it hides nothing of another attribute."""
    port = read("The billing worker listens on :7001.")
    habit = read("Engineers change the billing worker in Rust.")
    assert not habit.change_cues
    ev = weigh(habit, port)
    assert not ev.may_supersede and not ev.cue_only and not ev.bare_change
    assert read("The billing worker changed its port to :7002.").change_cues


def test_parallel_facts_in_one_frame_all_stay_visible(client):
    ids = [
        add(client, f"Anything over {mb} MB sent to {name} is refused.")["memory"]["id"]
        for mb, name in (
            (2, "the thumbnail resizer"),
            (9, "the audit-log shipper"),
            (16, "LedgerSync"),
            (4, "the orders Kafka consumer"),
        )
    ]
    assert [superseded(client, i) for i in ids] == [None] * 4


# -- issue 27, fourth pass: change wordings, attribute families, people's new attributes -------


@pytest.mark.parametrize(
    "old, new",
    [
        (
            "The quota sidecar times out after 6 seconds.",
            "We brought the timeout of the quota sidecar down to 2 seconds; it used to be 6.",
        ),
        (
            "The quota sidecar listens on port 8121.",
            "The quota sidecar answers on 8125 (it was 8121).",
        ),
        ("The quota sidecar runs in eu-north-1.", "The quota sidecar was relocated to sa-east-1."),
        ("The quota sidecar runs 3 replicas.", "The quota sidecar went from 3 replicas to 7."),
        (
            "The quota sidecar belongs to the Marten team.",
            "The quota sidecar was handed over to the Ibex team.",
        ),
        (
            "The quota sidecar listens on port 8121.",
            "No more port 8121 for the quota sidecar: it listens on 8130.",
        ),
        (
            "The quota sidecar belongs to the Marten team.",
            "The Marten team passed the quota sidecar on to the Ibex team.",
        ),
    ],
    ids=[
        "used-to-be",
        "it-was",
        "relocated",
        "went-from",
        "handed-over",
        "no-more",
        "passed-on-to",
    ],
)
def test_change_wordings_read_as_a_stated_change_of_one_attribute(old, new):
    ev = weigh(read(new), read(old))
    assert ev.cue and ev.same_entity and (ev.may_supersede or ev.cue_only), ev


def test_an_ing_word_after_a_determiner_stays_in_the_object_phrase():
    # "staging" is no verb: "the 5 replicas of the staging points webhook" names the webhook
    e = subject.entity("We replaced the 5 replicas of the staging quota webhook with 10.")
    assert "stage" in e.anchors and "webhook" in e.words, e
    other = "We replaced the 8 replicas of the US quota archive with 5."
    assert weigh(
        read("We replaced the 5 replicas of the staging quota webhook with 10."), read(other)
    ).different


def test_one_attribute_in_other_words_is_one_family():
    # ownership said two ways: one attribute, read with confidence
    ev = weigh(
        read("Ownership of the quota sidecar is the responsibility of team Ibex from today."),
        read("The Marten team maintains the quota sidecar."),
    )
    assert ev.same_entity and ev.confident and ev.same_attribute
    assert subject.families(frozenset({"listen"})) == {"port"}
    assert subject.families(frozenset(), frozenset({"eu-north-1"})) == {"region"}


def test_a_stated_change_of_one_attribute_hides_no_fact_of_another_family(client):
    port = add(client, "The port for the quota sidecar is 8121.")["memory"]["id"]
    replicas = add(client, "The quota sidecar has 4 pods behind its load balancer.")["memory"]["id"]
    new = add(client, "The replica count of the quota sidecar was bumped to 12.")
    assert superseded(client, port) is None
    assert [f["id"] for f in new["superseded"]] == [replicas]


@pytest.mark.parametrize(
    "old",
    [
        "Every morning Ines comes in by tram.",
        "Ines lives in Porto.",
        "Ines is our QA lead.",
        "Ines runs the daily standup at 9:15.",
        "Ines writes code in Helix.",
    ],
)
def test_a_new_fact_about_a_person_is_a_new_attribute_not_a_changed_value(client, old):
    """A person's new fact with an action verb ("adopted a parrot", "switched to Emacs",
    "moved to Rabat") names a new attribute, or one the older fact does not share: a name for
    a name with nothing else in common replaces nothing."""
    first = add(client, old)["memory"]["id"]
    for new in ("Ines adopted a parrot called Kiwi.", "Ines switched to Emacs."):
        out = add(client, new)
        assert out["superseded"] == [] and out["contradicts"] == [], (old, new, out)
    assert superseded(client, first) is None


def test_a_past_tense_verb_before_from_is_the_verb():
    # "moved from X to Y": a verb; only a plural noun goes before "of"/"from" ("logs from X")
    e = subject.entity("The US quota log moved from port 8087 to port 8082.")
    assert e.anchors == {"us"} and e.words == {"quota", "log"}, e
    assert subject.entity("Logs from the quota sidecar are kept for 9 days.").words == {
        "quota",
        "sidecar",
    }


def test_took_longer_is_no_change_cue_and_a_value_kind_alone_is_no_firm_tie():
    fact = read("504 on /search means the quota gateway took longer than 60 seconds.")
    assert not fact.change_cues
    assert read("The quota gateway no longer retries.").change_cues
    ev = weigh(
        read("The quota gateway switched its probe to /healthz."),
        read("The readinessProbe for the quota gateway hits /ready on port 8081 with a delay."),
    )
    # a path for a path, nothing else in common: may be judged, never on the likely bar alone
    assert not ev.firmly_tied


def test_a_subject_ending_in_an_attribute_noun_names_its_entity_by_the_words_before_it():
    assert subject.entity("Quota segment duration is 4 s.").words == {"quota", "segment"}
    assert subject.entity("The sidecar batch size limit is 5.").words == {"sidecar", "batch"}
    # narrowed to what follows a preposition: the head is the entity's own
    assert subject.entity("The timeout for the quota window is 3 seconds.").words == {
        "quota",
        "window",
    }
    ev = weigh(read("Quota segment duration is 4 s."), read("Quota segments are 10 seconds long."))
    assert ev.same_entity and ev.confident and ev.changed


def test_a_length_of_time_in_other_units_is_one_quantity_changed():
    ev = weigh(
        read("We keep quota receipts for 7 days."), read("Quota receipts are kept for 24 hours.")
    )
    assert ev.same_entity and ev.changed and ev.may_supersede
    # the same length in other units is no change
    same = weigh(
        read("Quota receipts are kept for 1 day."), read("Quota receipts are kept for 24 hours.")
    )
    assert not same.changed


def test_sent_through_and_go_through_say_nothing_of_the_attribute():
    ev = weigh(
        read("Quota SMS are sent through MessageBird."), read("Quota SMS go through Twilio.")
    )
    assert ev.same_entity and ev.bare and ev.bare_change
    # a fact that names its own attribute ("to the Ibex team") is not replaced by a name
    other = weigh(
        read("Quota alerts are sent through Twilio."), read("Quota alerts go to the Ibex team.")
    )
    assert not other.bare_change and not other.cue_only


def test_a_change_naming_the_older_facts_value_as_gone_changes_that_value():
    uses = read("The quota relay uses libfoo to talk to the brokers.")
    dropped = read("The quota relay dropped libfoo in favour of libbar.")
    ev = weigh(dropped, uses)
    assert ev.changed and ev.firmly_tied and ev.may_act
    # it says nothing of a fact that does not hold that value
    assert not weigh(dropped, read("The quota relay listens on port 8121.")).may_act
    # a bare number named is no tie ("from 8 to 12 seconds" is not about "8 replicas")
    raised = read("We raised the timeout of the quota relay from 8 to 12 seconds.")
    assert not weigh(raised, read("The quota relay runs 8 replicas.")).may_act


# -- issue 27, fifth pass: identifiers in an entity's place, near-twin names ------------------


@pytest.mark.parametrize(
    "a, b",
    [
        (  # the identifier inside the object phrase ("the X model") is the entity
            "The deploy manifest locks the ranker-v5 model to release 2.4.1.",
            "The deploy manifest locks the ranker-v6 model to release 0.9.3.",
        ),
        (  # an env var behind a determiner phrase, one letter apart
            "The deploy manifest locks the database behind LEDGER_DB_URL to release 7.1.9.",
            "The deploy manifest locks the database behind LENDER_DB_URL to release 3.3.8.",
        ),
        (  # a host named after "for", a leading "In UTC," clause
            "In UTC, housekeeping for pg-eu1.internal starts at 02:20.",
            "In UTC, housekeeping for pg-eu2.internal starts at 04:40.",
        ),
        (  # "There is a cap of N ... on X": the entity comes last
            "There is a cap of 360 open connections on invoices_2024.",
            "There is a cap of 960 open connections on invoices_2025.",
        ),
        (  # an environment variant of one name, in a namespace
            "Nobody upgrades the ads-prod namespace past 3.7.2 for now.",
            "Nobody upgrades the ads-dev namespace past 1.19.4 for now.",
        ),
        (  # "For X, ..." and a versioned URL
            "For api.v1.harbor.dev, the connection limit is 480.",
            "For api.v2.harbor.dev, the connection limit is 1200.",
        ),
        (  # "X's Y is ..." after a leading "In production,"
            "In production, cache-a1.internal's cache entries live for 45 seconds.",
            "In production, cache-a2.internal's cache entries live for 300 seconds.",
        ),
        (  # a near-twin name between a determiner and a noun
            "buoy-gateway polls the north-bay buoys every 5 minutes.",
            "buoy-gateway polls the south-bay buoys every 10 minutes.",
        ),
        (  # a numbered name ("Line 4") is one thing, "Line 9" another
            "Line 4 validators were replaced in January.",
            "Line 9 validators were replaced in March.",
        ),
        (  # people's full names one word apart, after a leading time phrase / "because of"
            "A few months ago Maren Holt started piano lessons.",
            "A few months ago Maren Voss started a welding course.",
        ),
        (
            "Team dinners skip peanuts because of Oskar Lindqvist.",
            "Team dinners skip gluten because of Oskar Lindgren.",
        ),
    ],
    ids=[
        "model",
        "env-var",
        "host-for",
        "cap-on",
        "namespace",
        "for-url",
        "possessive",
        "modifier",
        "numbered",
        "time-lead",
        "because-of",
    ],
)
def test_facts_about_near_twin_identifiers_are_two_entities(a, b):
    ev = weigh(read(b), read(a))
    assert ev.different, ev
    assert not (ev.may_act or ev.may_report or ev.may_contradict)
    assert not same_subject_and_attribute(b, a)


@pytest.mark.parametrize(
    "old, new",
    [
        (
            "The deploy manifest locks the ranker-v5 model to release 2.4.1.",
            "The deploy manifest now locks the ranker-v5 model to release 2.5.0.",
        ),
        (
            "There is a cap of 1080 open connections on CART_DB_URL.",
            "There is now a cap of 840 open connections on CART_DB_URL (1080 before).",
        ),
        (
            "In UTC, housekeeping for pg-eu1.internal starts at 02:20.",
            "Housekeeping for pg-eu1.internal was moved from 02:20 to 05:50 UTC.",
        ),
        # a near-twin name as the value: "reads from" it, and the change names the old one
        (
            "cache-a2.internal reads from store-a1.internal.",
            "cache-a2.internal now reads from store-a2.internal.",
        ),
        ("The orders job runs in eu-west-1.", "The orders job moved from eu-west-1 to eu-west-2."),
        (
            "The billing worker connects to pg-eu1.internal.",
            "The billing worker moved from pg-eu1.internal to pg-eu2.internal.",
        ),
    ],
    ids=["model-now", "cap-now", "moved-from", "value-host", "region", "named-old-value"],
)
def test_a_change_of_one_identifiers_value_is_still_an_update(old, new):
    ev = weigh(read(new), read(old))
    assert not ev.different and ev.same_entity, ev
    assert ev.may_act, ev


def test_an_identifier_in_an_entitys_place_is_the_entity_a_value_is_not():
    e = subject.entity("There is a cap of 575 open connections on orders_archive.")
    assert e.anchors == {"orders_archive"}
    e = subject.entity("The deploy manifest locks the churn-v8 model to release 2.31.0.")
    assert e.anchors == {"churn-v8"}
    e = subject.entity("In UTC, housekeeping for db-eu2.internal fires at 05:04.")
    assert e.anchors == {"db-eu2.internal"}
    # a Slack channel, a value after "from" / "to", a region: values, not what it is about
    e = subject.entity("#ops-kite is the Slack channel for the /srv/media-eu volume.")
    assert e.anchors == {"srv/media-eu"}  # (the token starts at its first letter)
    e = subject.entity("The ledger worker reads from store-a1.internal.")
    assert "store-a1.internal" not in e.anchors and "worker" in e.words
    assert not subject.named_apart(
        "The ledger worker reads from store-a1.internal.",
        "The ledger worker reads from store-a2.internal.",
    )
    # "for now" says how long, not that something changed
    assert not read("Nobody moves api.v1.harbor.dev past version 5.1.0 for now.").change_cues
    assert read("The manifest now pins api.v1.harbor.dev to 5.2.0.").change_cues
    # plain English with a hyphen is no name
    assert subject.entity(
        "Night-time problems with plaza-sync land on the Agate people."
    ).anchors == {"plaza-sync"}


def test_parallel_facts_about_near_twins_all_stay_visible_and_a_real_change_hides_one(client):
    ids = [
        add(client, text)["memory"]["id"]
        for text in (
            "The deploy manifest locks the ranker-v5 model to release 2.4.1.",
            "The deploy manifest locks the ranker-v6 model to release 0.9.3.",
            "There is a cap of 360 open connections on invoices_2024.",
            "There is a cap of 960 open connections on invoices_2025.",
            "In UTC, housekeeping for pg-eu1.internal starts at 02:20.",
            "In UTC, housekeeping for pg-eu2.internal starts at 04:40.",
        )
    ]
    assert [superseded(client, i) for i in ids] == [None] * 6
    new = add(client, "There is now a cap of 500 open connections on invoices_2025 (960 before).")
    assert [f["id"] for f in new["superseded"]] == [ids[3]]
    assert [superseded(client, i) for i in ids[:3]] == [None] * 3


def test_a_thing_named_before_a_preposition_stays_part_of_the_entity():
    """ "The revenue report for the city" is not "the city": two reports of one city are two
    entities; "Log retention for X" is still about X."""
    a = "The revenue report for the city is produced on Wednesdays."
    b = "The ridership report for the city is produced on Mondays."
    assert weigh(read(b), read(a)).different
    assert subject.entity("Log retention for the EU cron scheduler is 45 days.").anchors == {"eu"}


def test_snapshots_and_the_backup_schedule_are_one_attribute():
    old = read("Snapshots of the quay-relay job are taken every 6 hours.")
    new = read("We cut the backup schedule of the quay-relay job to every 2 hours.")
    ev = weigh(new, old)
    assert ev.same_entity and not ev.families_apart and ev.may_act, ev
    # and no other attribute of the same job
    port = read("The quay-relay job listens on port 8120.")
    assert not weigh(new, port).may_act


def test_an_alert_said_two_ways_is_one_attribute_and_p99_is_no_value():
    old = "Above 200 ms of p99 latency on CART_DB_URL, the pager goes off."
    new = "The p99 alert of CART_DB_URL was raised to 250 ms."
    ev = weigh(read(new), read(old))
    assert ev.same_entity and ev.may_act, ev
    # a Slack channel replaces no measure's name: another attribute, nothing to report
    channel = "Questions about CART_DB_URL go to #ops-rook on Slack."
    ev = weigh(read(channel), read(old))
    assert not (ev.may_act or ev.may_report), ev


def test_numbered_pages_are_separate_events():
    a = "Pager 4412 was a false alarm caused by a synthetic check hitting a retired URL."
    b = "Pager 4419 woke Zinaida at 03:10 because the replica lag passed ten minutes."
    ev = weigh(read(b), read(a))
    assert not (ev.same_entity or ev.may_act or ev.may_report or ev.may_contradict), ev
    c = "Pager 4419 was caused by replica lag."
    assert weigh(read(c), read(a)).different


# -- issue 27, sixth pass: positive evidence of one entity, or nothing -----------------------


@pytest.mark.parametrize(
    "a, b",
    [
        (  # one frame, two places filled differently: which is the entity cannot be told
            "Port 7312 is registered to matchmaker-staging in the service registry.",
            "Port 7311 is registered to matchmaker-prod in the service registry.",
        ),
        (  # the subject read is a leading phrase ("Above ..."), the entity comes last
            "Above 12000 calls a minute, clients get HTTP 429 from matchmaker-prod.",
            "Above 1200 calls a minute, clients get HTTP 429 from dag_ingest_claims_hourly.",
        ),
        (  # no identifier on one side: still two places of one frame
            "There is a cap of 2400 requests per minute on the courier app's push gateway.",
            "There is a cap of 300 requests per minute on the shift-billing worker.",
        ),
        (  # two frames, each naming an identifier the other never holds
            "The ORDERS_DB_URL_RO pool is owned by the Cedar team, per the service catalog.",
            "In the service catalog, the owner listed for the eu-west-1 dispatch cluster is"
            " team Hazel.",
        ),
        (  # an entity named by an identifier is one only with a fact that holds it
            "matchmaker-staging is capped at 150 requests per minute.",
            "There is a cap of 2400 requests per minute on the courier app's push gateway.",
        ),
    ],
)
def test_facts_without_positive_evidence_of_one_entity_are_left_alone(a, b):
    for new, old in ((a, b), (b, a)):
        ev = weigh(read(new), read(old))
        assert ev.different, (new, old)
        assert not (ev.may_act or ev.may_report or ev.may_contradict)


def test_the_entitys_own_name_and_words_are_no_shared_attribute():
    # the shard is named in both; its words ("lobby shard") and the region in its name say
    # nothing about which attribute the two state (a retry count, a batch size)
    ev = weigh(
        read("The batch size of the ap-south-1 lobby shard has been 128 records ever since."),
        read("When a call fails, the ap-south-1 lobby shard has 4 more goes at it, no more."),
    )
    assert not ev.may_act and not ev.may_report
    # the noun after a shared name ("the EMBERFALL_STORE_DB pool") is part of the name
    ev = weigh(
        read("When a call fails, the EMBERFALL_STORE_DB pool has 8 more goes at it, no more."),
        read("Each flush from the EMBERFALL_STORE_DB pool carries up to 250 items."),
    )
    assert not ev.may_act and not ev.may_report
    # a region that names the entity is no region attribute
    ev = weigh(
        read("The eu-west-1 dispatch cluster reports whether it is alive on /status."),
        read("The secrets of the eu-west-1 dispatch cluster sit under kv/prod/orders-ro."),
    )
    assert not ev.may_report


def test_a_cue_word_alone_acts_only_when_both_subjects_name_one_entity():
    # "no more" after a leading "When ..." clause, the other fact's subject "Above ...":
    # the subjects do not agree, and the cue names no old value
    ev = weigh(
        read("When a call fails, the EMBERFALL_STORE_DB pool has 8 more goes at it, no more."),
        read("Above 150 calls a minute, clients get HTTP 429 from the EMBERFALL_STORE_DB pool."),
    )
    assert not ev.may_act
    # both subjects name catalog-api: a cue and a name replaced by a name is an update
    assert weigh(
        read("catalog-api runs on FastAPI after the port."), read("catalog-api is built on Flask.")
    ).may_act
    # a cue beside the old value, named as the one that went
    assert weigh(
        read("Ragnhild Oduya has since left Montréal for Hobart."),
        read("Ragnhild Oduya works remotely from Montréal."),
    ).may_act
    # the entity's own name ("Iwasaki's") is no old value the change names
    assert not weigh(
        read("After the move, Kwabena Iwasaki's working hours follow AEST."),
        read("Kwabena Iwasaki's weekends go to woodturning."),
    ).may_act


def test_a_capitalised_hyphenated_word_is_no_identifier():
    # "Heads-up," and "Due-date" are English: the update still reaches its fact
    assert weigh(
        read(
            "Heads-up, bedboard-staging no longer uses 75 seconds but 7 seconds for the"
            " request timeout."
        ),
        read("For bedboard-staging, upstream calls time out after 75 seconds."),
    ).may_act
    assert not weigh(
        read("Reminders moved off Twilio; MessageBird sends them now."),
        read("Due-date reminders are sent by SMS through Twilio."),
    ).different


def test_parallel_facts_of_one_frame_all_stay_visible_and_report_nothing(client):
    texts = [
        "Port 7312 is registered to matchmaker-staging in the service registry.",
        "Port 7311 is registered to matchmaker-prod in the service registry.",
        "Port 10250 is registered to the ORDERS_DB_URL_RO pool in the service registry.",
        "Above 1800 calls a minute, clients get HTTP 429 from the season-ladder service.",
        "Above 6000 calls a minute, clients get HTTP 429 from the eu-west-1 dispatch cluster.",
        "Code reviews touching orders-api-v3 need a sign-off from Alder, the owning team.",
        "Code reviews touching orders-api-v2 need a sign-off from Aspen, the owning team.",
    ]
    ids, reported = [], 0
    for text in texts:
        out = add(client, text)
        ids.append(out["memory"]["id"])
        reported += len(out["likely_updates"]) + len(out["contradicts"])
    assert [superseded(client, i) for i in ids] == [None] * len(texts)
    assert reported == 0


# -- issue 27, seventh pass: a qualifier is part of the entity's name --------------------------


def test_a_parenthesised_qualifier_names_another_entity(client):
    # "(south field)" / "(north field)": two gateways, both facts stay visible
    south = add(client, "The moisture-probe gateway (south field) flushes every 15 seconds.")
    north = add(client, "The moisture-probe gateway (north field) flushes every 10 seconds.")
    assert superseded(client, south["memory"]["id"]) is None
    assert north["likely_updates"] == [] and north["contradicts"] == []
    assert weigh(
        read("The moisture-probe gateway (north field) flushes every 10 seconds."),
        read("The moisture-probe gateway (south field) flushes every 15 seconds."),
    ).different
    # one gateway, its qualifier no attribute word: two quantities of two units are two facts
    assert not weigh(
        read(
            "No write sits in the buffer of the moisture-probe gateway (south field) longer"
            " than 15 seconds."
        ),
        read(
            "The moisture-probe gateway (south field) may write at most 20 GB to its scratch volume."
        ),
    ).may_act


def test_a_trailing_in_qualifier_names_another_entity():
    assert weigh(
        read("A fresh encryption key is issued to the origin shield in ams each 45 days."),
        read("A fresh encryption key is issued to the origin shield in sin each 60 days."),
    ).different
    assert not weigh(
        read("A pool of 3 threads does the work inside the origin shield in ams."),
        read("Concurrency for the origin shield in sin is set to 4 threads per process."),
    ).may_act
    # "a bucket in Zurich" describes a value, not a known thing: the update still acts
    assert weigh(
        read("Patient records are backed up to a bucket in Zurich."),
        read("Patient records are backed up to a bucket in Frankfurt."),
    ).may_act


def test_a_function_word_after_a_change_verb_is_no_old_value():
    # "is replaced on a 120-day cycle" names no old value "on" that the placement fact holds
    assert not weigh(
        read(
            "Signing material used by the us-east-2a search shard is replaced on a 120-day cycle."
        ),
        read("The scheduler only ever places the us-east-2a search shard on the r7i-highmem pool."),
    ).may_act


def test_a_person_who_quits_sells_or_trades_the_old_value_is_an_update():
    assert weigh(
        read("Tiberius Brennan quit curling and took up badminton."),
        read("Twice a week Tiberius Brennan trains for curling."),
    ).may_act
    assert weigh(
        read("Cormac Tolliver sold a Renault Zoe and picked up a VW ID.Buzz."),
        read("Cormac Tolliver drives a Renault Zoe."),
    ).may_act
    # the change names a value the other fact never holds: that fact stays
    assert not weigh(
        read("Cormac Tolliver sold a Renault Zoe and picked up a VW ID.Buzz."),
        read("If you fetch drinks, Cormac Tolliver wants a cardamom latte."),
    ).may_act
