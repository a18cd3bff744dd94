"""Generate the third held-out part (issue 27, item 7): `heldout3`, never read to tune.

    python bench/data/gen_heldout3.py           # (re)write the heldout3 files
    python bench/data/gen_heldout3.py --check   # exit 1 when a committed file is stale or
                                                # when heldout3 shares an entity with another part

Written while the update detector was being tuned by someone who never saw these files, so
that the tuning can be checked for generalisation. Nothing here is taken from the other parts
(tune / heldout / heldout2 of bench/data/gen_streams.py, or bench/data/memory_updates.jsonl):
other entity shapes, other attributes, other phrasings, other event kinds, other people, other
projects. Deterministic: no randomness but a sha256 of fixed strings (gen_streams' helpers).

Files, in gen_streams' line format (id, set, split="heldout3", scope, seq, kind, entity,
attribute, text, questions, replaces, restates):

- `streams_parallel_heldout3.jsonl`: 14 entities x 9 attributes, every fact true at once.
  Entities of shapes no other part has: k8s namespaces ("the billing-prod namespace" /
  "the billing-staging namespace"), hostnames (db-eu1.internal / db-eu2.internal), tables
  (orders_archive / orders_live), env vars (PAYMENTS_DB_URL / PAYOUTS_DB_URL), a file path,
  versioned URLs (api.v3 / api.v4), versioned ML models, a mobile app backend. Attributes:
  cache TTL, max connections, SLA, on-call rotation, p99 alert threshold, backup frequency,
  pinned version, maintenance cron, Slack channel; three phrasings each, among them the entity
  after the verb, passive voice, "there is", possessives, parentheses, leading clauses.
- `streams_events_heldout3.jsonl`: dated deploys, postmortems, pages, Flyway migrations,
  A/B experiments, weekly capacity reviews — many of one template with another number/date.
- `streams_people_heldout3.jsonl`: 8 people x 8 attributes (timezone, shell, keyboard layout,
  allergy, and bare new facts with action verbs: adopted, bought, joined, started — none of
  them an update of another attribute).
- `streams_mixed_heldout3.jsonl`: three projects, each ~60 % facts, ~18 % events, ~12 % real
  updates (in many wordings: "used to be", "was bumped from X to Y", "as of today", "replaced X
  with Y", "instead of", "switched over", "no more", "changed from", "is now", "we cut ... to",
  the entity after the verb, "(it was X)", a plain new value) and ~10 % restatements.
- `memory_updates_heldout3.jsonl`: hand-written update pairs in memory_updates.jsonl's schema:
  8 projects, updates (cue / plain / value_only), near-topic non-updates, contradictions.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import heldout_build as hb  # noqa: E402
from gen_streams import order  # noqa: E402
from heldout_build import up  # noqa: E402

SPLIT = "heldout3"


# -- parallel ------------------------------------------------------------------------------------

ENTITIES = [
    "the billing-prod namespace",
    "the billing-staging namespace",
    "db-eu1.internal",
    "db-eu2.internal",
    "orders_archive",
    "orders_live",
    "the database behind PAYMENTS_DB_URL",
    "the database behind PAYOUTS_DB_URL",
    "the /var/lib/exports volume",
    "api.v3.tollgate.io",
    "api.v4.tollgate.io",
    "the churn-predictor-v7 model",
    "the churn-predictor-v8 model",
    "the pocketdoc-ios backend",
]

Phrase = Callable[[str, str], str]

ATTRS: dict[str, dict] = {
    "cache_ttl": {
        "values": [str(v) for v in (37, 53, 71, 97, 113, 131, 149, 167, 193, 211, 229, 251, 277)],
        "phrases": [
            lambda e, v: f"{up(e)} caches lookups for {v} seconds before refetching.",
            lambda e, v: f"In production, {e}'s cache entries live for {v} seconds.",
            lambda e, v: f"Cached reads from {e} are thrown away after {v} s (the TTL).",
        ],
        "questions": [
            lambda e: f"How long does {e} hold onto something it has cached?",
            lambda e: f"What expiry applies to cached data of {e}?",
        ],
    },
    "max_conns": {
        "values": [str(v) for v in (115, 230, 345, 460, 575, 690, 805, 920, 1035, 1150, 1265)],
        "phrases": [
            lambda e, v: f"{up(e)} allows at most {v} concurrent connections.",
            lambda e, v: f"There is a cap of {v} open connections on {e}.",
            lambda e, v: f"Connections to {e} are limited to {v} by the pooler.",
        ],
        "questions": [
            lambda e: f"How many clients can be attached to {e} simultaneously?",
            lambda e: f"What is the ceiling on parallel sessions for {e}?",
        ],
    },
    "sla": {
        "values": [
            "99.5",
            "99.9",
            "99.95",
            "99.99",
            "99.7",
            "99.8",
            "99.85",
            "99.25",
            "99.65",
            "99.75",
            "99.92",
            "99.97",
        ],
        "phrases": [
            lambda e, v: f"{up(e)} is promised to customers at {v}% uptime.",
            lambda e, v: f"We commit to a {v}% availability SLA for {e}.",
            lambda e, v: f"Per the contract, {e} must stay up {v}% of the month.",
        ],
        "questions": [
            lambda e: f"What availability target was agreed for {e}?",
            lambda e: f"How reliable are we obliged to keep {e}?",
        ],
    },
    "oncall": {
        "values": "Basalt Quartz Garnet Obsidian Jasper Onyx Topaz Pyrite Agate Beryl Flint Mica".split(),
        "phrases": [
            lambda e, v: f"{up(e)} is covered by the {v} on-call rotation.",
            lambda e, v: f"Pager duty for {e} (rotation: {v}) changes hands weekly.",
            lambda e, v: f"When {e} alerts at night, the {v} rotation picks it up.",
        ],
        "questions": [
            lambda e: f"Who gets woken up if {e} breaks after hours?",
            lambda e: f"Which pager schedule handles {e}?",
        ],
    },
    "alert_p99": {
        "values": [str(v) for v in (340, 275, 410, 520, 615, 180, 730, 845, 290, 960, 1250, 385)],
        "phrases": [
            lambda e, v: f"An alert fires when {e}'s p99 latency goes above {v} ms.",
            lambda e, v: f"We page on {e} once p99 crosses {v} milliseconds.",
            lambda e, v: f"The latency alarm for {e} is set at {v} ms (p99).",
        ],
        "questions": [
            lambda e: f"At what response time does monitoring of {e} start complaining?",
            lambda e: f"How slow may {e} get before someone is notified?",
        ],
    },
    "backup": {
        "values": [
            "every 4 hours",
            "hourly",
            "every 15 minutes",
            "nightly",
            "every 6 hours",
            "twice a day",
            "weekly",
            "every 30 minutes",
            "every 2 hours",
            "every 12 hours",
            "every 3 days",
        ],
        "phrases": [
            lambda e, v: f"{up(e)} is backed up {v}.",
            lambda e, v: f"Snapshots of {e} are taken {v}.",
            lambda e, v: f"For {e}, the backup job runs {v}.",
        ],
        "questions": [
            lambda e: f"How frequently is a copy of {e} saved?",
            lambda e: f"How often does {e} get a restore point?",
        ],
    },
    "pinned_version": {
        "values": [
            "1.19.4",
            "3.7.2",
            "0.42.1",
            "2.31.0",
            "5.0.3",
            "4.12.7",
            "1.8.11",
            "6.2.5",
            "0.9.14",
            "2.4.17",
            "7.1.9",
            "3.3.8",
            "8.0.2",
        ],
        "phrases": [
            lambda e, v: f"{up(e)} has its version pinned at {v}.",
            lambda e, v: f"We hold {e} at {v} until the next upgrade window.",
            lambda e, v: f"The deploy manifest locks {e} to release {v}.",
        ],
        "questions": [
            lambda e: f"Which release of {e} are we stuck on for now?",
            lambda e: f"What build number is {e} frozen at?",
        ],
    },
    "maint_cron": {
        "values": [
            "0 3 * * 0",
            "30 2 * * 1",
            "15 4 * * 2",
            "45 1 * * 3",
            "0 5 * * 4",
            "20 3 * * 5",
            "10 0 * * 6",
            "50 2 * * 0",
            "5 4 1 * *",
            "40 1 15 * *",
            "25 5 * * 1",
        ],
        "phrases": [
            lambda e, v: f"Maintenance on {e} runs on the cron schedule `{v}`.",
            lambda e, v: f"{up(e)}'s maintenance window is `{v}` (cron, UTC).",
            lambda e, v: f"In UTC, housekeeping for {e} fires at `{v}`.",
        ],
        "questions": [
            lambda e: f"When does upkeep of {e} happen?",
            lambda e: f"What timetable does the downtime slot of {e} follow?",
        ],
    },
    "slack": {
        "values": [
            "#ember-ops",
            "#drift-alerts",
            "#kitewing-dev",
            "#lantern-sre",
            "#moss-help",
            "#pylon-infra",
            "#quill-data",
            "#rivet-oncall",
            "#saffron-ml",
            "#thistle-mobile",
            "#umber-db",
            "#vesper-platform",
            "#wicket-api",
            "#yarrow-pay",
        ],
        "phrases": [
            lambda e, v: f"Alerts about {e} are posted to {v}.",
            lambda e, v: f"{v} is the Slack channel for {e}.",
            lambda e, v: f"Discussion of {e} happens in {v}.",
        ],
        "questions": [
            lambda e: f"Where on Slack do people talk about {e}?",
            lambda e: f"Which chat room should I join to follow {e}?",
        ],
    },
}


# -- events --------------------------------------------------------------------------------------

EVENTS: dict[str, dict] = {
    "deploys": {
        "names": ["2026-03-04", "2026-03-05", "2026-03-11", "2026-03-12"],
        "what": [
            "tollgate-api was deployed with the new plate parser and rolled back an hour later",
            "the gateway deploy stalled because one node kept an old image",
            "we shipped the refund screen to ten percent of users",
            "the search deploy went out without the feature toggle switched on",
        ],
        "phrases": [lambda n, a: f"On {n}, {a}.", lambda n, a: f"{n}: {a}."],
        "questions": [
            lambda n: f"What happened in production on {n}?",
            lambda n: f"What went out or went wrong on {n}?",
        ],
    },
    "postmortems": {
        "names": ["PM-88", "PM-89", "PM-93", "PM-97"],
        "what": [
            "blamed a connection leak in the payouts worker",
            "found that the runbook skipped the cache warm-up",
            "traced the outage to an expired service-account key",
            "concluded that a retry storm overloaded the ledger",
        ],
        "phrases": [
            lambda n, a: f"Postmortem {n} {a}.",
            lambda n, a: f"The write-up for {n} {a}.",
        ],
        "questions": [lambda n: f"What was the finding of {n}?"],
    },
    "pages": {
        "names": ["page 4412", "page 4413", "page 4419", "page 4425"],
        "what": [
            "woke Zinaida at 03:10 because the replica lag passed ten minutes",
            "fired when the certificate on the partner endpoint was a day from expiry",
            "was a false alarm caused by a synthetic check hitting a retired URL",
            "went off after the queue depth of settlements passed forty thousand",
        ],
        "phrases": [
            lambda n, a: f"{n[:1].upper() + n[1:]} {a}.",
            lambda n, a: f"Pager {n[5:]} {a}.",
        ],
        "questions": [lambda n: f"Why did {n} go off?", lambda n: f"What was behind {n}?"],
    },
    "migrations": {
        "names": ["Flyway V57", "Flyway V58", "Flyway V61", "Flyway V64"],
        "what": [
            "partitions the ledger_entries table by month",
            "adds a NOT NULL constraint on customers.country_code",
            "moves refund reasons into a lookup table",
            "drops the unused column invoices.fax_number",
        ],
        "phrases": [
            lambda n, a: f"{n} {a}.",
            lambda n, a: f"The script {n} {a}.",
        ],
        "questions": [lambda n: f"What does {n} do to the schema?"],
    },
    "experiments": {
        "names": ["EXP-310", "EXP-311", "EXP-316", "EXP-322"],
        "what": [
            "showed that a one-page checkout lifts conversion by 2.1 %",
            "found no difference between green and blue pay buttons",
            "was stopped early because the variant doubled support tickets",
            "showed that showing delivery dates cuts cart abandonment",
        ],
        "phrases": [
            lambda n, a: f"A/B test {n} {a}.",
            lambda n, a: f"The experiment {n} {a}.",
        ],
        "questions": [lambda n: f"What was the outcome of {n}?"],
    },
    "reviews": {
        "names": ["2026-W11", "2026-W12", "2026-W14"],
        "what": [
            "approved two more database nodes for the spring peak",
            "postponed the move to ARM instances",
            "asked for a load test before the marketing campaign",
        ],
        "phrases": [
            lambda n, a: f"The {n} capacity review {a}.",
            lambda n, a: f"In week {n} the capacity review {a}.",
        ],
        "questions": [lambda n: f"What did the capacity meeting of {n} decide?"],
    },
}


# -- people --------------------------------------------------------------------------------------

PEOPLE = [
    "Zinaida Dlamini",
    "Teodor Vasquez",
    "Ifeoma Lindqvist",
    "Anselm Okonkwo",
    "Brigid Nakamura",
    "Casimir Mbeki",
    "Yusra Halvorsen",
    "Leandro Kowalczyk",
]
PERSON_ATTRS: dict[str, dict] = {
    "timezone": {
        "values": [
            "UTC-3",
            "UTC+5:30",
            "UTC+9",
            "UTC-7",
            "UTC+2",
            "UTC+8",
            "UTC-5",
            "UTC+12",
        ],
        "phrases": [
            lambda p, v: f"{p} works on {v} time.",
            lambda p, v: f"{p}'s clock is set to {v}.",
            lambda p, v: f"Meetings with {p} have to fit {v}.",
        ],
        "questions": [lambda p: f"Which time zone is {p} in?"],
    },
    "shell": {
        "values": ["fish", "nushell", "zsh", "xonsh", "tcsh", "PowerShell", "elvish", "ksh"],
        "phrases": [
            lambda p, v: f"{p}'s terminal runs {v}.",
            lambda p, v: f"On every machine, {p} types commands into {v}.",
        ],
        "questions": [lambda p: f"What command-line interpreter does {p} prefer?"],
    },
    "layout": {
        "values": [
            "Dvorak",
            "Colemak",
            "QWERTZ",
            "AZERTY",
            "Workman",
            "Colemak-DH",
            "Neo2",
            "BÉPO",
        ],
        "phrases": [
            lambda p, v: f"{p} types on a {v} keyboard layout.",
            lambda p, v: f"The keys on {p}'s keyboard are arranged {v}.",
        ],
        "questions": [lambda p: f"Which key arrangement does {p} use?"],
    },
    "allergy": {
        "values": [
            "shellfish",
            "peanuts",
            "sesame",
            "kiwi fruit",
            "birch pollen",
            "lactose",
            "hazelnuts",
            "mustard",
        ],
        "phrases": [
            lambda p, v: f"{p} is allergic to {v}.",
            lambda p, v: f"Team lunches must avoid {v} because of {p}.",
        ],
        "questions": [lambda p: f"What food or substance must be kept away from {p}?"],
    },
    "adopted": {
        "values": [
            "a rescue ferret",
            "an axolotl",
            "a three-legged lurcher",
            "two hedgehogs",
            "a retired racing pigeon",
            "a chinchilla",
            "a bearded dragon",
            "a deaf Dalmatian",
        ],
        "phrases": [
            lambda p, v: f"{p} adopted {v}.",
            lambda p, v: f"Last spring {p} adopted {v} from a shelter.",
        ],
        "questions": [lambda p: f"Which animal did {p} take in?"],
    },
    "bought": {
        "values": [
            "a cargo bike",
            "a 3D printer",
            "a sailing dinghy",
            "a vintage synthesizer",
            "an espresso machine",
            "a telescope",
            "a kiln",
            "a camper van",
        ],
        "phrases": [
            lambda p, v: f"{p} bought {v}.",
            lambda p, v: f"{p} finally bought {v} with the bonus.",
        ],
        "questions": [lambda p: f"What big purchase did {p} make?"],
    },
    "joined": {
        "values": [
            "the accessibility guild",
            "the chess club",
            "the incident commander pool",
            "the hiring panel",
            "the green-office committee",
            "the API design review board",
            "the choir",
            "the security champions group",
        ],
        "phrases": [
            lambda p, v: f"{p} joined {v}.",
            lambda p, v: f"{p} has joined {v} this quarter.",
        ],
        "questions": [lambda p: f"Which group did {p} become a member of?"],
    },
    "started": {
        "values": [
            "a pottery course",
            "evening classes in Icelandic",
            "training for a marathon",
            "a part-time MBA",
            "learning the accordion",
            "a podcast about compilers",
            "volunteering at a food bank",
            "a bonsai collection",
        ],
        "phrases": [
            lambda p, v: f"{p} started {v}.",
            lambda p, v: f"A few weeks ago {p} started {v}.",
        ],
        "questions": [lambda p: f"What new pastime has {p} taken up?"],
    },
}


# -- mixed ---------------------------------------------------------------------------------------

MIXED_PROJECTS = {
    "tollgate": [
        "plaza-sync",
        "the TOLLGATE_REDIS_URL cache",
        "tolls_2025_archive",
        "the nightly-plate-reconcile cron job",
        "the anpr-v3 model",
        "the anpr-v4 model",
    ],
    "fernly": [
        "the fernly-android backend",
        "the fernly-ios backend",
        "watering_reminders",
        "the FERNLY_PUSH_KEY relay",
        "api.fernly.app/v2",
        "the plant-id-v12 model",
    ],
    "quaylog": [
        "quay-ingest.prod.internal",
        "quay-ingest.stage.internal",
        "container_moves",
        "the customs-export job",
        "the /data/quaylog/manifests share",
        "the eta-forecaster model",
    ],
}
MIXED_ATTRS = ["cache_ttl", "max_conns", "oncall", "pinned_version", "backup"]
# How an attribute is named and how its value reads inside an update sentence.
NOUN = {
    "cache_ttl": ("the cache TTL", lambda v: f"{v} seconds"),
    "max_conns": ("the connection cap", lambda v: v),
    "oncall": ("the on-call rotation", lambda v: v),
    "pinned_version": ("the pinned version", lambda v: v),
    "backup": ("the backup schedule", lambda v: v),
}
Update = Callable[[str, str, str, str], str]  # (entity, noun, old, new) -> text
# Real-update wordings; each is used in turn, so every one of them occurs.
UPDATES: list[Update] = [
    lambda e, a, o, n: f"{up(a)} of {e} used to be {o}; it is {n} today.",
    lambda e, a, o, n: f"{up(a)} of {e} was bumped from {o} to {n}.",
    lambda e, a, o, n: f"As of today, {a} of {e} is {n}.",
    lambda e, a, o, n: f"{up(e)} has been moved to {n} for {a}.",
    lambda e, a, o, n: f"We replaced {o} with {n} as {a} of {e}.",
    lambda e, a, o, n: f"{up(a)} of {e} is {n} instead of {o}.",
    lambda e, a, o, n: f"{up(e)} switched {a} over to {n}.",
    lambda e, a, o, n: f"No more {o} for {e}: {a} is {n}.",
    lambda e, a, o, n: f"{up(a)} of {e} changed from {o} to {n}.",
    lambda e, a, o, n: f"{up(a)} of {e} is now {n}.",
    lambda e, a, o, n: f"We cut {a} of {e} to {n}.",
    lambda e, a, o, n: f"Last night the platform team set {e} to {n} ({a}).",
    lambda e, a, o, n: f"{up(a)} of {e} is {n} (it was {o}).",
    lambda e, a, o, n: f"After the review, {e} got {n} as {a}, not {o}.",
]
RESTATE: dict[str, Callable[[str, str], str]] = {
    "cache_ttl": lambda e, v: f"Anything {e} caches goes stale {v} seconds later.",
    "max_conns": lambda e, v: f"Beyond {v} simultaneous clients, {e} refuses new ones.",
    "oncall": lambda e, v: f"Night-time problems with {e} land on the {v} people.",
    "pinned_version": lambda e, v: f"Nobody upgrades {e} past {v} for the moment.",
    "backup": lambda e, v: f"A fresh restore point of {e} exists {v}.",
}
MIXED_EVENTS = {
    "tollgate": [
        "On 2026-02-17, plaza-sync lost four hours of gantry reads.",
        "Postmortem PM-101 blamed a clock skew on the gantry readers.",
        "Page 5101 fired because the toll price feed stopped updating.",
        "A/B test EXP-402 showed that SMS receipts reduce disputes.",
        "On 2026-02-24, the tolls dashboard was shown to the transport ministry.",
        "Flyway V12 adds a vehicle_class column to toll_events.",
        "Page 5108 fired because the ANPR cameras' buffer host ran out of disk.",
        "Postmortem PM-104 found that a retry loop double-billed some drivers.",
        "The 2026-W08 capacity review approved a second Redis shard.",
    ],
    "fernly": [
        "On 2026-01-20, the fernly-ios backend sent every reminder twice.",
        "A/B test EXP-515 found that photo tips beat text tips for retention.",
        "Postmortem PM-211 traced missing pushes to a revoked APNs key.",
        "Page 6203 went off when plant identification answers took 9 seconds.",
        "On 2026-01-28, the Android beta reached five thousand testers.",
        "Flyway V33 splits watering_reminders by plant species.",
        "A/B test EXP-519 was stopped because dark mode hurt onboarding.",
        "Page 6210 turned out to be a monitoring probe with a bad token.",
        "The 2026-W05 capacity review delayed the GPU node purchase.",
    ],
    "quaylog": [
        "On 2026-04-02, quay-ingest.stage.internal replayed a week of crane events.",
        "Postmortem PM-312 found that customs files were uploaded with the wrong encoding.",
        "Page 7301 fired when container_moves stopped receiving rows for twenty minutes.",
        "Flyway V88 adds a berth_id foreign key to container_moves.",
        "A/B test EXP-620 showed that pre-filled customs forms save dispatchers six minutes.",
        "On 2026-04-09, the manifests share was remounted read-only by mistake.",
        "Page 7305 was a false alarm from a probe against the retired FTP host.",
        "Postmortem PM-318 blamed a time zone bug for late ETA predictions.",
        "The 2026-W15 capacity review asked for a second ingest host.",
    ],
}
EVENT_Q = {
    "tollgate": [
        "What went wrong with the gantry data in mid-February?",
        "What root cause did PM-101 identify?",
        "Why did page 5101 happen?",
        "What did experiment EXP-402 demonstrate?",
        "Who saw the tolls dashboard in late February?",
        "Which column does Flyway V12 introduce?",
        "Why did page 5108 go off?",
        "What did the PM-104 write-up uncover?",
        "What did the week-8 capacity meeting approve?",
    ],
    "fernly": [
        "What bug hit iPhone users' reminders on 2026-01-20?",
        "Which kind of tip won in EXP-515?",
        "What caused the lost notifications examined in PM-211?",
        "What triggered page 6203?",
        "What milestone did the Android beta hit at the end of January?",
        "How does Flyway V33 reorganise the reminder data?",
        "Why was EXP-519 halted?",
        "What was behind page 6210?",
        "What did the week-5 capacity meeting postpone?",
    ],
    "quaylog": [
        "What did the staging ingest host do on 2026-04-02?",
        "What went wrong with the customs uploads according to PM-312?",
        "What triggered page 7301?",
        "Which constraint does Flyway V88 introduce?",
        "How much time did EXP-620 save dispatchers?",
        "What accident happened to the manifests storage on 2026-04-09?",
        "Why was page 7305 not a real problem?",
        "Why were ETA predictions late, per PM-318?",
        "What did the week-15 capacity meeting request?",
    ],
}


def mixed_rows(project: str, entities: list[str]) -> list[dict]:
    facts = hb.fact_rows(SPLIT, ATTRS, entities, MIXED_ATTRS, f"mixed/{project}")
    events = [
        {"kind": "event", "entity": text.split(",")[0], "attribute": "event", "text": text}
        | {"questions": [q]}
        for text, q in zip(MIXED_EVENTS[project], EVENT_Q[project], strict=True)
    ]
    return hb.mixed_rows(
        SPLIT,
        project,
        MIXED_PROJECTS,
        facts,
        events,
        ATTRS,
        NOUN,
        UPDATES,
        RESTATE,
        restated=5,
        wrap=True,
    )


# -- hand-written update pairs (memory_updates.jsonl's schema) -----------------------------------

# project -> (about, context facts as (topic, text)); items below name their project.
PROJECTS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "kelpie": (
        "seaweed farm sensors: buoy-gateway (Rust), harvest-planner (Python), Grafana",
        [
            ("lang", "buoy-gateway is written in Rust and talks LoRaWAN to the buoys."),
            ("db", "Sensor readings land in InfluxDB, one bucket per farm site."),
            ("people", "Aroha Tane looks after the buoy firmware."),
            ("dash", "The salinity dashboards live in Grafana under the Kelpie folder."),
            ("ci", "Kelpie's firmware images are built by a Buildkite pipeline."),
            ("alerts", "Storm warnings from the met office are pulled every ten minutes."),
        ],
    ),
    "hopvault": (
        "brewery inventory: stock-api (Ruby on Rails), label-printer service, Shopify sync",
        [
            ("lang", "stock-api is a Rails 7 app that tracks kegs, cans and grain."),
            ("print", "The label-printer service drives two Zebra printers in the canning room."),
            ("shop", "Online orders come in from Shopify through a webhook."),
            ("people", "Mateus Rocha is the only developer on the label printer code."),
            ("db", "Hopvault stores stock levels in MySQL."),
            ("audit", "Every stock change writes a row to the stock_movements table."),
        ],
    ),
    "tramline": (
        "transit ticketing: validator firmware, fare-engine (Go), nightly reporting",
        [
            ("lang", "fare-engine is written in Go and prices every tap."),
            ("hw", "Validators on the trams run a Yocto Linux image."),
            ("report", "Ridership reports are emailed to the city every Monday."),
            ("people", "Ngozi Eze owns the validator firmware."),
            ("pay", "Contactless taps are authorised through Adyen."),
            ("sync", "Validators upload their tap logs over LTE when a tram reaches the depot."),
        ],
    ),
    "pawprint": (
        "vet clinic records: records-api (Java/Spring), fax-bridge, Android tablet app",
        [
            ("lang", "records-api is a Spring Boot service on Java 21."),
            ("fax", "fax-bridge turns incoming lab faxes into PDFs attached to the patient."),
            ("app", "Vets fill in exam notes on Samsung tablets running the Pawprint app."),
            ("people", "Dr. Imani Sow is the clinical adviser for the product."),
            ("auth", "Clinic staff log in with a four-digit PIN on shared tablets."),
            ("db", "Patient records are kept in PostgreSQL with row-level security per clinic."),
        ],
    ),
    "mosaicly": (
        "school timetable solver: solver (OCaml), web editor (Vue), PDF export",
        [
            ("lang", "The timetable solver is written in OCaml."),
            ("web", "Teachers edit timetables in a Vue single-page app."),
            ("export", "Timetables are exported to PDF with Typst."),
            ("people", "Halima Yusuf writes the constraint rules with the schools."),
            ("sales", "Mosaicly is sold per school, billed once a year."),
            ("data", "Each school's rooms and teachers are imported from a CSV upload."),
        ],
    ),
    "skyparcel": (
        "drone parcel delivery: flight-planner (C++), dispatch-api (Kotlin), ops console",
        [
            ("lang", "flight-planner is C++ and runs on the ground station."),
            ("api", "dispatch-api is a Kotlin service that assigns parcels to drones."),
            ("people", "Soren Aalto is the chief pilot and signs off every route."),
            ("maps", "No-fly zones come from the aviation authority's feed every morning."),
            ("hw", "Each drone carries an LTE modem and a backup radio link."),
            ("console", "The ops console shows every drone's battery on a map."),
        ],
    ),
    "lumengrid": (
        "solar farm monitoring: inverter-poller, forecast job, TimescaleDB",
        [
            ("lang", "inverter-poller is a Python asyncio service speaking Modbus."),
            ("db", "Power readings are stored in TimescaleDB hypertables."),
            ("forecast", "The yield forecast uses a gradient-boosted model retrained weekly."),
            ("people", "Wiremu Ngata runs the site visits and panel cleaning."),
            ("alerts", "Inverter faults raise an Opsgenie alert."),
            ("grid", "Curtailment orders from the grid operator arrive by API."),
        ],
    ),
    "helpnest": (
        "helpdesk for small shops: inbox-api (Elixir), agent console (Svelte), sla-timer worker",
        [
            ("lang", "inbox-api is written in Elixir on Phoenix."),
            ("web", "Agents answer tickets in a Svelte console."),
            ("mail", "Incoming email is parsed by Postmark's inbound webhook."),
            ("people", "Greta Lindahl leads customer support and triages bugs."),
            ("timer", "sla-timer checks every open ticket against its deadline each minute."),
            ("search", "Ticket search runs on Meilisearch."),
        ],
    ),
}

# (project, topic, style, old, new, question); topic's first dotted part keeps context apart.
UPDATE_ITEMS: list[tuple[str, str, str, str, str, str]] = [
    (
        "kelpie",
        "db.retention",
        "cue",
        "Raw buoy readings are kept for 90 days in InfluxDB.",
        "We shortened raw buoy retention: readings are now dropped after 45 days.",
        "How long do we keep the unprocessed sensor values?",
    ),
    (
        "kelpie",
        "people.planner",
        "plain",
        "Lior Ben-Ami maintains harvest-planner.",
        "harvest-planner is maintained by Kiri Walker.",
        "Who takes care of the harvest planning code?",
    ),
    (
        "kelpie",
        "radio",
        "value_only",
        "The buoys report over LoRaWAN on the EU868 band.",
        "Buoy radio band: AS923.",
        "Which frequency plan do the buoys transmit on?",
    ),
    (
        "kelpie",
        "poll",
        "cue",
        "buoy-gateway polls each buoy every 5 minutes.",
        "buoy-gateway went from a 5-minute to a 2-minute poll after the algae bloom.",
        "How often is each buoy queried?",
    ),
    (
        "kelpie",
        "host",
        "plain",
        "harvest-planner runs on a Hetzner VM in Falkenstein.",
        "harvest-planner runs on a Fly.io machine in Sydney.",
        "Where is the harvest planning service hosted?",
    ),
    (
        "hopvault",
        "ci",
        "cue",
        "stock-api's tests run on CircleCI.",
        "stock-api's tests left CircleCI; they run on GitLab CI these days.",
        "Where does the stock API's test suite execute?",
    ),
    (
        "hopvault",
        "print.dpi",
        "value_only",
        "Can labels are printed at 203 dpi.",
        "Can label resolution: 300 dpi.",
        "At what resolution do can labels come out?",
    ),
    (
        "hopvault",
        "shop.sync",
        "plain",
        "Stock is pushed to Shopify every 20 minutes.",
        "Stock levels are pushed to Shopify every 3 minutes.",
        "How often does the shop get new inventory counts?",
    ),
    (
        "hopvault",
        "ruby",
        "cue",
        "stock-api runs on Ruby 3.1.",
        "We upgraded stock-api from Ruby 3.1 to Ruby 3.3.",
        "Which Ruby version does the inventory API use?",
    ),
    (
        "hopvault",
        "people.api",
        "cue",
        "Dana Okafor is the owner of stock-api.",
        "Ownership of stock-api passed from Dana Okafor to Mateus Rocha.",
        "Who is in charge of the inventory API?",
    ),
    (
        "tramline",
        "fare.cap",
        "plain",
        "The daily fare cap is 7.50 euros.",
        "The daily fare cap is 8.20 euros.",
        "What is the most a rider pays in one day?",
    ),
    (
        "tramline",
        "report.day",
        "cue",
        "The revenue report for the city is produced on Fridays.",
        "The city's revenue report moved from Fridays to Wednesdays.",
        "On which weekday is the city revenue report made?",
    ),
    (
        "tramline",
        "hw.image",
        "value_only",
        "Validators run firmware build 2025.11.",
        "Validator firmware: build 2026.02.",
        "What software release do the tram validators carry?",
    ),
    (
        "tramline",
        "lang.engine",
        "cue",
        "fare-engine stores tap events in Cassandra.",
        "fare-engine no longer uses Cassandra; tap events go to ScyllaDB.",
        "Which database holds the tap events of the fare engine?",
    ),
    (
        "tramline",
        "pay.timeout",
        "plain",
        "Card authorisation at the validator times out after 900 ms.",
        "Card authorisation at the validator gives up after 650 ms.",
        "How long does a validator wait for a card approval?",
    ),
    (
        "pawprint",
        "fax.ocr",
        "cue",
        "fax-bridge reads lab results with Tesseract.",
        "fax-bridge replaced Tesseract with AWS Textract for lab results.",
        "What does the fax bridge use to read lab reports?",
    ),
    (
        "pawprint",
        "app.minsdk",
        "value_only",
        "The tablet app supports Android 10 and newer.",
        "Minimum Android for the tablet app: 12.",
        "What is the oldest Android release the clinic app runs on?",
    ),
    (
        "pawprint",
        "auth.pin",
        "cue",
        "Tablet sessions lock after 5 minutes of inactivity.",
        "As of this week, idle tablet sessions lock after 2 minutes instead of 5.",
        "How quickly does an unattended tablet lock itself?",
    ),
    (
        "pawprint",
        "db.backup",
        "plain",
        "Patient records are backed up to a bucket in Frankfurt.",
        "Patient records are backed up to a bucket in Zurich.",
        "Where do the backups of patient data go?",
    ),
    (
        "pawprint",
        "people.support",
        "value_only",
        "Tier-2 support for clinics is handled by Elif Demir.",
        "Clinic tier-2 support: Jonah Whitfield.",
        "Who answers clinics' escalated support questions?",
    ),
    (
        "mosaicly",
        "solver.time",
        "cue",
        "The solver is given 40 minutes per timetable.",
        "We cut the solver's time budget per timetable to 25 minutes.",
        "How long may the solver work on one timetable?",
    ),
    (
        "mosaicly",
        "export.font",
        "plain",
        "Timetable PDFs are set in Inter.",
        "Timetable PDFs are set in Source Sans 3.",
        "Which typeface do exported timetables use?",
    ),
    (
        "mosaicly",
        "web.host",
        "cue",
        "The Vue editor is hosted on Netlify.",
        "The timetable editor switched over to Cloudflare Pages.",
        "Where is the browser editor deployed?",
    ),
    (
        "mosaicly",
        "sales.price",
        "value_only",
        "A school licence costs 1,200 euros a year.",
        "School licence: 1,450 euros a year.",
        "How much does one school pay per year?",
    ),
    (
        "mosaicly",
        "data.import",
        "cue",
        "Schools upload their rooms and teachers as CSV.",
        "Schools no longer upload CSV files; rooms and teachers are synced from the school's MIS.",
        "How do a school's rooms and staff get into Mosaicly?",
    ),
    (
        "skyparcel",
        "api.port",
        "plain",
        "dispatch-api is served from port 7310.",
        "dispatch-api is served from port 7420.",
        "Which port does the dispatch service answer on?",
    ),
    (
        "skyparcel",
        "hw.battery",
        "cue",
        "Drones return to base when the battery reaches 30 %.",
        "The return-to-base threshold was raised from 30 % to 35 % battery.",
        "At what battery level does a drone fly home?",
    ),
    (
        "skyparcel",
        "maps.source",
        "value_only",
        "Base maps come from Mapbox.",
        "Base map provider: MapTiler.",
        "Where do our map tiles come from?",
    ),
    (
        "skyparcel",
        "planner.build",
        "cue",
        "flight-planner is built with CMake and GCC 12.",
        "flight-planner is built with Bazel and Clang 17 now.",
        "How is the flight planner compiled?",
    ),
    (
        "skyparcel",
        "ops.shift",
        "plain",
        "The ops console is staffed from 07:00 to 19:00.",
        "The ops console is staffed from 06:00 to 22:00.",
        "During which hours is someone watching the operations console?",
    ),
    (
        "lumengrid",
        "poll.interval",
        "cue",
        "inverter-poller reads every inverter every 60 seconds.",
        "inverter-poller used to read inverters every 60 seconds; it is every 15 seconds today.",
        "How often are the inverters sampled?",
    ),
    (
        "lumengrid",
        "db.chunk",
        "value_only",
        "Hypertable chunks cover 7 days.",
        "Chunk interval: 1 day.",
        "What time span does one TimescaleDB chunk hold?",
    ),
    (
        "lumengrid",
        "forecast.day",
        "plain",
        "The yield model is retrained every Sunday.",
        "The yield model is retrained every Tuesday.",
        "On which day is the forecasting model refreshed?",
    ),
    (
        "lumengrid",
        "alerts.tool",
        "cue",
        "Inverter faults page through Opsgenie.",
        "Inverter faults page through PagerDuty instead of Opsgenie.",
        "What paging service do inverter faults go through?",
    ),
    (
        "lumengrid",
        "people.site",
        "cue",
        "Site visits are scheduled by Wiremu Ngata.",
        "Site visits are scheduled by Ana Folau since Wiremu went on leave.",
        "Who books the visits to the solar sites?",
    ),
    (
        "helpnest",
        "mail.provider",
        "cue",
        "Outgoing replies are sent through Mailgun.",
        "Outgoing replies have been moved to Amazon SES.",
        "Which service delivers our email replies to customers?",
    ),
    (
        "helpnest",
        "timer.sla",
        "plain",
        "The first-response SLA for paid plans is 8 hours.",
        "The first-response SLA for paid plans is 4 hours.",
        "How fast must a paying customer get a first answer?",
    ),
    (
        "helpnest",
        "search.version",
        "value_only",
        "Meilisearch runs version 1.6.",
        "Meilisearch version: 1.11.",
        "Which release of the search engine is deployed?",
    ),
    (
        "helpnest",
        "web.build",
        "cue",
        "The agent console is bundled with Rollup.",
        "No more Rollup: the agent console is built by Vite.",
        "What bundles the Svelte console?",
    ),
    (
        "helpnest",
        "lang.otp",
        "cue",
        "inbox-api runs on Erlang/OTP 25.",
        "inbox-api was bumped from OTP 25 to OTP 27.",
        "Which OTP release does the inbox API use?",
    ),
    (
        "tramline",
        "sync.window",
        "cue",
        "Depot uploads of tap logs start at 01:00.",
        "Tap log uploads at the depot changed from 01:00 to 02:30.",
        "When do the trams start sending their tap logs at night?",
    ),
    (
        "kelpie",
        "dash.refresh",
        "value_only",
        "The salinity dashboard refreshes every 30 seconds.",
        "Salinity dashboard refresh: 10 seconds.",
        "How often does the salinity panel reload?",
    ),
]

# (project, topic, old, new, question about old, question about new): both stay true.
NON_UPDATE_ITEMS: list[tuple[str, str, str, str, str, str]] = [
    (
        "kelpie",
        "retention",
        "Raw buoy readings are kept for 90 days.",
        "Hourly aggregates of buoy readings are kept for five years.",
        "How long do unaggregated sensor values stay around?",
        "How long are the rolled-up hourly figures stored?",
    ),
    (
        "kelpie",
        "people",
        "Aroha Tane looks after the buoy firmware.",
        "Kiri Walker looks after the harvest planner.",
        "Who handles the code running on the buoys?",
        "Who maintains the harvest planning service?",
    ),
    (
        "kelpie",
        "poll",
        "buoy-gateway polls the north-bay buoys every 5 minutes.",
        "buoy-gateway polls the south-bay buoys every 10 minutes.",
        "What is the query interval for buoys in the northern bay?",
        "How often are the southern bay buoys read?",
    ),
    (
        "kelpie",
        "site",
        "The Tasman farm site has 42 buoys.",
        "The Hauraki farm site has 27 buoys.",
        "How many buoys float at the Tasman site?",
        "What is the buoy count in Hauraki?",
    ),
    (
        "kelpie",
        "alerts",
        "Low battery on a buoy raises a Slack message.",
        "A buoy that goes silent for an hour raises a phone call.",
        "What happens when a buoy runs low on power?",
        "How are we told that a buoy stopped reporting?",
    ),
    (
        "hopvault",
        "print",
        "Can labels are printed at 300 dpi.",
        "Keg collar tags are printed at 203 dpi.",
        "What resolution are the can labels?",
        "At what dpi do the keg tags come out?",
    ),
    (
        "hopvault",
        "ruby",
        "stock-api runs on Ruby 3.3.",
        "The label-printer service runs on Python 3.12.",
        "Which Ruby does the inventory app use?",
        "What runtime does the printer service need?",
    ),
    (
        "hopvault",
        "sync",
        "Stock is pushed to Shopify every 3 minutes.",
        "Wholesale prices are pushed to the B2B portal once a day.",
        "How often does the web shop receive inventory counts?",
        "How often do trade customers see new wholesale prices?",
    ),
    (
        "hopvault",
        "people",
        "Mateus Rocha owns stock-api.",
        "Dana Okafor owns the Shopify integration.",
        "Who is responsible for the inventory API?",
        "Who looks after the online shop connection?",
    ),
    (
        "hopvault",
        "audit",
        "Stock changes are written to stock_movements.",
        "Price changes are written to price_history.",
        "Which table records inventory changes?",
        "Where are changes to prices logged?",
    ),
    (
        "tramline",
        "fare",
        "The daily fare cap is 8.20 euros.",
        "The weekly fare cap is 29 euros.",
        "What is the maximum charge for one day of riding?",
        "How much can a rider be charged at most in a week?",
    ),
    (
        "tramline",
        "report",
        "The revenue report for the city is produced on Wednesdays.",
        "The ridership report for the city is produced on Mondays.",
        "When is the money report for the city made?",
        "On which day do we prepare passenger counts for the city?",
    ),
    (
        "tramline",
        "timeout",
        "Card authorisation at the validator gives up after 650 ms.",
        "Validators give up on a depot upload after 20 minutes.",
        "How long may a card approval take at the door?",
        "How long does a tram try to send its logs before stopping?",
    ),
    (
        "tramline",
        "people",
        "Ngozi Eze owns the validator firmware.",
        "Piotr Lange owns fare-engine.",
        "Who is responsible for the software on the validators?",
        "Who looks after the fare pricing service?",
    ),
    (
        "tramline",
        "line",
        "Line 4 validators were replaced in January.",
        "Line 9 validators were replaced in March.",
        "When did line 4 get new validators?",
        "In which month were the validators of line 9 renewed?",
    ),
    (
        "pawprint",
        "auth",
        "Idle tablet sessions lock after 2 minutes.",
        "Desktop sessions at the reception lock after 15 minutes.",
        "How fast does an unused tablet lock?",
        "When does the front-desk computer log itself out?",
    ),
    (
        "pawprint",
        "app",
        "The tablet app needs Android 12 or newer.",
        "The owner app for pet parents needs iOS 16 or newer.",
        "What Android version do clinic tablets need?",
        "Which iPhone OS is required for the pet owners' app?",
    ),
    (
        "pawprint",
        "fax",
        "fax-bridge reads lab results with AWS Textract.",
        "fax-bridge sends referral letters out through Sinch.",
        "What does the fax bridge use to read lab reports?",
        "How are referral letters faxed out?",
    ),
    (
        "pawprint",
        "db",
        "Patient records are backed up to Zurich.",
        "X-ray images are backed up to Amsterdam.",
        "Where do patient-record backups go?",
        "Where are the radiographs copied for safety?",
    ),
    (
        "pawprint",
        "clinic",
        "The Riverside clinic opens at 8:00.",
        "The Hillcrest clinic opens at 9:30.",
        "When does Riverside start seeing patients?",
        "What time do the doors open at Hillcrest?",
    ),
    (
        "mosaicly",
        "solver",
        "The solver gets 25 minutes per timetable.",
        "The room-allocation pass gets 3 minutes per timetable.",
        "How long can the main solver work on a timetable?",
        "How much time is spent assigning rooms?",
    ),
    (
        "mosaicly",
        "export",
        "Timetable PDFs are set in Source Sans 3.",
        "Exam schedules are set in IBM Plex Serif.",
        "Which font is used for timetable PDFs?",
        "What typeface do exam schedules use?",
    ),
    (
        "mosaicly",
        "price",
        "A school licence costs 1,450 euros a year.",
        "A district licence costs 9,000 euros a year.",
        "What does a single school pay yearly?",
        "How much is the yearly price for a whole district?",
    ),
    (
        "mosaicly",
        "people",
        "Halima Yusuf writes the constraint rules with the schools.",
        "Jorge Ibarra writes the Vue editor.",
        "Who works out the scheduling constraints with schools?",
        "Who develops the browser editor?",
    ),
    (
        "mosaicly",
        "rules",
        "Teachers may have at most 6 lessons a day.",
        "Pupils may have at most 8 lessons a day.",
        "What is the daily lesson limit for staff?",
        "How many lessons can a student get in a day?",
    ),
    (
        "skyparcel",
        "port",
        "dispatch-api is served from port 7420.",
        "Telemetry ingest takes connections on port 7555.",
        "Which port does the dispatch service answer on?",
        "Where does the drone telemetry stream arrive, port-wise?",
    ),
    (
        "skyparcel",
        "battery",
        "Drones return to base at 35 % battery.",
        "Drones refuse to take off below 80 % battery.",
        "At what charge does a drone head home?",
        "What charge is needed before a drone may launch?",
    ),
    (
        "skyparcel",
        "drone",
        "Drone SP-14 carries parcels up to 2.5 kg.",
        "Drone SP-15 carries parcels up to 4 kg.",
        "How heavy a parcel can SP-14 lift?",
        "What is the payload limit of SP-15?",
    ),
    (
        "skyparcel",
        "people",
        "Soren Aalto signs off every route.",
        "Maja Petrovic maintains the drones' motors.",
        "Who approves the flight routes?",
        "Who does motor maintenance on the fleet?",
    ),
    (
        "skyparcel",
        "maps",
        "No-fly zones are refreshed every morning.",
        "Weather radar is refreshed every 5 minutes.",
        "How often is the restricted airspace list updated?",
        "How often do we pull new precipitation radar?",
    ),
    (
        "lumengrid",
        "poll",
        "inverter-poller reads inverters every 15 seconds.",
        "inverter-poller reads the weather station every 5 minutes.",
        "How often are the inverters sampled?",
        "How frequently is the on-site weather station read?",
    ),
    (
        "lumengrid",
        "site",
        "The Otaki site has 3,400 panels.",
        "The Levin site has 2,150 panels.",
        "How many panels are installed at Otaki?",
        "What is the panel count at Levin?",
    ),
    (
        "lumengrid",
        "forecast",
        "The yield model is retrained every Tuesday.",
        "The price model is retrained on the first day of each month.",
        "When is the energy yield model refreshed?",
        "How often is the electricity price model rebuilt?",
    ),
    (
        "lumengrid",
        "alerts",
        "Inverter faults page through PagerDuty.",
        "Fence intrusion alarms go to the security company by SMS.",
        "How are we notified of an inverter fault?",
        "Who hears about someone breaking through the fence?",
    ),
    (
        "lumengrid",
        "people",
        "Ana Folau schedules site visits.",
        "Wiremu Ngata does the panel cleaning.",
        "Who books the trips to the solar farms?",
        "Who washes the panels?",
    ),
    (
        "helpnest",
        "sla",
        "The first-response SLA for paid plans is 4 hours.",
        "The resolution SLA for paid plans is 3 days.",
        "How quickly must a paying customer get a first reply?",
        "Within what time must a paid customer's ticket be closed?",
    ),
    (
        "helpnest",
        "mail",
        "Outgoing replies are sent through Amazon SES.",
        "Incoming email is parsed by Postmark.",
        "Which service delivers our answers to customers?",
        "What handles the messages customers send us?",
    ),
    (
        "helpnest",
        "plan",
        "The Starter plan includes 2 agent seats.",
        "The Team plan includes 10 agent seats.",
        "How many agents can use the cheapest plan?",
        "How many seats does the Team tier come with?",
    ),
    (
        "helpnest",
        "people",
        "Greta Lindahl leads customer support.",
        "Tariq Benali leads the Elixir backend.",
        "Who runs the support team?",
        "Who heads development of the inbox API?",
    ),
    (
        "helpnest",
        "build",
        "The agent console is built by Vite.",
        "The inbox-api release is assembled with mix release.",
        "What bundles the Svelte console?",
        "How is a production build of the Elixir API packaged?",
    ),
    (
        "tramline",
        "pay",
        "Contactless taps are authorised through Adyen.",
        "Monthly passes bought online are charged through Mollie.",
        "Who authorises card taps on the trams?",
        "Which provider takes payment for passes bought on the website?",
    ),
    (
        "kelpie",
        "dash",
        "The salinity dashboard refreshes every 10 seconds.",
        "The harvest forecast dashboard refreshes every hour.",
        "How often does the salinity panel reload?",
        "How often is the harvest forecast view redrawn?",
    ),
]

# (project, topic, old, new, question): two sources disagree, no replacement cue.
CONTRADICTION_ITEMS: list[tuple[str, str, str, str, str]] = [
    (
        "kelpie",
        "site",
        "The site survey lists 42 buoys at the Tasman farm.",
        "The asset register counts 39 buoys at the Tasman farm.",
        "How many buoys are deployed at the Tasman site?",
    ),
    (
        "kelpie",
        "radio",
        "The hardware spec says the buoys use a 14 dBm transmit power.",
        "According to the firmware config, buoy transmit power is 20 dBm.",
        "At what power do the buoy radios transmit?",
    ),
    (
        "hopvault",
        "db",
        "The runbook says Hopvault's MySQL is version 8.0.",
        "The hosting panel shows Hopvault's database on MySQL 5.7.",
        "Which MySQL release does the brewery inventory use?",
    ),
    (
        "hopvault",
        "print",
        "Mateus says the canning room has two label printers.",
        "The equipment list shows three label printers in the canning room.",
        "How many label printers are in the canning room?",
    ),
    (
        "tramline",
        "fleet",
        "The operator's brochure says 64 trams carry validators.",
        "The device inventory lists validators on 71 trams.",
        "How many trams have validators on board?",
    ),
    (
        "tramline",
        "fare",
        "The city's tariff page gives the single fare as 2.40 euros.",
        "The fare-engine config prices a single ride at 2.60 euros.",
        "What does one single ride cost?",
    ),
    (
        "pawprint",
        "db",
        "The architecture doc says patient data is kept for 10 years.",
        "The privacy policy states that patient records are kept for 7 years.",
        "How long are patient records retained?",
    ),
    (
        "mosaicly",
        "sales",
        "The sales deck says 180 schools use Mosaicly.",
        "The billing system shows 164 schools with an active Mosaicly licence.",
        "How many schools are customers?",
    ),
    (
        "skyparcel",
        "hw",
        "The drone datasheet gives a range of 18 km.",
        "Flight logs show the drones' usable range is 14 km.",
        "How far can one of our drones fly?",
    ),
    (
        "lumengrid",
        "site",
        "The investor report says the Otaki site produces 4.1 MW at peak.",
        "The SCADA export shows Otaki peaking at 3.7 MW.",
        "What is the peak output of the Otaki farm?",
    ),
    (
        "helpnest",
        "plan",
        "The pricing page says the Team plan costs 49 euros a month.",
        "Stripe bills the Team plan at 59 euros a month.",
        "How much is the Team plan per month?",
    ),
    (
        "skyparcel",
        "people",
        "The org chart lists 6 licensed pilots.",
        "The aviation authority's register shows 8 licensed Skyparcel pilots.",
        "How many certified pilots do we have?",
    ),
]


# -- the files -----------------------------------------------------------------------------------


def build() -> dict[str, list[dict]]:
    people = hb.person_facts(SPLIT, PERSON_ATTRS, PEOPLE, list(PERSON_ATTRS), "people")
    items = (UPDATE_ITEMS, NON_UPDATE_ITEMS, CONTRADICTION_ITEMS)
    return hb.files(
        SPLIT,
        order(hb.fact_rows(SPLIT, ATTRS, ENTITIES, list(ATTRS), "parallel"), SPLIT, "par"),
        order(hb.event_rows(SPLIT, EVENTS, "events"), SPLIT, "ev"),
        order(people, SPLIT, "pp"),
        [(p, mixed_rows(p, c)) for p, c in MIXED_PROJECTS.items()],
        hb.pair_rows(SPLIT, "h3", PROJECTS, *items),
    )


def leaks() -> list[str]:
    """Entities, people and projects of heldout3 that occur in any other part's text."""
    names = [*ENTITIES, *PEOPLE, *PROJECTS, *MIXED_PROJECTS]
    names += [e for ents in MIXED_PROJECTS.values() for e in ents]
    names += [n for spec in EVENTS.values() for n in spec["names"]]
    names += [p.split(" ")[0] for p in PEOPLE]  # a first name alone is a shared name too
    return sorted(hb.name_leaks(SPLIT, names))


if __name__ == "__main__":
    sys.exit(hb.main(__doc__, SPLIT, build, leaks))


