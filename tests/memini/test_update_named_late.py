"""Update detection, tenth pass (issue 27): the entity named late in a sentence.

A fact whose subject is no thing of its own — people in general ("Clients reach X"), a watchdog
that "expects to hear from X", a subject said with "a" beside a named thing ("A liveness ping
leaves X") — is about the thing it names; when the other fact's subject is that very phrase,
both are about it. Two things with one name and one noun but another word between ("the
GTFS-RT vehicle poller" / "the GTFS-RT alerts poller") stay two. "every 240 seconds" says how
often, not one more of a kind; ":8087" is a port. Pairs judged with the real MiniLM cosine and
meaning, as the write path judges them."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from neuralgentics.memini.store.base import Memory
from neuralgentics.memini.updates import detect
from neuralgentics.memini.updates.text import read


def decide(embedder, new: str, old: str) -> detect.Detection:
    a, b = embedder.embed([new, old])
    now = datetime.now(UTC)
    m = Memory("old", old, 0.5, None, "shop", [], {}, "", now, now)
    return detect.decide(new, [(m, float(np.dot(a, b)))], meaning=detect.meaning_of(embedder.embed))


def acts(embedder, new: str, old: str) -> bool:
    return bool(decide(embedder, new, old).act)


def test_the_entity_named_after_a_watchdog_is_the_other_facts_subject(embedder):
    old = "Every 120 seconds the watchdog expects to hear from the disruption push sender."
    assert acts(embedder, "The disruption push sender sends a heartbeat every 240 seconds.", old)
    # another sender's heartbeat replaces nothing
    assert not decide(
        embedder, "The bike-dock status poller sends a heartbeat every 240 seconds.", old
    ).act
    # a longer name that ends in the same words is another thing
    assert not acts(
        embedder, "The refunds disruption push sender sends a heartbeat every 240 seconds.", old
    )


def test_what_people_in_general_act_on_is_the_entity(embedder):
    old = "Clients reach the iOS player API at port 8086."
    assert acts(embedder, "Clients reach the iOS player API at port 8087.", old)
    assert not acts(embedder, "Clients reach the Android player API at port 8087.", old)
    # a value they get is no entity: two components' rate caps stay apart
    assert not acts(
        embedder,
        "Above 12000 calls a minute, clients get HTTP 429 from matchmaker-prod.",
        "Above 1200 calls a minute, clients get HTTP 429 from dag_ingest_claims_hourly.",
    )


def test_one_name_with_two_modifiers_before_one_noun_is_two_things(embedder):
    assert not acts(
        embedder,
        "Once 1,000 messages are waiting, the GTFS-RT alerts poller sheds new work.",
        "Once 750 messages are waiting, the GTFS-RT vehicle poller sheds new work.",
    )
    assert not acts(
        embedder,
        "Every 45 seconds the watchdog expects to hear from the GTFS-RT vehicle poller.",
        "The GTFS-RT alerts poller sends a heartbeat every 60 seconds.",
    )


def test_a_subject_said_with_a_beside_a_named_thing_is_not_the_entity(embedder):
    assert not acts(
        embedder,
        "A liveness ping leaves the chemistry analyzer bridge (bay B) once per 5 seconds.",
        "A liveness ping leaves the chemistry analyzer bridge (bay A) once per 3 seconds.",
    )
    assert not acts(
        embedder,
        "A fresh encryption key is issued to the fra2 edge cache each 90 days.",
        "A fresh encryption key is issued to pairing-solver-v7 each 30 days.",
    )
    # a kind said with "a", and nothing else named, is what the fact is about
    assert acts(embedder, "A user may hold 8 GPUs at once.", "A user may hold 4 GPUs at once.")


def test_how_often_is_not_one_more_of_a_kind():
    assert read("The sender sends a heartbeat every 240 seconds.").additive_cues == 0
    assert read("Servers run 30 ticks per second.").additive_cues == 0
    assert read("Deploys happen every Friday.").additive_cues == 0
    assert read("Each shard also keeps a second copy.").additive_cues == 3
    assert read("There is another cache in front.").additive_cues == 1


def test_a_colon_and_digits_is_a_port():
    assert read("crane-telemetry is exposed on :8087.").numbers == {("8087", "")}
    assert "8087" in read("crane-telemetry is exposed on :8087.").values
    # not the minutes of a time
    assert ("30", "") not in read("Patching runs Friday 02:30-04:30 UTC.").numbers


def test_a_process_acting_on_a_component_is_about_the_component(embedder):
    from neuralgentics.memini.updates import subject

    assert subject.entity(
        "OS updates reach wms-pickpath-v4 only during Wednesday 21:00 UTC."
    ).anchors == {"wms-pickpath-v4"}
    d = decide(
        embedder,
        "OS updates reach royalty-ledger-latam only during Thursday 22:00-24:00 UTC.",
        "OS updates reach the GTFS-RT vehicle poller only during Monday 23:00-01:00 UTC.",
    )
    assert not d.act and not d.likely
    # a verb "updates" is still a verb
    assert subject.entity("The API updates the cache every hour.").anchors == {"api"}


def test_a_word_before_a_component_noun_is_part_of_its_name(embedder):
    # "alerts" is no verb before "poller": two facts of one poller are two attributes, not a
    # likely update of each other
    e = decide(
        embedder,
        "Site ZAG-1 (cage 3) hosts the GTFS-RT alerts poller.",
        "The GTFS-RT alerts poller is patched in the Friday 02:30-04:30 UTC window.",
    )
    assert not e.act and not e.likely


def test_a_persons_name_for_a_tier_is_no_likely_update(embedder):
    d = decide(
        embedder,
        "If shader-cache-node-07 fails, the supplier responds under tier Gold (4-hour response).",
        "Questions about shader-cache-node-07 go to its owner, Kunigunde Osei.",
    )
    assert not d.act and not d.likely
    # one owner for another still is one
    d = decide(
        embedder,
        "The owner of shader-cache-node-07 is now Dagny Okonkwo.",
        "Questions about shader-cache-node-07 go to its owner, Kunigunde Osei.",
    )
    assert d.act or d.likely


def test_one_opening_subject_word_for_word_holds_what_changed(embedder):
    # two places of the sentence changed (the verb and the version), and the subject is the
    # same words: the version of the product index changed
    assert acts(
        embedder,
        "The product index was rolled forward to OpenSearch 2.15 over the weekend.",
        "The product index runs on OpenSearch 2.11.",
    )
    # not when the subject is a value, or the two sides of a contrast are named
    assert not acts(
        embedder,
        "Port 7311 is registered to matchmaker-prod in the service registry.",
        "Port 7312 is registered to matchmaker-staging in the service registry.",
    )
    assert not acts(
        embedder,
        "Video start time on smart TVs must stay under 4 seconds.",
        "Video start time on web must stay under 2 seconds.",
    )


def test_a_habit_given_up_is_a_stated_change_of_it(embedder):
    old = "Wystan Achebe-Lund drinks peppermint tea all afternoon."
    assert acts(
        embedder, "Wystan Achebe-Lund gave up peppermint tea; it is lapsang souchong now.", old
    )
    # what went must be the older fact's: another habit stays
    assert not acts(
        embedder,
        "Wystan Achebe-Lund moved on from Oxide and Friends to Planet Money.",
        "Midday workouts for Wystan Achebe-Lund are kettlebell circuits.",
    )
    assert not acts(
        embedder,
        "Wystan Achebe-Lund went off a macchiato; the usual order is a flat white.",
        "The vehicle Wystan Achebe-Lund owns is a Fiat Panda.",
    )


def test_in_place_of_and_took_over_from_name_the_value_that_went(embedder):
    assert acts(
        embedder,
        "The irrigation-scheduler ships with 8 seconds as the flush interval, in place of 20 seconds.",
        "Every 20 seconds, whatever the irrigation-scheduler holds in memory is written out.",
    )
    assert acts(
        embedder,
        "The Bison team took over meter-gateway from the Dingo team.",
        "The Dingo team owns meter-gateway.",
    )


def test_a_region_that_names_no_component_is_a_value():
    from neuralgentics.memini.updates import evidence, subject

    text = "The berth scheduler sits in the us-west-2 data centre."
    assert evidence._read_well(subject.entity(text), text)
    text = "Failover for the eu-west-1 dispatch cluster takes 30 seconds."
    assert evidence._region_value("eu-west-1", text) is False


def test_a_persons_habit_changed_in_other_words_is_read_by_meaning(embedder):
    old = "Midday workouts for Ilse Marchetti are spin class."
    assert acts(
        embedder,
        "Ilse Marchetti did spin class in the spring; the lunchtime session is reformer pilates at present.",
        old,
    )
    # a change of another habit of hers replaces nothing
    assert not acts(
        embedder, "Ilse Marchetti has locker L-141 at present; locker M-091 went to a starter.", old
    )
    # "looks after" is no change cue
    assert read("Ilse Marchetti looks after the license-seat broker.").change_cues == ()


def test_no_more_than_is_a_bound_not_a_change(embedder):
    assert read("The ledger relay opens no more than 64 database connections.").change_cues == ()
    assert read("No more nightly runs for the ledger relay: it runs hourly.").change_cues == (
        "no more",
    )
    assert not acts(
        embedder,
        "The ledger relay opens no more than 64 database connections.",
        "Secrets at rest for the ledger relay are wrapped by alias/data-key-a1.",
    )


def test_a_lower_and_an_upper_bound_are_two_attributes(embedder):
    assert not acts(
        embedder,
        "The PMS rate-push service opens no more than 320 database connections.",
        "The PMS rate-push service keeps at least 24 database connections warm.",
    )
    # one bound changed is an update
    assert acts(
        embedder,
        "The PMS rate-push service now opens no more than 400 database connections.",
        "The PMS rate-push service opens no more than 320 database connections.",
    )


def test_a_numbered_thing_inside_a_name_is_its_own_entity(embedder):
    assert not acts(
        embedder,
        "Oriana Thistlewood is the backup on-call for the gondola 4 telemetry relay.",
        "The second pager for the gondola 5 telemetry relay is held by Pankratius Eze.",
    )


def test_facts_that_name_two_people_are_about_either(embedder):
    # B's ride and C's ride, both with A
    assert not acts(
        embedder,
        "Aurelio Banerjee-Holt gives Wendelgard Okparaeke a lift in most mornings.",
        "Aurelio Banerjee-Holt gives Zenaida Fairclough a lift in most mornings.",
    )
    # another person's change says nothing of Ingvild's choir
    assert not acts(
        embedder,
        "Gwendolen Achterhof moved away, so Ingvild Ramaswamy rides in with Philippina Olusanya.",
        "Ingvild Ramaswamy sings tenor in the staff choir.",
    )
    # the buddy who went named beside the one who came is still an update
    assert acts(
        embedder,
        "Ottilie Brandvold is no longer Rasmussen Delacroix's onboarding buddy; Winifred "
        "Aaltonen took that on.",
        "Rasmussen Delacroix's onboarding buddy is Ottilie Brandvold.",
    )


def test_a_component_in_a_leading_for_phrase_is_the_entity(embedder):
    from neuralgentics.memini.updates import subject

    e = subject.entity(
        "For the gondola drive monitor (lower terminal), the log topic is ops.trace.sampled."
    )
    assert {"gondola", "monitor"} <= e.words and "(" not in e.words
    assert not acts(
        embedder,
        "For the gondola drive monitor (lower terminal), the log topic has stood at "
        "ops.trace.sampled since the migration.",
        "Log lines from the avalanche bulletin publisher end up on topic ops.trace.raw.",
    )


def test_coded_runs_are_numbered_events(embedder):
    assert not acts(
        embedder,
        "Duty forecasters noted that the 00Z model cycle of 2027-01-14 missed the storm track.",
        "Duty forecasters noted that the 12Z model cycle of 2027-01-15 finished forty minutes late.",
    )
    # an ordinal day is a value
    assert acts(
        embedder,
        "The bid portal opens on the 8th of each month.",
        "The bid portal opens on the 5th of each month.",
    )


def test_a_value_named_by_its_kind_as_subject_is_not_the_entity(embedder):
    from neuralgentics.memini.updates import subject

    e = subject.entity(
        "Topic app.logs.eu-dr receives the log output of the ski-school booking API."
    )
    assert "ski-school" in e.anchors
    assert acts(
        embedder,
        "The platform group overrode the log topic of the ski-school booking API with ops.audit.v2.",
        "Topic app.logs.eu-dr receives the log output of the ski-school booking API.",
    )
    # a letter in a parenthesis names one of several
    assert not acts(
        embedder,
        "Topic ops.audit.v2 receives the log output of the PAN tokeniser (vault B).",
        "Topic gmp.audit.trail receives the log output of the PAN tokeniser (vault A).",
    )
