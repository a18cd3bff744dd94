"""Generate the fourth held-out part (issue 27, item 7): `heldout4`, never read to tune.

    python bench/data/gen_heldout4.py           # (re)write the heldout4 files
    python bench/data/gen_heldout4.py --check   # exit 1 when a committed file is stale or
                                                # when heldout4 shares a name with another part

Written while the update detector was being tuned by someone who never saw these files, so the
tuning can be checked for generalisation. Nothing is taken from the other parts (tune /
heldout / heldout2 of gen_streams.py, heldout3 of gen_heldout3.py, memory_updates.jsonl):
other projects (a logistics platform, a game studio backend, a hospital scheduling system, a
data-engineering team, a mobile app, ...), other entities, attributes, sentence templates,
event kinds, people and update wordings. Deterministic: no randomness but a sha256 of fixed
strings (gen_streams' helpers).

Files, in gen_streams' line format (id, set, split="heldout4", scope, seq, kind, entity,
attribute, text, questions, replaces, restates):

- `streams_parallel_heldout4.jsonl`: 14 entities x 9 attributes, every fact true at once.
  Near-twin identifiers (orders-api-v2 / orders-api-v3, the ORDERS_DB_URL pool / the
  ORDERS_DB_URL_RO pool, the eu-west-1 / eu-west-2 dispatch cluster, matchmaker-prod /
  matchmaker-staging, dag_ingest_claims_daily / dag_ingest_claims_hourly) sharing attribute
  words ("times out after", "listens on port", "is owned by", "There is a cap of N ... on X",
  "X is capped at N"), subjects late in the sentence or in a prepositional phrase ("For X,
  retries are ..."), per-environment leads ("On the production cluster, ...").
- `streams_events_heldout4.jsonl`: CI builds, incidents, sprint plannings, mobile releases,
  tickets, Liquibase changesets, on-call weeks: many of one template with another number/date.
- `streams_people_heldout4.jsonl`: 8 people x 8 attributes (role, city, time zone, team, pet,
  hobby, commute, laptop), then 6 real updates of one attribute of one person each (moved
  city, changed team, promoted, ...); the person's other facts stay true.
- `streams_mixed_heldout4.jsonl`: three projects (haulpath, emberfall, wardwise), each with
  five components and one person: ~60 % facts, ~18 % events, ~12 % real updates (17 cue
  wordings of their own plus plain new values with no cue), ~10 % restatements.
- `memory_updates_heldout4.jsonl`: hand-written pairs in memory_updates.jsonl's schema:
  8 projects, updates (cue / plain / value_only), near-topic non-updates, contradictions.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import heldout_build as hb  # noqa: E402
from heldout_build import up  # noqa: E402

SPLIT = "heldout4"


# -- parallel ------------------------------------------------------------------------------------

ENTITIES = [
    "orders-api-v2",
    "orders-api-v3",
    "the ORDERS_DB_URL pool",
    "the ORDERS_DB_URL_RO pool",
    "the eu-west-1 dispatch cluster",
    "the eu-west-2 dispatch cluster",
    "matchmaker-prod",
    "matchmaker-staging",
    "the shift-billing worker",
    "the roster-sync job",
    "dag_ingest_claims_daily",
    "dag_ingest_claims_hourly",
    "the season-ladder service",
    "the courier app's push gateway",
]

Phrase = Callable[[str, str], str]

ATTRS: dict[str, dict] = {
    "timeout": {
        "values": [str(v) for v in (4, 7, 9, 12, 15, 18, 22, 25, 33, 45, 52, 75, 90)],
        "phrases": [
            lambda e, v: f"For {e}, upstream calls time out after {v} seconds.",
            lambda e, v: f"{up(e)} times out after {v} s when its downstream stays silent.",
            lambda e, v: f"A deadline of {v} seconds applies to every request {e} sends out.",
        ],
        "questions": [
            lambda e: f"How long will {e} wait on a slow dependency before abandoning it?",
            lambda e: f"What is the cut-off for a hanging call made by {e}?",
        ],
    },
    "port": {
        "values": [
            str(v)
            for v in (7311, 7312, 8443, 9091, 9092, 5701, 6380, 4317, 8088, 10250, 3030, 7070)
        ],
        "phrases": [
            lambda e, v: f"Behind the mesh, {e} listens on port {v}.",
            lambda e, v: f"The sidecar forwards traffic meant for {e} to port {v}.",
            lambda e, v: f"Port {v} is registered to {e} in the service registry.",
        ],
        "questions": [
            lambda e: f"Which TCP number should a client dial to reach {e}?",
            lambda e: f"On what socket number does {e} accept traffic?",
        ],
    },
    "owner": {
        "values": "Alder Birch Cedar Hazel Juniper Larch Maple Rowan Spruce Willow Yew Aspen".split(),
        "phrases": [
            lambda e, v: f"{up(e)} is owned by the {v} team, per the service catalog.",
            lambda e, v: f"In the service catalog, the owner listed for {e} is team {v}.",
            lambda e, v: f"Code reviews touching {e} need a sign-off from {v}, the owning team.",
        ],
        "questions": [
            lambda e: f"Which group is accountable for {e}?",
            lambda e: f"Whose component is {e}?",
        ],
    },
    "retries": {
        "values": [str(v) for v in (1, 2, 3, 4, 5, 6, 8, 10, 12)],
        "phrases": [
            lambda e, v: f"For {e}, retries are limited to {v} attempts.",
            lambda e, v: f"{up(e)} repeats a failed call up to {v} times.",
            lambda e, v: f"A failed request from {e} is tried again at most {v} times.",
        ],
        "questions": [
            lambda e: f"How many more tries does {e} make after an error?",
            lambda e: f"What is the retry budget of {e}?",
        ],
    },
    "rate_cap": {
        "values": [
            str(v) for v in (150, 300, 600, 750, 1200, 1800, 2400, 3000, 4500, 6000, 9000, 12000)
        ],
        "phrases": [
            lambda e, v: f"There is a cap of {v} requests per minute on {e}.",
            lambda e, v: f"{up(e)} is capped at {v} requests per minute.",
            lambda e, v: f"Above {v} calls a minute, clients get HTTP 429 from {e}.",
        ],
        "questions": [
            lambda e: f"How much traffic per minute will {e} accept before throttling?",
            lambda e: f"What throttling threshold applies to {e}?",
        ],
    },
    "batch_size": {
        "values": [str(v) for v in (25, 50, 64, 100, 128, 200, 250, 256, 500, 512, 1000, 2000)],
        "phrases": [
            lambda e, v: f"{up(e)} handles records in batches of {v}.",
            lambda e, v: f"Each flush from {e} carries up to {v} items.",
            lambda e, v: f"The chunk size configured for {e} is {v} rows.",
        ],
        "questions": [
            lambda e: f"How many records does {e} group together per unit of work?",
            lambda e: f"How big is one batch for {e}?",
        ],
    },
    "memory_limit": {
        "values": [
            "512 MiB",
            "768 MiB",
            "1 GiB",
            "1.5 GiB",
            "2 GiB",
            "3 GiB",
            "4 GiB",
            "6 GiB",
            "8 GiB",
            "12 GiB",
            "16 GiB",
        ],
        "phrases": [
            lambda e, v: f"{up(e)} gets a memory limit of {v} per pod.",
            lambda e, v: f"Kubernetes kills {e} once it uses more than {v} of RAM.",
            lambda e, v: f"On the production cluster, each container of {e} may use {v}.",
        ],
        "questions": [
            lambda e: f"How much RAM is {e} allowed?",
            lambda e: f"At what usage does {e} get OOM-killed?",
        ],
    },
    "health_path": {
        "values": [
            "/healthz",
            "/livez",
            "/readyz",
            "/status",
            "/ping",
            "/health/deep",
            "/_ready",
            "/-/healthy",
            "/api/health",
            "/monitor",
            "/up",
            "/heartbeat",
        ],
        "phrases": [
            lambda e, v: f"The load balancer probes {e} at {v}.",
            lambda e, v: f"{up(e)} reports whether it is alive on the {v} endpoint.",
            lambda e, v: f"Liveness of {e} is checked through {v}.",
        ],
        "questions": [
            lambda e: f"Which URL path tells monitoring that {e} is OK?",
            lambda e: f"What route does the balancer poll for {e}?",
        ],
    },
    "secret_path": {
        "values": [
            "kv/prod/orders",
            "kv/prod/orders-ro",
            "kv/stage/orders",
            "kv/prod/dispatch",
            "kv/prod/dispatch-2",
            "kv/prod/match",
            "kv/stage/match",
            "kv/prod/shifts",
            "kv/prod/claims",
            "kv/prod/claims-hourly",
            "kv/prod/ladder",
            "kv/prod/push",
            "kv/prod/roster",
        ],
        "phrases": [
            lambda e, v: f"{up(e)} reads its credentials from Vault at {v}.",
            lambda e, v: f"The secrets of {e} sit under the Vault path {v}.",
            lambda e, v: f"At startup, the API keys for {e} are loaded from {v}.",
        ],
        "questions": [
            lambda e: f"Where in the secret store are the passwords of {e} kept?",
            lambda e: f"Which vault location holds the keys {e} needs?",
        ],
    },
}


# -- events --------------------------------------------------------------------------------------

EVENTS: dict[str, dict] = {
    "builds": {
        "names": ["build #8812", "build #8813", "build #8817", "build #8820"],
        "what": [
            "failed because the Gradle cache on the runner was corrupted",
            "went red after a flaky Espresso test in the courier app",
            "timed out while pushing the image to the registry",
            "passed but took 41 minutes on a cold runner",
        ],
        "phrases": [
            lambda n, a: f"{up(n)} {a}.",
            lambda n, a: f"On CI, {n} {a}.",
        ],
        "questions": [
            lambda n: f"What was the result of {n} in the pipeline?",
            lambda n: f"How did {n} end up?",
        ],
    },
    "incidents": {
        "names": ["INC-2291", "INC-2292", "INC-2297", "INC-2303"],
        "what": [
            "took dispatch offline for 18 minutes after a bad DNS change",
            "delayed courier assignments because the geocoder quota ran out",
            "sent staging players into the production matchmaker",
            "double-booked two operating theatres in the scheduling app",
        ],
        "phrases": [
            lambda n, a: f"Incident {n} {a}.",
            lambda n, a: f"Our outage {n} {a}.",
        ],
        "questions": [
            lambda n: f"What was the impact of {n}?",
            lambda n: f"What broke during {n}?",
        ],
    },
    "sprints": {
        "names": ["Sprint 44", "Sprint 45", "Sprint 58"],
        "what": [
            "committed to offline mode for the courier app",
            "pulled the ladder rewrite forward by two weeks",
            "left the claims backfill out of scope",
        ],
        "phrases": [
            lambda n, a: f"The planning of {n} {a}.",
            lambda n, a: f"At {n} planning the team {a}.",
        ],
        "questions": [lambda n: f"What was agreed when {n} was being planned?"],
    },
    "releases": {
        "names": ["app release 6.12.0", "app release 6.13.0", "app release 6.13.1"],
        "what": [
            "added barcode scanning for parcel drop-offs",
            "removed the legacy SMS login",
            "fixed a crash on Android 15 tablets",
        ],
        "phrases": [
            lambda n, a: f"Mobile {n} {a}.",
            lambda n, a: f"The store build of {n} {a}.",
        ],
        "questions": [lambda n: f"What was new or different in {n}?"],
    },
    "tickets": {
        "names": ["HOSP-1204", "HOSP-1207", "HOSP-1219"],
        "what": [
            "asks that night-shift swaps need a charge nurse's approval",
            "reports that the rota export drops part-time staff",
            "requests a weekly view of theatre bookings",
        ],
        "phrases": [
            lambda n, a: f"Jira issue {n} {a}.",
            lambda n, a: f"{n} {a}.",
        ],
        "questions": [lambda n: f"What does the issue {n} want from us?"],
    },
    "changesets": {
        "names": ["changeset 0417", "changeset 0418", "changeset 0422"],
        "what": [
            "renames shifts.ward to shifts.unit_code",
            "adds an index on bookings(start_at)",
            "backfills claims_facts from 2019 onwards",
        ],
        "phrases": [
            lambda n, a: f"Liquibase {n} {a}.",
            lambda n, a: f"The database {n} {a}.",
        ],
        "questions": [lambda n: f"What schema work does {n} contain?"],
    },
    "oncall_weeks": {
        "names": ["2026-05-11", "2026-05-18", "2026-05-25"],
        "what": [
            "was quiet apart from one disk alert",
            "saw eleven pages, most of them from the geocoder",
            "ended with a handover note about Kafka consumer lag",
        ],
        "phrases": [
            lambda n, a: f"The on-call week starting {n} {a}.",
            lambda n, a: f"On-call from {n} {a}.",
        ],
        "questions": [lambda n: f"How did the pager rotation go in the week beginning {n}?"],
    },
}


# -- people --------------------------------------------------------------------------------------

PEOPLE = [
    "Adetokunbo Brandt",
    "Mireille Castellanos",
    "Tobiah Fairweather",
    "Radmila Achterberg",
    "Kwabena Iwasaki",
    "Gwendolyn Mbatha",
    "Dashiell Oyelaran",
    "Perpetua Sandoval",
]
PERSON_ATTRS: dict[str, dict] = {
    "role": {
        "values": [
            "release manager",
            "data engineer",
            "site reliability engineer",
            "mobile lead",
            "product designer",
            "QA analyst",
            "engineering manager",
            "game designer",
        ],
        "phrases": [
            lambda p, v: f"{p} holds the title of {v}.",
            lambda p, v: f"In the staff directory, {p} appears as {v}.",
        ],
        "questions": [lambda p: f"What job does {p} do here?"],
    },
    "city": {
        "values": [
            "Tallinn",
            "Porto",
            "Accra",
            "Valparaíso",
            "Kraków",
            "Hobart",
            "Montréal",
            "Ljubljana",
        ],
        "phrases": [
            lambda p, v: f"{p}'s flat is in {v}.",
            lambda p, v: f"{p} works remotely from {v}.",
        ],
        "questions": [lambda p: f"In which town does {p} reside?"],
    },
    "timezone": {
        "values": ["CET", "EST", "AEST", "IST", "WAT", "PST", "JST", "BRT"],
        "phrases": [
            lambda p, v: f"{p} keeps {v} office hours.",
            lambda p, v: f"Calendar invites to {p} are shown in {v}.",
        ],
        "questions": [lambda p: f"What clock should I use when scheduling with {p}?"],
    },
    "team": {
        "values": [
            "Payments Rails",
            "Matchmaking",
            "Rostering",
            "Lakehouse",
            "Courier App",
            "Observability",
            "Checkout",
            "Dispatch",
        ],
        "phrases": [
            lambda p, v: f"{p} sits in the {v} team.",
            lambda p, v: f"{p} reports into the {v} group.",
        ],
        "questions": [lambda p: f"Which squad is {p} part of?"],
    },
    "pet": {
        "values": [
            "a greyhound called Biscuit",
            "two axolotls",
            "a tortoise named Gus",
            "a rescue ferret",
            "a parrot that whistles Bach",
            "three hens",
            "a Maine Coon",
            "a corgi puppy",
        ],
        "phrases": [
            lambda p, v: f"{p} takes care of {v} at home.",
            lambda p, v: f"{p}'s household includes {v}.",
        ],
        "questions": [lambda p: f"Which animal does {p} keep?"],
    },
    "hobby": {
        "values": [
            "bouldering",
            "sea kayaking",
            "pottery",
            "amateur astronomy",
            "chess puzzles",
            "sourdough baking",
            "trail running",
            "woodturning",
        ],
        "phrases": [
            lambda p, v: f"{p}'s weekends go to {v}.",
            lambda p, v: f"Outside work, {p} spends hours on {v}.",
        ],
        "questions": [lambda p: f"How does {p} like to spend free time?"],
    },
    "commute": {
        "values": [
            "by tram",
            "on a folding bike",
            "on foot",
            "by regional train",
            "by e-scooter",
            "in a car-pool",
            "on a motorbike",
            "by bus",
        ],
        "phrases": [
            lambda p, v: f"{p} comes to the office {v}.",
            lambda p, v: f"{p} usually arrives at work {v}.",
        ],
        "questions": [lambda p: f"What is {p}'s way of getting in each morning?"],
    },
    "laptop": {
        "values": [
            "a ThinkPad X1",
            "a MacBook Air",
            "a Framework 13",
            "a Dell XPS 15",
            "a MacBook Pro 16",
            "a Surface Laptop",
            "a System76 Lemur",
            "a ThinkPad T14",
        ],
        "phrases": [
            lambda p, v: f"{p} develops on {v}.",
            lambda p, v: f"The machine issued to {p} is {v}.",
        ],
        "questions": [lambda p: f"What computer does {p} work on?"],
    },
}
PersonUpdate = Callable[[str, str, str], str]  # (person, old, new) -> text
# One real change of one attribute per person; the other attributes of that person stay true.
PERSON_UPDATES: dict[str, PersonUpdate] = {
    "city": lambda p, o, n: f"{p} has since left {o} for {n}.",
    "team": lambda p, o, n: f"{p} transferred from {o} to the {n} team.",
    "role": lambda p, o, n: f"{p} was promoted from {o} to {n}.",
    "commute": lambda p, o, n: f"These days {p} makes the trip to work {n} rather than {o}.",
    "timezone": lambda p, o, n: f"After the move, {p}'s working hours follow {n}.",
    "laptop": lambda p, o, n: f"{p} traded {o} for {n}.",
}


# -- mixed ---------------------------------------------------------------------------------------

MIXED_PROJECTS: dict[str, tuple[list[str], str]] = {
    "haulpath": (
        [
            "route-planner-v4",
            "route-planner-v5",
            "the HAULPATH_EVENTS_URL consumer",
            "the HAULPATH_EVENTS_URL_DLQ consumer",
            "the depot-scanner gateway",
        ],
        "Ragnhild Oduya",
    ),
    "emberfall": (
        [
            "the ap-south-1 lobby shard",
            "the sa-east-1 lobby shard",
            "replay-uploader",
            "the EMBERFALL_STORE_DB pool",
            "the anti-cheat ingest job",
        ],
        "Bartholomew Nkemelu",
    ),
    "wardwise": (
        [
            "bedboard-prod",
            "bedboard-staging",
            "the shift-swap worker",
            "the ICU pager bridge",
            "the rota-export job",
        ],
        "Marguerite Achebe",
    ),
}
MIXED_ATTRS = ["timeout", "retries", "rate_cap", "batch_size", "owner"]
MIXED_PERSON_ATTRS = ["city", "team", "commute", "pet", "hobby"]
# Which attribute of the project's person changes (the others stay true).
MIXED_PERSON_UPDATE = {"haulpath": "city", "emberfall": "team", "wardwise": "commute"}
# How an attribute is named and how its value reads inside an update sentence.
NOUN = {
    "timeout": ("the request timeout", lambda v: f"{v} seconds"),
    "retries": ("the retry limit", lambda v: f"{v} attempts"),
    "rate_cap": ("the rate cap", lambda v: f"{v} requests per minute"),
    "batch_size": ("the batch size", lambda v: f"{v} records"),
    "owner": ("the owning team", lambda v: f"team {v}"),
}
Update = Callable[[str, str, str, str], str]  # (entity, noun, old, new) -> text
# Real-update wordings no other part has; each is used in turn, so every one of them occurs.
UPDATES: list[Update] = [
    lambda e, a, o, n: f"{up(a)} for {e} was adjusted from {o} to {n}.",
    lambda e, a, o, n: f"Starting this sprint, {e} runs with {n} as {a}.",
    lambda e, a, o, n: f"We retired {o} as {a} of {e}; it is {n} going forward.",
    lambda e, a, o, n: f"{up(e)} dropped {o} in favour of {n} for {a}.",
    lambda e, a, o, n: f"{up(a)} of {e} was swapped to {n}.",
    lambda e, a, o, n: f"Update: {a} of {e} → {n} (previously {o}).",
    lambda e, a, o, n: f"{up(a)} of {e} has been {n} ever since the last release.",
    lambda e, a, o, n: f"From now on, {a} of {e} is {n}.",
    lambda e, a, o, n: f"{up(a)} of {e} stopped being {o}; it reads {n}.",
    lambda e, a, o, n: f"Correction: {a} for {e} should say {n}; the {o} figure is outdated.",
    lambda e, a, o, n: f"{up(n)} replaces {o} as {a} of {e}.",
    lambda e, a, o, n: f"{up(a)} of {e} got updated to {n} this morning.",
    lambda e, a, o, n: f"After the capacity review, the new value of {a} for {e} is {n}.",
    lambda e, a, o, n: f"A config push put {e} on {n} ({a}).",
    lambda e, a, o, n: f"{up(e)}: {a} changed, {o} out, {n} in.",
    lambda e, a, o, n: f"Heads-up, {e} no longer uses {o} but {n} for {a}.",
]
RESTATE: dict[str, Callable[[str, str], str]] = {
    "timeout": lambda e, v: f"Any call from {e} still pending after {v} seconds is abandoned.",
    "retries": lambda e, v: f"When a call fails, {e} has {v} more goes at it, no more.",
    "rate_cap": lambda e, v: f"Throttling kicks in for {e} beyond {v} requests a minute.",
    "batch_size": lambda e, v: f"Work reaches {e} in groups of {v} records.",
    "owner": lambda e, v: f"Team {v} is the one answerable for {e}.",
    "city": lambda p, v: f"{p} is based out of {v}.",
    "team": lambda p, v: f"{p} is a member of {v}.",
    "commute": lambda p, v: f"Most mornings {p} makes the journey {v}.",
    "pet": lambda p, v: f"{p} looks after {v}.",
    "hobby": lambda p, v: f"In spare time {p} is into {v}.",
}
MIXED_EVENTS: dict[str, list[tuple[str, str]]] = {
    "haulpath": [
        (
            "Build #3107 of route-planner-v5 failed on a missing OSRM extract.",
            "Why did the route planner's build 3107 break?",
        ),
        (
            "Incident INC-5510 left 300 parcels unassigned at the Leeds depot.",
            "What happened at the Leeds depot in INC-5510?",
        ),
        (
            "Sprint 12 planning moved the DLQ replay tool to the next sprint.",
            "What got postponed when sprint 12 was planned?",
        ),
        (
            "Ticket HP-881 asks for signatures on delivery photos.",
            "What feature does HP-881 request?",
        ),
        (
            "Incident INC-5514 was a certificate expiry on the depot scanners.",
            "What caused INC-5514?",
        ),
        (
            "Build #3112 of route-planner-v4 passed after the cache was cleared.",
            "What fixed build 3112 of the older planner?",
        ),
        (
            "Liquibase changeset 0031 adds a pallet_id column to shipments.",
            "Which column does changeset 0031 introduce?",
        ),
        (
            "On 2026-06-03, the Manchester depot went live on the new scanners.",
            "Which site switched to new scanning hardware in early June?",
        ),
        (
            "Ticket HP-884 reports that ETAs are shown in UTC to drivers.",
            "What display problem does HP-884 describe?",
        ),
    ],
    "emberfall": [
        (
            "Release 2.8.0 of the Emberfall client added cross-play parties.",
            "What feature shipped with client version 2.8.0?",
        ),
        (
            "Incident INC-6021 dropped every match in the ap-south-1 region for ten minutes.",
            "What outage did INC-6021 cause?",
        ),
        (
            "Sprint 19 planning committed to a new replay compression format.",
            "What did the team sign up for at the start of sprint 19?",
        ),
        (
            "Build #550 of the anti-cheat module was blocked by a licence check.",
            "What stopped build 550 from finishing?",
        ),
        (
            "Release 2.8.1 of the Emberfall client fixed desync on high ping.",
            "Which bug did the 2.8.1 patch address?",
        ),
        (
            "Incident INC-6027 was a flood of bot accounts during the weekend event.",
            "What went on in INC-6027?",
        ),
        (
            "Ticket EF-342 asks for region locking of ranked queues.",
            "What does EF-342 ask the backend team for?",
        ),
        (
            "On 2026-07-14, the season reset wiped the wrong leaderboard cache.",
            "What went wrong with the season reset in mid-July?",
        ),
        (
            "Build #553 of the anti-cheat module shipped with debug symbols by mistake.",
            "What was wrong with the artefact of build 553?",
        ),
    ],
    "wardwise": [
        (
            "Incident INC-7702 showed night nurses yesterday's rota for an hour.",
            "What did staff see wrongly during INC-7702?",
        ),
        (
            "Ticket WW-129 asks for a warning when a nurse works six nights in a row.",
            "What alert does WW-129 want added?",
        ),
        (
            "Sprint 8 planning put the ICU pager bridge rewrite first.",
            "What got top priority in sprint 8?",
        ),
        (
            "Liquibase changeset 0112 splits wards into units and beds.",
            "How does changeset 0112 restructure the wards data?",
        ),
        (
            "Incident INC-7705 was a pager storm when the bridge lost its SIP trunk.",
            "Why were so many pages sent in INC-7705?",
        ),
        (
            "Ticket WW-133 reports that the rota export cuts names at 20 characters.",
            "What truncation bug does WW-133 describe?",
        ),
        (
            "On 2026-08-21, the maternity unit started using shift swaps in the app.",
            "Which department adopted in-app shift trading in late August?",
        ),
        (
            "Build #907 of bedboard failed because of a timezone-dependent test.",
            "Why was bedboard's build 907 red?",
        ),
        (
            "Sprint 9 planning dropped the tablet kiosk mode.",
            "What was cut from scope for sprint 9?",
        ),
    ],
}


# -- hand-written update pairs (memory_updates.jsonl's schema) -----------------------------------

# project -> (about, context facts as (topic, text)); items below name their project.
PROJECTS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "cargoloom": (
        "freight forwarding: booking-api (Go), customs-docs service, carrier EDI bridge",
        [
            ("lang", "booking-api is a Go service that prices container bookings."),
            ("edi", "The EDI bridge exchanges IFTMIN messages with twelve carriers."),
            ("docs", "customs-docs renders export declarations as PDF/A."),
            ("people", "Yevgenia Moroz coordinates the carrier onboarding."),
            ("db", "Bookings are stored in CockroachDB across two regions."),
            ("track", "Container positions come from an AIS feed every fifteen minutes."),
        ],
    ),
    "questkiln": (
        "game studio backend: session-broker (C#), inventory-svc (Rust), Redis, Steam login",
        [
            ("lang", "session-broker is written in C# on .NET 8."),
            ("inv", "inventory-svc keeps every player's items and is written in Rust."),
            ("cache", "Player presence lives in a Redis cluster."),
            ("people", "Ottoline Marsh runs live operations for the studio."),
            ("auth", "Players sign in with their Steam account."),
            ("telemetry", "Match telemetry is streamed to ClickHouse."),
        ],
    ),
    "theatrix": (
        "operating-theatre scheduling: slot-engine (Kotlin), HL7 feed, nurse tablet app",
        [
            ("lang", "slot-engine is a Kotlin service that books theatre slots."),
            ("hl7", "Admissions arrive over an HL7 v2 feed from the hospital's PAS."),
            ("app", "Scrub nurses confirm instrument trays on iPads."),
            ("people", "Dr. Fenella Quist chairs the theatre scheduling committee."),
            ("db", "Bookings are stored in SQL Server on the hospital's own hardware."),
            ("audit", "Every change to a booking is written to an audit trail."),
        ],
    ),
    "lakeshard": (
        "data engineering: Airflow, dbt models, Snowflake warehouse, Kafka ingestion",
        [
            ("orch", "Pipelines are orchestrated by Airflow on Kubernetes."),
            ("dbt", "Transformations are dbt models reviewed in pull requests."),
            ("wh", "The warehouse is Snowflake, one database per domain."),
            ("people", "Ignatius Obi is the analytics engineering lead."),
            ("ingest", "Click events are ingested from Kafka by a Flink job."),
            ("quality", "Great Expectations suites guard the finance tables."),
        ],
    ),
    "snackdash": (
        "food ordering mobile app: React Native app, menu-api (Node.js), push notifications",
        [
            ("app", "The SnackDash app is built with React Native."),
            ("api", "menu-api is a Node.js service serving restaurant menus."),
            ("push", "Order updates are pushed through Firebase Cloud Messaging."),
            ("people", "Priya Venkataraman owns the mobile release process."),
            ("pay", "Card payments go through Braintree."),
            ("crash", "Crash reports are collected by Sentry."),
        ],
    ),
    "tidewell": (
        "water utility metering: meter-collector (Erlang), billing export, field-crew app",
        [
            ("lang", "meter-collector is written in Erlang and talks to radio meters."),
            ("bill", "Readings are exported to the billing system every night."),
            ("crew", "Field crews log repairs in an offline-first Flutter app."),
            ("people", "Caspian Holloway supervises the field crews."),
            ("db", "Readings are stored in PostgreSQL with TimescaleDB."),
            ("leak", "A leak is suspected when night-time flow never drops to zero."),
        ],
    ),
    "bindery": (
        "public library lending: loans-api (Laravel), RFID gates, SMS reminders",
        [
            ("lang", "loans-api is a Laravel application."),
            ("rfid", "Every branch has RFID gates at the exit."),
            ("sms", "Due-date reminders are sent by SMS through Twilio."),
            ("people", "Hortense Abara manages the branch systems."),
            ("catalog", "The catalogue is imported from MARC records each week."),
            ("kiosk", "Self-checkout kiosks run a locked-down Chromium."),
        ],
    ),
    "voltcab": (
        "EV charging network: OCPP gateway (Java), tariff-service, roaming hub link",
        [
            ("lang", "The OCPP gateway is a Java service talking to charge points."),
            ("tariff", "tariff-service computes the price of each charging session."),
            ("roam", "Roaming sessions are exchanged over OCPI with a hub."),
            ("people", "Leopold Nwankwo owns the charge-point firmware partnerships."),
            ("app", "Drivers start sessions from the VoltCab app or an RFID card."),
            ("grid", "Load is balanced per site so the grid connection is never exceeded."),
        ],
    ),
}

# (project, topic, style, old, new, question); topic's first dotted part keeps context apart.
UPDATE_ITEMS: list[tuple[str, str, str, str, str, str]] = [
    ("cargoloom", "db.region", "cue",
     "The CockroachDB leaseholders for bookings sit in eu-central-1.",
     "We shifted the booking leaseholders out of eu-central-1 into eu-north-1.",
     "In which region are the booking leaseholders placed?"),
    ("cargoloom", "edi.poll", "plain",
     "The EDI bridge polls the carriers' SFTP boxes every 30 minutes.",
     "The EDI bridge polls the carriers' SFTP boxes every 10 minutes.",
     "How often are carrier mailboxes checked for files?"),
    ("cargoloom", "docs.engine", "cue",
     "customs-docs builds its PDFs with wkhtmltopdf.",
     "customs-docs ditched wkhtmltopdf and renders with WeasyPrint these days.",
     "Which tool produces the customs PDFs?"),
    ("cargoloom", "people.edi", "value_only",
     "Bogdan Ilic is the contact for the EDI bridge.",
     "EDI bridge contact: Yevgenia Moroz.",
     "Whom do I ask about carrier message exchange?"),
    ("cargoloom", "lang.go", "cue",
     "booking-api is built with Go 1.21.",
     "booking-api was upgraded to Go 1.23 last week.",
     "Which Go toolchain compiles the booking service?"),
    ("cargoloom", "track.source", "plain",
     "Container positions are bought from MarineTraffic.",
     "Container positions are bought from Spire Maritime.",
     "Who supplies our vessel position data?"),
    ("questkiln", "cache.evict", "cue",
     "Presence keys in Redis expire after 90 seconds.",
     "Presence keys in Redis now expire after 45 seconds instead of 90.",
     "How long does a player's online marker survive without a refresh?"),
    ("questkiln", "inv.db", "plain",
     "inventory-svc stores items in DynamoDB.",
     "inventory-svc stores items in ScyllaDB.",
     "Which database holds the players' items?"),
    ("questkiln", "people.liveops", "cue",
     "Ottoline Marsh approves every in-game event.",
     "In-game events no longer need Ottoline's approval; Rafferty Kuhn signs them off.",
     "Who gives the go-ahead for in-game events?"),
    ("questkiln", "match.size", "value_only",
     "Ranked lobbies hold 10 players.",
     "Ranked lobby size: 12.",
     "How many people fit in a ranked lobby?"),
    ("questkiln", "auth.token", "cue",
     "Session tokens from session-broker are valid for 24 hours.",
     "We shortened session-broker tokens from 24 hours to 8.",
     "For how long can a game session token be used?"),
    ("questkiln", "telemetry.retain", "plain",
     "Raw match telemetry is kept for 30 days in ClickHouse.",
     "Raw match telemetry is kept for 14 days in ClickHouse.",
     "How many days of unaggregated match data do we keep?"),
    ("theatrix", "slot.length", "value_only",
     "Default theatre slots are 90 minutes long.",
     "Default theatre slot: 75 minutes.",
     "How long is a standard operating slot?"),
    ("theatrix", "hl7.version", "cue",
     "The admissions feed uses HL7 v2.3.",
     "The PAS team moved the admissions feed to HL7 v2.5.1.",
     "Which HL7 revision do admission messages follow?"),
    ("theatrix", "app.ios", "plain",
     "The nurse app requires iPadOS 16 or later.",
     "The nurse app requires iPadOS 17 or later.",
     "What is the minimum tablet OS for the scrub nurse app?"),
    ("theatrix", "people.committee", "cue",
     "Dr. Fenella Quist chairs the theatre scheduling committee.",
     "Dr. Ansgar Bello took the chair of the theatre scheduling committee from Dr. Quist.",
     "Who leads the meetings that plan theatre use?"),
    ("theatrix", "freeze", "plain",
     "Theatre lists are frozen 48 hours before surgery.",
     "Theatre lists are frozen 72 hours before surgery.",
     "How long before an operation does the list stop changing?"),
    ("lakeshard", "orch.version", "cue",
     "We run Airflow 2.6.",
     "Airflow has been upgraded from 2.6 to 2.9.",
     "Which release of the orchestrator is deployed?"),
    ("lakeshard", "wh.size", "value_only",
     "The transform warehouse in Snowflake is a MEDIUM.",
     "Transform warehouse size: LARGE.",
     "How big is the Snowflake compute used for dbt runs?"),
    ("lakeshard", "dbt.schedule", "plain",
     "The nightly dbt run starts at 02:00 UTC.",
     "The nightly dbt run starts at 03:30 UTC.",
     "When does the overnight transformation job kick off?"),
    ("lakeshard", "ingest.engine", "cue",
     "Click events are ingested from Kafka by a Flink job.",
     "The Flink ingestion job was retired; Kafka Connect now writes click events to S3.",
     "What moves click events out of Kafka?"),
    ("lakeshard", "people.oncall", "plain",
     "Data pipeline pages go to Ignatius Obi.",
     "Data pipeline pages go to Solveig Arntzen.",
     "Who is paged when a pipeline fails?"),
    ("snackdash", "api.cache", "cue",
     "menu-api caches menus for 10 minutes.",
     "menu-api's menu cache went down to 2 minutes after restaurants complained.",
     "How stale can a menu served by the API be?"),
    ("snackdash", "app.minos", "value_only",
     "The app supports iOS 15 and newer.",
     "Minimum iOS for SnackDash: 16.",
     "What is the oldest iPhone OS the app still runs on?"),
    ("snackdash", "pay.provider", "cue",
     "Card payments go through Braintree.",
     "We switched card payments from Braintree to Adyen.",
     "Which processor charges customers' cards?"),
    ("snackdash", "release.cadence", "plain",
     "A new app version ships to the stores every two weeks.",
     "A new app version ships to the stores every week.",
     "How frequently do we publish app updates?"),
    ("snackdash", "people.design", "plain",
     "Ezinne Ward leads product design for the app.",
     "Product design for the app is led by Lucian Petrescu.",
     "Who heads the app's design work?"),
    ("tidewell", "bill.time", "cue",
     "Readings are exported to billing at 23:00.",
     "The billing export now runs at 01:00, two hours later than before.",
     "At what hour do readings go to the billing system?"),
    ("tidewell", "radio", "value_only",
     "Meters transmit on the 868 MHz band.",
     "Meter radio: 433 MHz.",
     "Which frequency do the water meters send on?"),
    ("tidewell", "crew.sync", "plain",
     "The field-crew app syncs every 15 minutes when online.",
     "The field-crew app syncs every 5 minutes when online.",
     "How often does the crews' app upload its data?"),
    ("tidewell", "leak.threshold", "cue",
     "A leak alert is raised after 3 nights of non-zero flow.",
     "We tightened the leak rule: two nights of non-zero flow now raise an alert.",
     "After how many nights of constant flow is a leak flagged?"),
    ("tidewell", "people.crews", "cue",
     "Caspian Holloway supervises the field crews.",
     "Caspian Holloway retired; the field crews answer to Wilhelmina Sato now.",
     "Who is in charge of the repair teams?"),
    ("bindery", "loan.period", "plain",
     "Books can be borrowed for 21 days.",
     "Books can be borrowed for 28 days.",
     "How long may a member keep a book?"),
    ("bindery", "sms.provider", "cue",
     "Due-date reminders are sent by SMS through Twilio.",
     "Reminders moved off Twilio; MessageBird sends them now.",
     "Which service delivers the due-date texts?"),
    ("bindery", "lang.php", "value_only",
     "loans-api runs on PHP 8.1.",
     "loans-api PHP version: 8.3.",
     "Which PHP release does the lending API use?"),
    ("bindery", "fines", "cue",
     "Late returns cost 20 cents a day.",
     "Since January, late fines are abolished for children's books and 15 cents otherwise.",
     "What does a late return cost per day?"),
    ("bindery", "catalog.day", "plain",
     "The MARC import runs on Sunday nights.",
     "The MARC import runs on Wednesday nights.",
     "On which night is the catalogue refreshed?"),
    ("voltcab", "ocpp.version", "cue",
     "Charge points connect with OCPP 1.6.",
     "New charge points connect with OCPP 2.0.1 and the 1.6 ones were upgraded too.",
     "Which protocol version do our chargers speak?"),
    ("voltcab", "tariff.idle", "plain",
     "Idle fees start 30 minutes after charging ends.",
     "Idle fees start 15 minutes after charging ends.",
     "How long can a car sit after a full charge before extra charges apply?"),
    ("voltcab", "people.fw", "value_only",
     "Leopold Nwankwo owns the charge-point firmware partnerships.",
     "Firmware partnerships owner: Anneliese Varga.",
     "Who manages our relations with charger firmware vendors?"),
    ("voltcab", "roam.hub", "cue",
     "Roaming sessions are exchanged over OCPI with Hubject.",
     "We left Hubject and exchange roaming sessions through Gireve instead.",
     "Which hub do we roam through?"),
    ("voltcab", "grid.cap", "plain",
     "Each site is limited to 400 kW from the grid.",
     "Each site is limited to 550 kW from the grid.",
     "What is the most power a site may draw?"),
]

# (project, topic, old, new, question about old, question about new): both facts stay true.
NON_UPDATE_ITEMS: list[tuple[str, str, str, str, str, str]] = [
    ("cargoloom", "db.region",
     "Bookings for European customers are stored in eu-central-1.",
     "Bookings for Asian customers are stored in ap-southeast-1.",
     "Where is booking data of customers in Europe kept?",
     "Which region holds bookings made by customers in Asia?"),
    ("cargoloom", "edi.carriers",
     "Maersk sends its booking confirmations as IFTMBC messages.",
     "CMA CGM sends its booking confirmations by email with a PDF.",
     "How does Maersk confirm a booking?",
     "In what form does CMA CGM confirm bookings?"),
    ("cargoloom", "docs.lang",
     "Export declarations are rendered in English.",
     "Packing lists are rendered in the destination country's language.",
     "In which language do export declarations come out?",
     "What language are packing lists printed in?"),
    ("cargoloom", "api.timeout",
     "booking-api gives carriers' rate APIs 4 seconds to answer.",
     "booking-api gives the customs API 12 seconds to answer.",
     "How long does the booking service wait for a carrier's price?",
     "How long does the booking service wait for the customs system?"),
    ("cargoloom", "people.sales",
     "Yevgenia Moroz coordinates the carrier onboarding.",
     "Thaddeus Lund coordinates the onboarding of new shippers.",
     "Who brings new shipping lines on board?",
     "Who handles onboarding for new shipper customers?"),
    ("cargoloom", "track.port",
     "Rotterdam arrivals are confirmed by the port community system.",
     "Hamburg arrivals are confirmed by a daily CSV from the terminal.",
     "How do we learn that a ship has reached Rotterdam?",
     "What tells us a vessel arrived in Hamburg?"),
    ("questkiln", "match.size",
     "Ranked lobbies hold 10 players.",
     "Casual lobbies hold 16 players.",
     "How many participants are in a ranked game?",
     "What is the player count of a casual game?"),
    ("questkiln", "cache.region",
     "The EU Redis cluster runs in Frankfurt.",
     "The NA Redis cluster runs in Virginia.",
     "Where is the European presence cache hosted?",
     "In which location is the North American presence cache?"),
    ("questkiln", "inv.limit",
     "A player's stash holds at most 300 items.",
     "A player's loadout holds at most 8 items.",
     "How many things fit in a player's storage?",
     "How many items can a player equip at once?"),
    ("questkiln", "people.liveops",
     "Ottoline Marsh runs live operations for the studio.",
     "Rafferty Kuhn runs the community Discord for the studio.",
     "Who is responsible for live ops?",
     "Who manages the studio's Discord server?"),
    ("questkiln", "auth.provider",
     "PC players sign in with their Steam account.",
     "Console players sign in with their PlayStation Network account.",
     "How do people on PC log in?",
     "What account do console players use to log in?"),
    ("questkiln", "telemetry.rate",
     "Match telemetry is sampled at 20 events per second per player.",
     "Lobby telemetry is sampled at 1 event per second per player.",
     "How often are in-match events recorded?",
     "What is the sampling rate outside matches, in the lobby?"),
    ("theatrix", "slot.length",
     "Orthopaedic slots are 120 minutes long.",
     "Cataract slots are 30 minutes long.",
     "How much time is booked for a bone surgery?",
     "How long is an eye lens operation scheduled for?"),
    ("theatrix", "hl7.messages",
     "Admissions are sent as ADT^A01 messages.",
     "Discharges are sent as ADT^A03 messages.",
     "Which HL7 event type announces an admission?",
     "What message type tells us a patient left hospital?"),
    ("theatrix", "people.committee",
     "Dr. Fenella Quist chairs the theatre scheduling committee.",
     "Dr. Ansgar Bello chairs the anaesthetics rota committee.",
     "Who presides over the theatre planning meetings?",
     "Who leads the group that plans anaesthetist shifts?"),
    ("theatrix", "app.devices",
     "Scrub nurses use iPads in theatres 1 to 6.",
     "Recovery nurses use Android handhelds on the recovery ward.",
     "What devices do theatre nurses confirm trays on?",
     "What hardware do nurses in recovery carry?"),
    ("theatrix", "freeze",
     "Elective lists are frozen 48 hours before surgery.",
     "Emergency slots are never frozen and can be filled up to an hour before.",
     "When do planned surgery lists lock?",
     "How late can an urgent case still be slotted in?"),
    ("lakeshard", "wh.size",
     "The transform warehouse in Snowflake is a MEDIUM.",
     "The BI dashboard warehouse in Snowflake is an XSMALL.",
     "What size is the compute that runs transformations?",
     "How large is the compute behind dashboards?"),
    ("lakeshard", "dbt.schedule",
     "The finance dbt models run at 02:00 UTC.",
     "The marketing dbt models run at 06:00 UTC.",
     "When are the finance transformations built?",
     "At what time do the marketing transformations run?"),
    ("lakeshard", "ingest.topics",
     "Click events arrive on the Kafka topic web.clicks.v2.",
     "App events arrive on the Kafka topic app.events.v1.",
     "Which topic carries website click data?",
     "On which topic do mobile app events land?"),
    ("lakeshard", "people.lead",
     "Ignatius Obi is the analytics engineering lead.",
     "Solveig Arntzen is the data platform lead.",
     "Who heads analytics engineering?",
     "Who is in charge of the data platform?"),
    ("lakeshard", "quality",
     "Great Expectations suites guard the finance tables.",
     "dbt tests guard the marketing tables.",
     "What checks protect the finance data?",
     "How is the marketing data validated?"),
    ("snackdash", "api.cache",
     "menu-api caches menus for 10 minutes.",
     "menu-api caches restaurant opening hours for 1 hour.",
     "How long does the API keep a menu in cache?",
     "How long are opening times cached?"),
    ("snackdash", "push",
     "Android order updates are pushed through Firebase Cloud Messaging.",
     "iOS order updates are pushed through APNs directly.",
     "How do order notifications reach Android phones?",
     "Which channel delivers order notifications to iPhones?"),
    ("snackdash", "people.release",
     "Priya Venkataraman owns the mobile release process.",
     "Lucian Petrescu owns the restaurant partner portal.",
     "Who runs app store releases?",
     "Who is responsible for the portal restaurants use?"),
    ("snackdash", "pay.methods",
     "Card payments go through Braintree.",
     "Meal vouchers are redeemed through Edenred.",
     "Who processes card transactions?",
     "Which provider handles meal voucher payments?"),
    ("snackdash", "crash",
     "Crash reports from the app are collected by Sentry.",
     "Performance traces from the app are collected by Datadog RUM.",
     "Where do app crash reports go?",
     "Which tool gathers the app's performance traces?"),
    ("tidewell", "radio",
     "Residential meters transmit on the 868 MHz band.",
     "Bulk meters at factories report over NB-IoT.",
     "Which radio band do household meters use?",
     "How do the large industrial meters send readings?"),
    ("tidewell", "bill.time",
     "Household readings are exported to billing at 23:00.",
     "Commercial readings are exported to billing at 05:00.",
     "When do domestic readings go to billing?",
     "At what time are business readings handed to billing?"),
    ("tidewell", "people.crews",
     "Caspian Holloway supervises the field crews.",
     "Wilhelmina Sato supervises the control room.",
     "Who oversees the repair teams?",
     "Who runs the control room?"),
    ("tidewell", "leak",
     "A leak is suspected when night-time flow never drops to zero.",
     "A burst is suspected when flow jumps by more than 40 % within an hour.",
     "What pattern points to a slow leak?",
     "What reading suggests a burst pipe?"),
    ("tidewell", "crew.offline",
     "The field-crew app keeps 7 days of jobs offline.",
     "The field-crew app keeps 30 days of photos offline.",
     "How many days of work orders are available without signal?",
     "How long are repair pictures kept on the device?"),
    ("bindery", "loan.period",
     "Books can be borrowed for 21 days.",
     "DVDs can be borrowed for 7 days.",
     "How long is the lending period for a book?",
     "For how many days can a film disc be taken home?"),
    ("bindery", "people.branches",
     "Hortense Abara manages the branch systems.",
     "Quentin Ferreira manages the mobile library van.",
     "Who looks after the IT of the branches?",
     "Who is responsible for the library bus?"),
    ("bindery", "rfid",
     "The central branch has four RFID gates.",
     "The harbour branch has one RFID gate.",
     "How many security gates does the main library have?",
     "How many exit gates are at the harbour location?"),
    ("bindery", "sms",
     "Due-date reminders are sent by SMS three days ahead.",
     "Hold-ready notices are sent by email as soon as a book arrives.",
     "When do members get a text about returning items?",
     "How are members told that a reserved book is waiting?"),
    ("bindery", "kiosk",
     "Self-checkout kiosks run a locked-down Chromium.",
     "The catalogue terminals run Firefox in kiosk mode.",
     "What browser powers the self-service loan machines?",
     "Which browser do the catalogue search stations use?"),
    ("voltcab", "tariff.idle",
     "Idle fees on AC chargers start 60 minutes after charging ends.",
     "Idle fees on DC fast chargers start 10 minutes after charging ends.",
     "How long can a car stay at a slow charger after finishing?",
     "When do overstay charges begin at rapid chargers?"),
    ("voltcab", "grid.cap",
     "The Utrecht site is limited to 400 kW from the grid.",
     "The Eindhoven site is limited to 250 kW from the grid.",
     "How much power may the Utrecht location draw?",
     "What is the grid limit in Eindhoven?"),
    ("voltcab", "people.fw",
     "Leopold Nwankwo owns the charge-point firmware partnerships.",
     "Anneliese Varga owns the site-host contracts.",
     "Who manages the firmware vendor relationships?",
     "Who handles agreements with the hosts of our sites?"),
    ("voltcab", "app.start",
     "Drivers start sessions from the VoltCab app.",
     "Fleet customers start sessions with an RFID card.",
     "How do private drivers begin charging?",
     "What do fleet drivers use to start a charge?"),
    ("voltcab", "ocpp.port",
     "The OCPP gateway accepts charger connections on port 8887.",
     "The OCPP gateway's admin API is served on port 9443.",
     "Which port do charge points connect to?",
     "Where is the gateway's management interface exposed?"),
]

# (project, topic, source 1, source 2, question): two sources disagree, no replacement cue.
CONTRADICTION_ITEMS: list[tuple[str, str, str, str, str]] = [
    ("cargoloom", "edi.count",
     "The onboarding sheet lists 12 carriers connected over EDI.",
     "The EDI bridge's config has 14 carriers enabled.",
     "How many carriers exchange EDI with us?"),
    ("cargoloom", "docs.sla",
     "The customer contract promises customs documents within 2 hours.",
     "The ops handbook says customs documents are due within 4 hours.",
     "How quickly must customs papers be produced?"),
    ("questkiln", "players",
     "The investor update says 1.2 million players logged in last month.",
     "The analytics dashboard counts 950 thousand monthly active players.",
     "How many people played the game last month?"),
    ("questkiln", "cache.nodes",
     "The architecture diagram shows 6 Redis nodes.",
     "The cloud console lists 9 Redis nodes in the cluster.",
     "How many nodes make up the presence cache?"),
    ("theatrix", "theatres",
     "The hospital website says there are 11 operating theatres.",
     "slot-engine's configuration defines 9 bookable theatres.",
     "How many operating theatres can be scheduled?"),
    ("theatrix", "retention",
     "The data protection notice keeps scheduling records for 8 years.",
     "The IT runbook says booking records are purged after 5 years.",
     "How long are theatre bookings kept?"),
    ("lakeshard", "cost",
     "The finance report puts the Snowflake bill at 38 thousand dollars a month.",
     "The Snowflake usage page shows 44 thousand dollars spent last month.",
     "What does the warehouse cost us each month?"),
    ("lakeshard", "dags",
     "The platform wiki says we run 140 Airflow DAGs.",
     "The Airflow UI lists 163 active DAGs.",
     "How many pipelines does Airflow schedule?"),
    ("snackdash", "rating",
     "The pitch deck quotes an app store rating of 4.7.",
     "The App Store page shows the app rated 4.4.",
     "What is the app's store rating?"),
    ("tidewell", "meters",
     "The annual report mentions 210 thousand connected meters.",
     "meter-collector's registry holds 187 thousand meters.",
     "How many meters report to us?"),
    ("bindery", "members",
     "The council's website says the library has 54 thousand members.",
     "loans-api counts 47 thousand active library cards.",
     "How many people are library members?"),
    ("voltcab", "chargers",
     "The marketing site advertises 2,300 charge points.",
     "The OCPP gateway sees 1,980 connected charge points.",
     "How many chargers does the network have?"),
]


# -- the files -----------------------------------------------------------------------------------


def build() -> dict[str, list[dict]]:
    return hb.build(hb.Part.of(globals(), "h4"))


def names() -> list[str]:
    """Every entity, person, project and event name of heldout4."""
    return hb.part_names(hb.Part.of(globals(), "h4"))


def leaks() -> list[str]:
    """Names of heldout4 that occur in any other part's text."""
    return sorted(hb.name_leaks(SPLIT, names()))


if __name__ == "__main__":
    sys.exit(hb.main(__doc__, SPLIT, build, leaks))


