"""Generate the seventh held-out part (issue 27): `heldout7`, never read to tune.

    python bench/data/gen_heldout7.py           # (re)write the heldout7 files
    python bench/data/gen_heldout7.py --check   # exit 1 when a committed file is stale or
                                                # when heldout7 shares a name, an attribute kind
                                                # or a sentence with another part

Written while the update detector was being tuned by someone who never saw these files, so the
tuning can be checked for generalisation. Nothing is taken from the other parts (gen_streams.py,
gen_heldout3.py .. gen_heldout6.py, memory_updates.jsonl): other domains (a bank's card
processing platform, a university learning management system, a hotel chain's property
management system, a ski resort's lift operations, a pharmaceutical plant's manufacturing
execution system, a stadium's ticketing and gate access, a national weather service's forecast
pipeline, a satellite ground station), other entities, attribute kinds, sentence templates,
event kinds, people and update wordings. Deterministic: no randomness but a sha256 of fixed
strings (gen_streams' helpers). The row builders are heldout_build.py's; the layout is
heldout6's (12 people, one update each; 10 component updates per mixed project).

Files, in gen_streams' line format (id, set, split="heldout7", scope, seq, kind, entity,
attribute, text, questions, replaces, restates):

- `streams_parallel_heldout7.jsonl`: 14 entities x 9 attributes, every fact true at once.
- `streams_events_heldout7.jsonl`: 23 numbered or dated events of 7 kinds.
- `streams_people_heldout7.jsonl`: 12 people x 8 attributes, then 12 real updates (one
  attribute of each person; with and without change cues); the other facts stay true.
- `streams_mixed_heldout7.jsonl`: three projects, each with nine components and one person:
  ~60 % facts, ~16 % events, ~13 % real updates, ~10 % restatements.
- `memory_updates_heldout7.jsonl`: hand-written pairs in memory_updates.jsonl's schema:
  8 projects, updates (cue / plain / value_only), near-topic non-updates, contradictions.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import heldout_build as hb  # noqa: E402
from heldout_build import up  # noqa: E402

SPLIT = "heldout7"
PREFIX = "h7"


# -- parallel ------------------------------------------------------------------------------------

ENTITIES = [
    "auth-switch-emea-01",
    "auth-switch-emea-02",
    "the turnstile gateway (north stand)",
    "the turnstile gateway (south stand)",
    "lms-gradebook-sync-v5",
    "lms-gradebook-sync-v6",
    "the chairlift 4 telemetry relay",
    "the chairlift 5 telemetry relay",
    "the radar mosaic builder in eu-west",
    "the radar mosaic builder in eu-north",
    "the antenna controller ACU-2",
    "the antenna controller ACU-3",
    "MES_BATCH_RECORD_API",
    "the PMS rate-push service",
]

Phrase = Callable[[str, str], str]

# Two pairs of attributes share their words (the connection pool's floor and ceiling, the first
# and the backup pager); several values are identifiers that differ by one character.
ATTRS: dict[str, dict] = {
    "pool_floor": {
        "values": [str(v) for v in (2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 20, 24)],
        "phrases": [
            lambda e, v: f"{up(e)} keeps at least {v} database connections warm.",
            lambda e, v: f"A minimum of {v} pooled connections is held open by {e}.",
            lambda e, v: f"Even when idle, the connection pool of {e} never shrinks below {v}.",
        ],
        "questions": [
            lambda e: f"What is the smallest number of open DB links {e} maintains?",
            lambda e: f"How many idle sessions to the database does {e} hang on to at minimum?",
        ],
    },
    "pool_ceiling": {
        "values": [str(v) for v in (32, 40, 48, 64, 80, 96, 128, 160, 192, 256, 320, 512)],
        "phrases": [
            lambda e, v: f"{up(e)} opens no more than {v} database connections.",
            lambda e, v: f"At most {v} pooled connections can be held by {e}.",
            lambda e, v: f"{up(e)}'s connection pool is capped at {v}.",
        ],
        "questions": [
            lambda e: f"What is the upper bound on DB sessions for {e}?",
            lambda e: f"How large may the database pool of {e} grow?",
        ],
    },
    "primary_pager": {
        "values": [
            "Adalwin Nakagawa-Rees",
            "Benedetta Ogundipe",
            "Cressida Halvorsen",
            "Dietlinde Mwangangi",
            "Evandro Szczepanski",
            "Frideswide Adebayo-Kerr",
            "Gottfried Amoako",
            "Hesper Lindqvist-Obi",
            "Ishbel Kuznetsova",
            "Jorund Makinde",
            "Kasimira Dunleavy",
            "Leopoldina Asamoah",
        ],
        "phrases": [
            lambda e, v: f"{v} carries the primary pager for {e}.",
            lambda e, v: f"Alarms raised by {e} wake {v} first.",
            lambda e, v: f"{up(e)}'s first on-call responder is {v}.",
        ],
        "questions": [
            lambda e: f"Who gets paged first when {e} breaks?",
            lambda e: f"Which engineer is first in line for incidents on {e}?",
        ],
    },
    "fallback_pager": {
        "values": [
            "Mechthild Oyebanji",
            "Norberto Sjostrand",
            "Oriana Thistlewood",
            "Pankratius Eze",
            "Quirina Vasilakis",
            "Reinhild Obuya",
            "Sigisbert Carrasco",
            "Theodolinda Bui",
            "Ulfric Nwankwo",
            "Vesna Ashcombe",
            "Wolfram Adjei-Baptiste",
            "Xanthe Mukherjee-Lowe",
        ],
        "phrases": [
            lambda e, v: f"{v} is the backup on-call for {e}.",
            lambda e, v: f"If the first page goes unanswered, alerts for {e} escalate to {v}.",
            lambda e, v: f"The second pager for {e} is held by {v}.",
        ],
        "questions": [
            lambda e: f"Who is called when the first responder for {e} does not react?",
            lambda e: f"Which person stands behind the on-call for {e}?",
        ],
    },
    "kms_alias": {
        "values": [
            "alias/kek-prod-07",
            "alias/kek-prod-08",
            "alias/kek-prod-11",
            "alias/kek-dr-07",
            "alias/data-key-a1",
            "alias/data-key-a2",
            "alias/data-key-b1",
            "alias/envelope-2027q1",
            "alias/envelope-2027q2",
            "alias/cmk-ops-3",
            "alias/cmk-ops-4",
            "alias/cmk-audit-1",
        ],  # fmt: skip
        "phrases": [
            lambda e, v: f"{up(e)} encrypts its secrets with the KMS key {v}.",
            lambda e, v: f"The KMS key {v} protects the stored secrets of {e}.",
            lambda e, v: f"Secrets at rest for {e} are wrapped by {v}.",
        ],
        "questions": [
            lambda e: f"Which master key seals the confidential data of {e}?",
            lambda e: f"What key alias does {e} rely on for encryption?",
        ],
    },
    "log_sink": {
        "values": [
            "ops.audit.v2",
            "ops.audit.v3",
            "ops.trace.raw",
            "ops.trace.sampled",
            "sec.events.pci",
            "sec.events.general",
            "app.logs.eu",
            "app.logs.eu-dr",
            "app.logs.nordics",
            "tel.frames.raw",
            "tel.frames.cooked",
            "gmp.audit.trail",
        ],  # fmt: skip
        "phrases": [
            lambda e, v: f"{up(e)} ships its logs to the Kafka topic {v}.",
            lambda e, v: f"Log lines from {e} end up on topic {v}.",
            lambda e, v: f"Topic {v} receives the log output of {e}.",
        ],
        "questions": [
            lambda e: f"Where does {e} stream its diagnostic output?",
            lambda e: f"Which Kafka stream collects what {e} prints?",
        ],
    },
    "clock_source": {
        "values": [
            "ntp1.dc-fra.internal",
            "ntp2.dc-fra.internal",
            "ptp-gm-01.lan",
            "ptp-gm-02.lan",
            "ntp-a.ops.local",
            "ntp-b.ops.local",
            "gps-clock-hall3",
            "gps-clock-hall4",
            "chrony-pool-eu",
            "chrony-pool-us",
            "ntp3.dc-ams.internal",
            "ntp4.dc-ams.internal",
        ],  # fmt: skip
        "phrases": [
            lambda e, v: f"{up(e)} syncs its clock against {v}.",
            lambda e, v: f"Time for {e} comes from {v}.",
            lambda e, v: f"{up(v)} is the time server that {e} follows.",
        ],
        "questions": [
            lambda e: f"Which source keeps the system time of {e} accurate?",
            lambda e: f"What does {e} use to stay synchronised?",
        ],
    },
    "drain_grace": {
        "values": [str(v) for v in (5, 10, 15, 20, 25, 30, 45, 60, 90, 120, 150, 300)],
        "phrases": [
            lambda e, v: (
                f"{up(e)} gets {v} seconds to drain in-flight requests before it is stopped."
            ),
            lambda e, v: f"On shutdown, {e} is allowed a {v}-second drain.",
            lambda e, v: (
                f"A {v}-second grace period is given to {e} to finish open work on restart."
            ),
        ],
        "questions": [
            lambda e: f"How long does {e} have to wrap up calls when it is taken down?",
            lambda e: f"What shutdown allowance does {e} receive?",
        ],
    },
    "release_train": {
        "values": [
            "RT-2027.03",
            "RT-2027.04",
            "RT-2027.05",
            "RT-2027.06",
            "RT-2027.07",
            "RT-2027.08",
            "RT-2027.09",
            "RT-2027.10",
            "RT-2027.11",
            "RT-2027.12",
            "RT-2027.13",
            "RT-2027.14",
        ],  # fmt: skip
        "phrases": [
            lambda e, v: f"{up(e)} ships on release train {v}.",
            lambda e, v: f"The next change to {e} rides train {v}.",
            lambda e, v: f"Release train {v} carries the build of {e}.",
        ],
        "questions": [
            lambda e: f"Which deployment wave is {e} scheduled on?",
            lambda e: f"On what train does new code for {e} go out?",
        ],
    },
}


# -- events --------------------------------------------------------------------------------------

EVENTS: dict[str, dict] = {
    "chargeback_batches": {
        "names": [
            "chargeback batch CBK-7741",
            "chargeback batch CBK-7742",
            "chargeback batch CBK-7748",
            "chargeback batch CBK-7749",
        ],  # fmt: skip
        "what": [
            "contained 312 disputes over a duplicated hotel charge",
            "was filed a day past the scheme deadline",
            "won back 88 % of the disputed amount",
            "was rejected because its reason codes were out of date",
        ],
        "phrases": [
            lambda n, a: f"In card operations, {n} {a}.",
            lambda n, a: f"The disputes team wrote that {n} {a}.",
        ],
        "questions": [
            lambda n: f"What came of {n}?",
            lambda n: f"How did {n} turn out for the issuer?",
        ],
    },
    "lift_inspections": {
        "names": [
            "lift inspection LI-0907",
            "lift inspection LI-0908",
            "lift inspection LI-0915",
            "lift inspection LI-0916",
        ],  # fmt: skip
        "what": [
            "found a worn sheave liner on tower 6",
            "cleared the chairlift for the opening weekend",
            "stopped the drag lift over a frayed haul rope",
            "was postponed because of gale-force winds",
        ],
        "phrases": [
            lambda n, a: f"On the mountain, {n} {a}.",
            lambda n, a: f"The lift engineer's log says {n} {a}.",
        ],
        "questions": [
            lambda n: f"What did {n} conclude?",
            lambda n: f"What was the finding of {n}?",
        ],
    },
    "model_cycles": {
        "names": [
            "the 00Z model cycle of 2027-01-14",
            "the 06Z model cycle of 2027-01-14",
            "the 12Z model cycle of 2027-01-15",
        ],  # fmt: skip
        "what": [
            "finished forty minutes late after a node failure",
            "missed the storm track by 120 kilometres",
            "was the first to assimilate the new radar data",
        ],
        "phrases": [
            lambda n, a: f"At the forecast office, {n} {a}.",
            lambda n, a: f"Duty forecasters noted that {n} {a}.",
        ],
        "questions": [lambda n: f"What happened during {n}?"],
    },
    "ground_passes": {
        "names": ["ground pass GP-48211", "ground pass GP-48212", "ground pass GP-48219"],
        "what": [
            "lost lock eleven seconds after acquisition",
            "downlinked 38 GB without a single frame error",
            "was skipped for a conflicting priority request",
        ],
        "phrases": [
            lambda n, a: f"The ground segment reports that {n} {a}.",
            lambda n, a: f"Per the station log, {n} {a}.",
        ],
        "questions": [lambda n: f"How did {n} go?"],
    },
    "batch_reviews": {
        "names": [
            "batch record review BRR-5502",
            "batch record review BRR-5503",
            "batch record review BRR-5510",
        ],  # fmt: skip
        "what": [
            "found a missing second signature on the granulation step",
            "released the lot to packaging",
            "quarantined the batch over a humidity excursion",
        ],
        "phrases": [
            lambda n, a: f"Quality assurance says {n} {a}.",
            lambda n, a: f"At the tablet plant, {n} {a}.",
        ],
        "questions": [lambda n: f"What was decided in {n}?"],
    },
    "gate_openings": {
        "names": ["gate opening GO-2219", "gate opening GO-2220", "gate opening GO-2226"],
        "what": [
            "admitted 41,000 fans in under an hour",
            "was delayed when the scanners rejected mobile tickets",
            "let the away section in twenty minutes early",
        ],
        "phrases": [
            lambda n, a: f"At the stadium, {n} {a}.",
            lambda n, a: f"The venue control room logged that {n} {a}.",
        ],
        "questions": [lambda n: f"What occurred at {n}?"],
    },
    "rate_pushes": {
        "names": ["rate push RP-6630", "rate push RP-6631", "rate push RP-6637"],
        "what": [
            "sent suite prices to the booking sites in the wrong currency",
            "closed out Saturday on every channel after a sell-out",
            "timed out for the two airport properties",
        ],
        "phrases": [
            lambda n, a: f"The revenue desk saw that {n} {a}.",
            lambda n, a: f"Distribution logs show {n} {a}.",
        ],
        "questions": [lambda n: f"What is recorded about {n}?"],
    },
}


# -- people --------------------------------------------------------------------------------------

PEOPLE = [
    "Wendelgard Okparaeke",
    "Gaudioso Haavisto",
    "Hiltrud Sandoval-Nkemelu",
    "Ingvild Ramaswamy",
    "Thibaut Ogunleye-Strand",
    "Marisabel Kiplagat",
    "Walburga Bramwell",
    "Hjalmar Chukwuemeka",
    "Zenaida Fairclough",
    "Anshelm Tuilagi",
    "Rosalba Ekstrom-Bello",
    "Torkild Oduro-Vasquez",
]
PERSON_ATTRS: dict[str, dict] = {
    "carpool_mate": {
        "values": [
            "Aurelio Banerjee-Holt",
            "Clothilde Mensah",
            "Eustachius Virtanen",
            "Gwendolen Achterhof",
            "Ignaz Obeng-Larsen",
            "Liesel Carvalho-Wynn",
            "Nikodem Abernathy",
            "Philippina Olusanya",
        ],
        "phrases": [
            lambda p, v: f"{p} shares a car to the office with {v}.",
            lambda p, v: f"{v} gives {p} a lift in most mornings.",
        ],
        "questions": [lambda p: f"Who does {p} ride to work with?"],
    },
    "desk_plant": {
        "values": [
            "a fiddle-leaf fig",
            "a snake plant",
            "a bonsai juniper",
            "a golden pothos",
            "a peace lily",
            "a string-of-pearls succulent",
            "a Boston fern",
            "a dwarf lemon tree",
        ],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} keeps {v} by the monitor.",
            lambda p, v: f"Next to {p}'s screen grows {v}.",
        ],
        "questions": [lambda p: f"What greenery sits at the workstation of {p}?"],
    },
    "lunch_spot": {
        "values": [
            "the pho counter on Weaver Lane",
            "the falafel van by the car park",
            "the canteen salad bar",
            "the ramen bar across the square",
            "the Georgian bakery on Mill Street",
            "the food hall's taco stand",
            "the Sri Lankan kitchen near the station",
            "the sandwich shop under the bridge",
        ],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} eats lunch at {v} most days.",
            lambda p, v: f"Around noon you will find {p} at {v}.",
        ],
        "questions": [lambda p: f"Where does {p} usually go for a midday meal?"],
    },
    "wristwatch": {
        "values": [
            "a Casio F-91W",
            "a Seiko diver",
            "an Apple Watch",
            "a Garmin Forerunner",
            "a Swatch Skin",
            "a Timex Weekender",
            "a Withings ScanWatch",
            "a vintage Omega Seamaster",
        ],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} wears {v}.",
            lambda p, v: f"On the wrist of {p} is {v}.",
        ],
        "questions": [lambda p: f"What timepiece does {p} have on?"],
    },
    "ringtone": {
        "values": [
            "the old Nokia tune",
            "a marimba loop",
            "a rubber-duck quack",
            "a spy-film theme",
            "a vintage telephone bell",
            "blackbird song",
            "a harp glissando",
            "a steel-drum riff",
        ],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p}'s phone rings with {v}.",
            lambda p, v: f"When someone calls {p}, the handset plays {v}.",
        ],
        "questions": [lambda p: f"What sound does the mobile of {p} make for an incoming call?"],
    },
    "garden_crop": {
        "values": [
            "heirloom tomatoes",
            "rhubarb",
            "runner beans",
            "chillies",
            "strawberries",
            "courgettes",
            "garlic",
            "sweetcorn",
        ],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} grows {v} at the allotment.",
            lambda p, v: f"The allotment plot of {p} is full of {v}.",
        ],
        "questions": [lambda p: f"What comes out of {p}'s vegetable patch?"],
    },
    "evening_class": {
        "values": [
            "pottery",
            "Mandarin for beginners",
            "life drawing",
            "salsa",
            "woodturning",
            "Italian cooking",
            "improv theatre",
            "astronomy",
        ],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} has signed up for an evening class in {v}.",
            lambda p, v: f"Twice a month after work, {p} studies {v} at the adult college.",
        ],
        "questions": [lambda p: f"What does {p} learn after hours?"],
    },
    "choir_voice": {
        "values": [
            "soprano",
            "alto",
            "tenor",
            "bass",
            "baritone",
            "mezzo-soprano",
            "countertenor",
            "second tenor",
        ],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} sings {v} in the staff choir.",
            lambda p, v: f"In the company choir, {p} takes the {v} line.",
        ],
        "questions": [lambda p: f"Which vocal part is {p} in at rehearsal?"],
    },
}
PersonUpdate = Callable[[str, str, str], str]  # (person, old, new) -> text
# One real change per person, in PEOPLE's order: (attribute, wording). With a change cue and
# without one (a plain new value, a value only, a narrative, a seasonal change, a handover).
PERSON_CHANGES: list[tuple[str, PersonUpdate]] = [
    ("lunch_spot", lambda p, o, n: f"{p} has stopped going to {o}; lunch is at {n} now."),
    ("wristwatch", lambda p, o, n: f"{p} gave {o} to a nephew and wears {n} instead."),
    ("desk_plant", lambda p, o, n: f"{p}'s desk holds {n}."),
    ("carpool_mate", lambda p, o, n: f"{o} moved away, so {p} rides in with {n}."),
    ("ringtone", lambda p, o, n: f"Calls to {p} sound like {n} since the phone upgrade."),
    ("garden_crop", lambda p, o, n: f"This season the allotment of {p} is given over to {n}."),
    ("evening_class", lambda p, o, n: f"{p} finished the {o} course and enrolled in {n}."),
    ("choir_voice", lambda p, o, n: f"The choir director moved {p} from {o} to {n}."),
    ("lunch_spot", lambda p, o, n: f"Noon for {p}: {n}."),
    ("wristwatch", lambda p, o, n: f"{p} lost {o} on a hike; the replacement is {n}."),
    (
        "desk_plant",
        lambda p, o, n: f"{up(o)} on {p}'s desk died over the holidays and {n} took its place.",
    ),
    ("carpool_mate", lambda p, o, n: f"{p} carpools with {n}."),
]


# -- mixed ---------------------------------------------------------------------------------------

MIXED_PROJECTS: dict[str, tuple[list[str], str]] = {
    "cardvault": (
        [
            "issuer-auth-gw-blue",
            "issuer-auth-gw-green",
            "the PAN tokeniser (vault A)",
            "the PAN tokeniser (vault B)",
            "the 3-D Secure challenge server",
            "the chargeback case tracker",
            "the BIN table loader",
            "the clearing file builder (Visa)",
            "the clearing file builder (Mastercard)",
        ],
        "Thaddea Rosenblum-Achebe",
    ),
    "slopeops": (
        [
            "the gondola drive monitor (lower terminal)",
            "the gondola drive monitor (upper terminal)",
            "the snowmaking compressor scheduler",
            "the avalanche bulletin publisher",
            "liftpass-rfid-hub-1",
            "liftpass-rfid-hub-2",
            "the grooming fleet tracker",
            "the piste status board feed",
            "the ski-school booking API",
        ],
        "Osmund Barraclough-Nwosu",
    ),
    "orbitpass": (
        [
            "the pass predictor (LEO fleet)",
            "the pass predictor (GEO fleet)",
            "tlm-decoder-xband-a",
            "tlm-decoder-xband-b",
            "the command uplink gate",
            "the antenna slew planner",
            "the ephemeris importer",
            "the downlink archive writer",
            "the spectrum licence tracker",
        ],
        "Ermengarde Quaresma",
    ),
}
MIXED_ATTRS = ["pool_ceiling", "drain_grace", "primary_pager", "release_train", "log_sink"]
MIXED_PERSON_ATTRS = [
    "lunch_spot", "wristwatch", "ringtone", "garden_crop", "evening_class", "choir_voice"
]  # fmt: skip
# Which attribute of the project's person changes, and how it is said (the others stay true).
MIXED_PERSON_CHANGE: dict[str, tuple[str, PersonUpdate]] = {
    "cardvault": ("ringtone", lambda p, o, n: f"{p} swapped {o} for {n} as the ringtone."),
    "slopeops": ("garden_crop", lambda p, o, n: f"{p} dug up the {o}; the plot has {n} this year."),
    "orbitpass": ("choir_voice", lambda p, o, n: f"{p} sings {n} in the staff choir."),
}
MIXED_UPDATES_EACH = 10  # component updates per mixed project (then one of its person)
MIXED_RESTATED = 8  # component restatements per mixed project (then one of its person)
# How an attribute is named and how its value reads inside an update sentence.
NOUN = {
    "pool_ceiling": ("the connection cap", lambda v: f"{v} connections"),
    "drain_grace": ("the drain window", lambda v: f"{v} seconds"),
    "primary_pager": ("the first responder", lambda v: v),
    "release_train": ("the release train", lambda v: v),
    "log_sink": ("the log topic", lambda v: v),
}
Update = Callable[[str, str, str, str], str]  # (entity, noun, old, new) -> text


def _bare(a: str) -> str:
    return a.removeprefix("the ")


# Real-update wordings no other part has; each is used once, in turn, and past the end of the
# list an update is a plain new value in a fact phrasing. With cues and without (a value only,
# a handover note, a struck-out value, an announced switch, past vs current, an override).
UPDATES: list[Update] = [
    lambda e, a, o, n: f"{up(e)} has {n} as {a} from this week on.",
    lambda e, a, o, n: f"Heads-up: {a} of {e} goes from {o} to {n}.",
    lambda e, a, o, n: f"{up(e)} swapped {o} out; {a} is {n}.",
    lambda e, a, o, n: f"Per the revised runbook, {e} uses {n} for {a}.",
    lambda e, a, o, n: f"{up(a)} of {e} is {n}, effective immediately.",
    lambda e, a, o, n: f"{up(e)} retired {o} as {a} in favour of {n}.",
    lambda e, a, o, n: f"Ops ticket closed: {a} for {e} set to {n}.",
    lambda e, a, o, n: f"What used to be {o} for {e} is {n} today ({_bare(a)}).",
    lambda e, a, o, n: f"{up(e)} had {o} as {a} until the incident review; it has {n} now.",
    lambda e, a, o, n: f"Following the vendor's advice, {a} of {e} became {n}.",
    lambda e, a, o, n: f"{up(a)} for {e}: {o} struck out, {n} written in.",
    lambda e, a, o, n: f"{up(e)} is on {n} for {a} after last night's change window.",
    lambda e, a, o, n: f"Service catalogue entry amended: {e} lists {n} as {a}.",
    lambda e, a, o, n: f"{up(o)} no longer applies to {e}; the team moved {a} to {n}.",
    lambda e, a, o, n: f"For {e}, {a} has stood at {n} since the migration.",
    lambda e, a, o, n: f"The platform group overrode {a} of {e} with {n}.",
    lambda e, a, o, n: f"{up(e)} carries {n} as {a} after {o} was rolled back.",
    lambda e, a, o, n: f"We reset {a} on {e} to {n} yesterday; {o} caused trouble.",
    lambda e, a, o, n: f"{up(a)} on {e} reads {n} in the new config (previously {o}).",
    lambda e, a, o, n: f"Handover note: {e} now works with {n} for {a}.",
    lambda e, a, o, n: f"{up(e)} left {o} behind when {a} was changed to {n}.",
    lambda e, a, o, n: f"The audit made us change {a} of {e} to {n}.",
    lambda e, a, o, n: f"{up(a)} of {e} used to be {o}, but it is {n} from now on.",
    lambda e, a, o, n: f"As of the latest deploy, {e} operates on {n} for {a}.",
    lambda e, a, o, n: f"Not {o} any longer: {a} of {e} is {n}.",
    lambda e, a, o, n: f"{up(e)} was re-pointed to {n} for {a}.",
    lambda e, a, o, n: f"Final word from the architects: {a} for {e} is {n}, replacing {o}.",
]
RESTATE: dict[str, Callable[[str, str], str]] = {
    "pool_ceiling": lambda e, v: f"{up(e)} tops out at {v} connections to the database.",
    "drain_grace": lambda e, v: f"Stopping {e} leaves it {v} seconds to finish requests in flight.",
    "primary_pager": lambda e, v: f"When {e} alarms, {v} is the one who answers first.",
    "release_train": lambda e, v: f"Changes to {e} go out with {v}.",
    "log_sink": lambda e, v: f"The logs of {e} are published to {v}.",
    "lunch_spot": lambda p, v: f"Lunch for {p} is usually at {v}.",
    "wristwatch": lambda p, v: f"{p} checks the time on {v}.",
    "ringtone": lambda p, v: f"An incoming call for {p} plays {v}.",
    "garden_crop": lambda p, v: f"{p} harvests {v} from the allotment.",
    "evening_class": lambda p, v: f"{p} spends an evening now and then learning {v}.",
    "choir_voice": lambda p, v: f"{p} is in the {v} section of the staff choir.",
}
MIXED_EVENTS: dict[str, list[tuple[str, str]]] = {
    "cardvault": [
        (
            "Incident CARDINC-412 declined contactless payments at 900 merchants for twelve minutes.",
            "What did shoppers experience during CARDINC-412?",
        ),
        (
            "Incident CARDINC-417 sent duplicate authorisation advices to the core ledger.",
            "What was doubled in CARDINC-417?",
        ),
        (
            "Scheme mandate SM-2027-09 requires new decline codes for recurring payments.",
            "What must change for subscriptions because of SM-2027-09?",
        ),
        (
            "Scheme mandate SM-2027-11 ends magnetic-stripe fallback at fuel pumps.",
            "Which old card technology does SM-2027-11 retire at petrol stations?",
        ),
        (
            "Key ceremony KC-31 rotated the zone master key with three custodians present.",
            "What cryptographic material was renewed at KC-31?",
        ),
        (
            "Key ceremony KC-32 was stopped when a smart card failed its PIN check.",
            "Why was KC-32 halted?",
        ),
        (
            "PCI assessment PCI-QSA-2027 found two unencrypted log files on a jump host.",
            "What did the auditors find during PCI-QSA-2027?",
        ),
        (
            "Release AUTH 14.2 added network tokens for wallet payments.",
            "What did version AUTH 14.2 bring for phone wallets?",
        ),
        (
            "Release AUTH 14.3 fixed currency rounding for Japanese yen.",
            "Which currency bug went away in AUTH 14.3?",
        ),
        (
            "Fraud rule FR-880 blocks card-not-present spends above 3,000 euros at night.",
            "What does FR-880 stop after dark?",
        ),
        (
            "Fraud rule FR-884 flags ten small online purchases inside one minute.",
            "What buying pattern triggers FR-884?",
        ),
        (
            "Clearing cycle CC-0413 reached the scheme two hours after cut-off.",
            "How late was CC-0413?",
        ),
        (
            "BIN update BU-77 loaded 1,400 new ranges from the card scheme.",
            "How many ranges arrived with BU-77?",
        ),
        (
            "Sprint CV-21 retro agreed to page the fraud analyst for rule outages.",
            "Who will be alerted about rule failures after the CV-21 retrospective?",
        ),
    ],
    "slopeops": [
        (
            "Lift stop LS-118 left 60 skiers on the gondola for half an hour.",
            "How long were riders stuck during LS-118?",
        ),
        (
            "Lift stop LS-121 was caused by a tripped wind sensor on tower 9.",
            "What triggered LS-121?",
        ),
        (
            "Avalanche bulletin AB-2027-02-03 raised the danger level to 4 above 2,200 metres.",
            "How dangerous was the snowpack according to AB-2027-02-03?",
        ),
        (
            "Avalanche bulletin AB-2027-02-04 lowered the danger to 3 after the crust froze.",
            "Why did AB-2027-02-04 reduce the risk rating?",
        ),
        (
            "Snowmaking night SN-14 covered the beginners' slope with 40 centimetres.",
            "How deep was the new base after SN-14?",
        ),
        (
            "Snowmaking night SN-15 was cut short when the reservoir ran low.",
            "What ended SN-15 early?",
        ),
        (
            "Grooming shift GS-203 lost one snowcat to a hydraulic leak.",
            "What went wrong with a machine in GS-203?",
        ),
        (
            "Season pass sale SP-2028 sold 18,000 passes in its first week.",
            "How many passes went out in the opening week of SP-2028?",
        ),
        (
            "Ski-school release 3.1.0 added private lessons for snowboarders.",
            "What booking option arrived with version 3.1.0?",
        ),
        (
            "Ski-school release 3.1.1 fixed double bookings of the same instructor.",
            "Which scheduling bug was removed in 3.1.1?",
        ),
        (
            "Rescue drill RD-6 evacuated the chairlift with ropes in 55 minutes.",
            "How quickly was the lift cleared during RD-6?",
        ),
        (
            "Ticket RFID-390 reports gate readers rejecting wet passes.",
            "What reading problem is RFID-390 about?",
        ),
        (
            "Ticket RFID-395 asks for a second reader at the nursery slope.",
            "What extra hardware does RFID-395 request?",
        ),
        (
            "Board meeting BM-2027-12 approved a new six-seater on the north face.",
            "What lift did the directors sign off in BM-2027-12?",
        ),
    ],
    "orbitpass": [
        (
            "Anomaly ANOM-5031 put the imaging satellite into safe mode over the Pacific.",
            "What state did the spacecraft enter in ANOM-5031?",
        ),
        (
            "Anomaly ANOM-5038 corrupted one star-tracker image per orbit.",
            "Which sensor misbehaved during ANOM-5038?",
        ),
        (
            "Conjunction warning CW-2207 forced a 0.3 metre-per-second avoidance burn.",
            "What manoeuvre followed CW-2207?",
        ),
        (
            "Conjunction warning CW-2210 was dismissed after refined tracking data arrived.",
            "Why was no action taken on CW-2210?",
        ),
        (
            "Launch campaign LC-09 added four cubesats to the tracked fleet.",
            "How many spacecraft joined the fleet through LC-09?",
        ),
        (
            "Station outage SO-77 took the southern antenna offline for a gearbox swap.",
            "Why was the southern dish unavailable during SO-77?",
        ),
        (
            "Station outage SO-79 was a cut fibre between the dish and the operations centre.",
            "What broke the link in SO-79?",
        ),
        (
            "Software drop GSW 8.6 added Ka-band scheduling to the planner.",
            "Which frequency band became plannable with GSW 8.6?",
        ),
        (
            "Software drop GSW 8.7 fixed leap-second handling in the decoder.",
            "What timing defect did GSW 8.7 repair?",
        ),
        (
            "Licence filing LF-2027-4 asked the regulator for a second uplink frequency.",
            "What was requested in LF-2027-4?",
        ),
        (
            "Orbit raise OR-12 lifted the radar satellite by 6 kilometres.",
            "By how much did OR-12 change the altitude?",
        ),
        (
            "Customer task CT-6601 delivered flood images of the river delta within three hours.",
            "What imagery did CT-6601 provide, and how fast?",
        ),
        (
            "Customer task CT-6604 was cancelled because clouds covered the target.",
            "Why did CT-6604 not go ahead?",
        ),
        (
            "Sprint OP-44 review showed live pass timelines in the operator console.",
            "What display was demonstrated at the OP-44 review?",
        ),
    ],
}


# -- hand-written update pairs (memory_updates.jsonl's schema) -----------------------------------

# project -> (what it is about, background facts as (topic, text)); an item's context is 2-5
# of its project's facts whose topic differs from the item's.
PROJECTS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "swipecore": (
        "bank card processing: authorisation switch, tokenisation vault, HSMs, disputes",
        [
            ("auth", "Card authorisations are routed by an in-house switch."),
            ("vault", "Card numbers are replaced by tokens before they reach the app tier."),
            ("hsm", "PIN blocks are translated inside hardware security modules."),
            ("people", "Radegund Achterberg-Mensah is head of card processing."),
            ("disputes", "Cardholder disputes are worked in a case tool."),
            ("clearing", "Clearing files go to the card schemes every night."),
        ],
    ),
    "lecternly": (
        "university learning management system: course sites, submissions, originality checks, gradebook",
        [
            ("courses", "Every module has a course site in the learning platform."),
            ("submit", "Coursework is handed in online."),
            ("origin", "Essays are run through an originality checker."),
            ("people", "Dr. Ottavio Nwachukwu-Berg chairs the digital learning board."),
            ("grades", "Marks flow from the gradebook into the student record."),
            ("video", "Lectures are recorded automatically in equipped rooms."),
        ],
    ),
    "roomlatch": (
        "hotel chain property management: reservations, channel manager, key cards, housekeeping",
        [
            ("resv", "Bookings from all channels land in one reservation system."),
            (
                "channel",
                "Prices and availability are pushed to booking sites by a channel manager.",
            ),
            ("keys", "Guests open their rooms with encoded key cards."),
            ("people", "Cosima Halberstadt-Oni runs hotel technology."),
            ("hk", "Housekeepers see their room lists on a phone app."),
            ("billing", "Folios are settled at check-out."),
        ],
    ),
    "pistelink": (
        "ski resort operations: lift telemetry, RFID passes, snowmaking, avalanche control",
        [
            ("lifts", "Every lift reports speed and load to a central console."),
            ("passes", "Skiers pass through RFID gates at each lift."),
            ("snow", "Artificial snow is made at night when it is cold enough."),
            ("people", "Ruprecht Anyanwu-Lind is the mountain operations director."),
            ("avalanche", "Avalanche danger is published every morning."),
            ("grooming", "Slopes are groomed after closing."),
        ],
    ),
    "batchwell": (
        "pharmaceutical manufacturing execution system: electronic batch records, cleanroom sensors, serialisation",
        [
            ("ebr", "Batch records are kept electronically."),
            ("cleanroom", "Particle counters monitor the filling rooms."),
            ("serial", "Every pack carries a unique serial number."),
            ("people", "Dr. Ilsabe Koroma-Whitlock is the qualified person for releases."),
            ("weigh", "Ingredients are weighed at a dispensing booth."),
            ("deviation", "Deviations are logged in the quality system."),
        ],
    ),
    "turnstyle": (
        "stadium ticketing and venue access: seat maps, mobile tickets, turnstiles, resale",
        [
            ("tickets", "Fans receive their tickets in the club app."),
            ("gates", "Turnstiles scan a barcode on every ticket."),
            ("resale", "Season-ticket holders can resell seats they cannot use."),
            ("people", "Bartholdy Oyedele-Sand is the stadium's head of ticketing."),
            ("seats", "The seat map is drawn from the venue's CAD plans."),
            ("hospitality", "Corporate boxes are sold as a separate product."),
        ],
    ),
    "isobarix": (
        "national weather service forecast pipeline: observation ingest, model runs, warnings",
        [
            ("obs", "Surface observations arrive every ten minutes."),
            ("nwp", "The numerical model runs four times a day."),
            ("warn", "Severe weather warnings are issued by duty forecasters."),
            ("people", "Dr. Hyacinthe Morrow-Adeyemi is chief forecaster."),
            ("radar", "Radar images are composited across the country."),
            ("archive", "Model output is archived on tape."),
        ],
    ),
    "groundloop": (
        "satellite ground station: pass scheduling, telemetry decoding, command uplink, archives",
        [
            ("sched", "Antenna time is booked by a pass scheduler."),
            ("tlm", "Telemetry frames are decoded as they arrive."),
            ("uplink", "Commands are checked by a second operator before uplink."),
            ("people", "Sigbritt Afolabi-Whitcombe is the station manager."),
            ("archive", "Raw downlink data is kept in an object store."),
            ("antenna", "The site has two steerable dishes."),
        ],
    ),
}

# (project, topic, style, old, new, question); topic's first dotted part keeps context apart.
UPDATE_ITEMS: list[tuple[str, str, str, str, str, str]] = [
    (
        "swipecore",
        "auth.timeout",
        "cue",
        "The switch waits 8 seconds for an issuer reply before standing in.",
        "After the latency project, the switch gives issuers only 5 seconds before standing in.",
        "How long does the authorisation router wait on the bank before it decides itself?",
    ),
    (
        "swipecore",
        "people.head",
        "cue",
        "Radegund Achterberg-Mensah is head of card processing.",
        "Radegund Achterberg-Mensah moved to the risk office, and Cornelius Ebbesen took over card processing.",
        "Who leads the card processing group?",
    ),
    (
        "swipecore",
        "hsm.model",
        "plain",
        "PIN translation runs on Thales payShield 9000 units.",
        "PIN translation runs on Thales payShield 10K units.",
        "Which hardware model performs PIN translation?",
    ),
    (
        "swipecore",
        "vault.format",
        "value_only",
        "Tokens keep the last 4 digits of the card number.",
        "Token format: last 4 and first 6 digits preserved.",
        "Which digits of the original card survive tokenisation?",
    ),
    (
        "swipecore",
        "disputes.tool",
        "cue",
        "Disputes are worked in a Salesforce case queue.",
        "The Salesforce queue for disputes was shut down when the scheme's own case portal went live.",
        "Where do analysts handle cardholder claims?",
    ),
    (
        "swipecore",
        "clearing.cutoff",
        "plain",
        "The nightly clearing cut-off is 22:00 CET.",
        "The nightly clearing cut-off is 23:30 CET.",
        "By what time must transactions be in the scheme file each night?",
    ),
    (
        "lecternly",
        "submit.limit",
        "cue",
        "Uploads to coursework drop boxes are limited to 50 MB.",
        "Following complaints from the architecture school, coursework uploads may now be 500 MB.",
        "How big may a handed-in file be?",
    ),
    (
        "lecternly",
        "people.board",
        "plain",
        "Dr. Ottavio Nwachukwu-Berg chairs the digital learning board.",
        "Dr. Margarethe Solberg-Osei chairs the digital learning board.",
        "Who presides over the committee for online teaching?",
    ),
    (
        "lecternly",
        "origin.vendor",
        "cue",
        "The originality checker is Turnitin.",
        "The university let its Turnitin contract lapse and checks essays with Ouriginal.",
        "Which service compares essays for plagiarism?",
    ),
    (
        "lecternly",
        "video.retention",
        "value_only",
        "Lecture recordings are kept for 2 years.",
        "Recording retention: 4 years.",
        "How long are recorded lectures available?",
    ),
    (
        "lecternly",
        "courses.rollover",
        "cue",
        "Course sites are rolled over to the new year in August.",
        "Course sites are rolled over in July since the calendar change.",
        "When are module pages copied into the next academic year?",
    ),
    (
        "roomlatch",
        "keys.vendor",
        "cue",
        "Key cards are encoded with ASSA ABLOY VingCard locks.",
        "Mobile keys from dormakaba replaced the VingCard key cards during the refurbishment.",
        "How do guests unlock their rooms?",
    ),
    (
        "roomlatch",
        "people.tech",
        "cue",
        "Cosima Halberstadt-Oni runs hotel technology.",
        "Hotel technology is in the hands of Leander Mukasa-Holm after Cosima Halberstadt-Oni left for a rival group.",
        "Who is responsible for the hotels' IT?",
    ),
    (
        "roomlatch",
        "channel.interval",
        "plain",
        "Availability is pushed to booking sites every 15 minutes.",
        "Availability is pushed to booking sites every 2 minutes.",
        "How often do the travel portals learn how many rooms are free?",
    ),
    (
        "roomlatch",
        "billing.currency",
        "value_only",
        "Folios are settled in the guest's home currency.",
        "Folio currency: the hotel's local currency only.",
        "In what money is the final bill charged?",
    ),
    (
        "roomlatch",
        "hk.app",
        "cue",
        "Housekeepers use an app called Optii.",
        "Housekeepers were moved off Optii onto Flexkeeping's mobile app.",
        "Which tool shows cleaners the rooms to do?",
    ),
    (
        "pistelink",
        "lifts.speed",
        "cue",
        "The main gondola runs at 5 metres per second.",
        "With the new drive installed, the main gondola runs at 6 metres per second.",
        "How fast does the primary cable car travel?",
    ),
    (
        "pistelink",
        "passes.price",
        "plain",
        "A one-day adult pass costs 62 euros.",
        "A one-day adult pass costs 69 euros.",
        "What does a grown-up pay to ski for a day?",
    ),
    (
        "pistelink",
        "people.director",
        "cue",
        "Ruprecht Anyanwu-Lind is the mountain operations director.",
        "Ruprecht Anyanwu-Lind stepped back at the end of the season; Dagmar Olawale-Frost directs mountain operations.",
        "Who is in charge of running the mountain?",
    ),
    (
        "pistelink",
        "snow.temp",
        "value_only",
        "Snow guns start when the wet-bulb temperature drops below -2 degrees.",
        "Snowmaking start threshold: -3 degrees wet-bulb.",
        "How cold must it be before artificial snow is produced?",
    ),
    (
        "pistelink",
        "avalanche.time",
        "cue",
        "The avalanche bulletin is published at 17:00 the day before.",
        "The avalanche bulletin comes out at 07:30 on the day itself now.",
        "When does the snow-safety report appear?",
    ),
    (
        "batchwell",
        "cleanroom.limit",
        "cue",
        "The filling room alarms at 3,520 particles per cubic metre.",
        "Since the annex revision, the filling room alarms at 2,900 particles per cubic metre.",
        "What particle count sets off the alarm in the sterile area?",
    ),
    (
        "batchwell",
        "people.qp",
        "plain",
        "Dr. Ilsabe Koroma-Whitlock is the qualified person for releases.",
        "Dr. Ferdinand Achterhuis-Bello is the qualified person for releases.",
        "Who signs off batches for the market?",
    ),
    (
        "batchwell",
        "serial.standard",
        "cue",
        "Packs are serialised to the EU FMD standard only.",
        "Packs carry DSCSA serialisation as well now that the plant ships to the US.",
        "Which traceability rules do our pack codes follow?",
    ),
    (
        "batchwell",
        "weigh.tolerance",
        "value_only",
        "Active ingredients must be weighed within 0.5 % of target.",
        "Dispensing tolerance for actives: 0.2 %.",
        "How close to the recipe must the drug substance be weighed?",
    ),
    (
        "batchwell",
        "deviation.system",
        "cue",
        "Deviations are logged in TrackWise.",
        "Deviations went into TrackWise until March; Veeva Vault QMS holds them today.",
        "Where are quality incidents recorded?",
    ),
    (
        "turnstyle",
        "gates.throughput",
        "cue",
        "Each turnstile admits about 600 fans per hour.",
        "The new optical readers pushed each turnstile to about 850 fans per hour.",
        "How many spectators can one entry barrier let through hourly?",
    ),
    (
        "turnstyle",
        "people.ticketing",
        "cue",
        "Bartholdy Oyedele-Sand is the stadium's head of ticketing.",
        "The stadium's head of ticketing is Henrikka Lindahl-Ofori, succeeding Bartholdy Oyedele-Sand.",
        "Who runs ticket sales at the ground?",
    ),
    (
        "turnstyle",
        "resale.fee",
        "plain",
        "The resale platform keeps a 10 % fee.",
        "The resale platform keeps a 6 % fee.",
        "What cut does the club take when a seat is sold on?",
    ),
    (
        "turnstyle",
        "tickets.format",
        "value_only",
        "Mobile tickets show a static QR code.",
        "Mobile ticket barcode: rotating code, refreshed every 15 seconds.",
        "What kind of code is on a phone ticket?",
    ),
    (
        "turnstyle",
        "hospitality.system",
        "cue",
        "Corporate boxes are sold through a spreadsheet kept by the sales team.",
        "The sales team's spreadsheet for boxes was retired once Ticketmaster Hospitality took over.",
        "How are executive boxes booked?",
    ),
    (
        "isobarix",
        "nwp.resolution",
        "cue",
        "The national model runs on a 2.5 km grid.",
        "Since the supercomputer upgrade, the national model runs on a 1.3 km grid.",
        "How fine is the mesh of the country's forecast model?",
    ),
    (
        "isobarix",
        "people.chief",
        "plain",
        "Dr. Hyacinthe Morrow-Adeyemi is chief forecaster.",
        "Dr. Theodric Balogun-Ashby is chief forecaster.",
        "Who leads the forecasting staff?",
    ),
    (
        "isobarix",
        "warn.channel",
        "cue",
        "Warnings reach the public through a text-message service.",
        "Cell broadcast replaced the text-message service for public warnings.",
        "How are people alerted to dangerous weather?",
    ),
    (
        "isobarix",
        "obs.interval",
        "value_only",
        "Surface stations report every 10 minutes.",
        "Station reporting interval: 1 minute.",
        "How frequently do ground weather stations send readings?",
    ),
    (
        "isobarix",
        "archive.medium",
        "cue",
        "Model output is archived on LTO-7 tape.",
        "Model output goes to cloud object storage; the LTO-7 library was decommissioned.",
        "Where is old forecast output stored?",
    ),
    (
        "groundloop",
        "sched.horizon",
        "cue",
        "Passes are scheduled 48 hours ahead.",
        "Passes are now scheduled a full week ahead.",
        "How far in advance is antenna time planned?",
    ),
    (
        "groundloop",
        "people.manager",
        "cue",
        "Sigbritt Afolabi-Whitcombe is the station manager.",
        "Sigbritt Afolabi-Whitcombe handed the station to Pelagius Pemberton-Eze at the end of the quarter.",
        "Who manages the ground station?",
    ),
    (
        "groundloop",
        "tlm.rate",
        "plain",
        "The X-band downlink runs at 150 Mbit/s.",
        "The X-band downlink runs at 400 Mbit/s.",
        "What is the data rate of the high-speed downlink?",
    ),
    (
        "groundloop",
        "uplink.check",
        "cue",
        "Every command is checked by a second operator before uplink.",
        "Routine commands skip the second operator since the automated validator was certified; only critical ones are double-checked.",
        "What review must a routine telecommand pass before it is sent?",
    ),
    (
        "groundloop",
        "archive.retention",
        "value_only",
        "Raw downlink data is kept for 90 days.",
        "Raw data retention: 30 days.",
        "How long is unprocessed satellite data stored?",
    ),
    (
        "groundloop",
        "antenna.count",
        "plain",
        "The site has two steerable dishes.",
        "The site has three steerable dishes.",
        "How many movable antennas does the station operate?",
    ),
]


# (project, topic, old, new, question about old, question about new): both stay true.
NON_UPDATE_ITEMS: list[tuple[str, str, str, str, str, str]] = [
    (
        "swipecore",
        "auth.region",
        "European authorisations are switched in the Frankfurt data centre.",
        "Asia-Pacific authorisations are switched in the Singapore data centre.",
        "Where are card approvals for Europe routed?",
        "Which site handles approvals for cards used in Asia?",
    ),
    (
        "swipecore",
        "hsm.pool",
        "The debit HSM pool has 6 units.",
        "The credit HSM pool has 4 units.",
        "How many security modules serve debit cards?",
        "How many security modules are dedicated to credit cards?",
    ),
    (
        "swipecore",
        "people.teams",
        "Gunther Abiodun-Kesh leads the authorisation team.",
        "Marietta Solheim-Obi leads the disputes team.",
        "Who heads the people who run transaction approvals?",
        "Who is in charge of chargeback handling staff?",
    ),
    (
        "swipecore",
        "vault.tier",
        "Consumer card tokens are stored in vault tier 1.",
        "Corporate card tokens are stored in vault tier 2.",
        "Which vault level holds tokens for personal cards?",
        "Where are business card tokens kept?",
    ),
    (
        "swipecore",
        "clearing.scheme",
        "Visa clearing files are sent over Visa's EDS link.",
        "Mastercard clearing files are sent over the MIP.",
        "How does the nightly file reach Visa?",
        "Which connection carries settlement data to Mastercard?",
    ),
    (
        "lecternly",
        "courses.faculty",
        "Medicine course sites use the clinical skills template.",
        "Law course sites use the moot court template.",
        "What layout do doctors-in-training see on their module pages?",
        "Which page design do legal studies modules get?",
    ),
    (
        "lecternly",
        "submit.deadline",
        "Undergraduate coursework closes at 12:00 noon on the due date.",
        "Postgraduate dissertations close at 16:00 on the due date.",
        "At what hour does bachelor coursework stop being accepted?",
        "When is the cut-off for master's theses on hand-in day?",
    ),
    (
        "lecternly",
        "people.support",
        "Aldegonde Kimathi supports staff using the gradebook.",
        "Perran Oyelowo-Marsh supports students with submissions.",
        "Who helps lecturers with entering marks?",
        "Who assists learners with handing in work?",
    ),
    (
        "lecternly",
        "video.rooms",
        "Lecture theatres record with ceiling cameras.",
        "Seminar rooms record audio only.",
        "How are big lecture halls captured?",
        "What do the small teaching rooms capture?",
    ),
    (
        "lecternly",
        "grades.scale",
        "Modules in Scotland are marked on a 22-point scale.",
        "Modules at the Dubai campus are marked out of 100.",
        "Which grading range applies to the Scottish courses?",
        "How are marks expressed at the Gulf campus?",
    ),
    (
        "roomlatch",
        "resv.brand",
        "Budget-brand hotels take bookings without a deposit.",
        "Luxury-brand hotels take a one-night deposit at booking.",
        "Do economy properties ask for money up front?",
        "What advance payment do premium properties require?",
    ),
    (
        "roomlatch",
        "channel.partner",
        "Booking.com receives rates through a two-way XML connection.",
        "Expedia receives rates through its EQC interface.",
        "How are prices sent to the Dutch travel site?",
        "Which interface does the American travel agency get its prices through?",
    ),
    (
        "roomlatch",
        "people.regions",
        "Saorla Mbeki-Lund manages the hotels in Ireland.",
        "Torvald Nakamura-Achebe manages the hotels in Portugal.",
        "Who looks after the Irish properties?",
        "Who is responsible for the properties in Lisbon and the Algarve?",
    ),
    (
        "roomlatch",
        "hk.floor",
        "Standard floors are cleaned by 14:00.",
        "Club floors are cleaned by 12:00.",
        "When must ordinary rooms be ready?",
        "By what time are executive-level rooms done?",
    ),
    (
        "roomlatch",
        "keys.type",
        "Guest rooms open with key cards.",
        "Staff doors open with PIN pads.",
        "How do visitors unlock their bedrooms?",
        "What lets employees through back-of-house doors?",
    ),
    (
        "pistelink",
        "lifts.sector",
        "Lifts in the north sector open at 08:30.",
        "Lifts in the glacier sector open at 07:45.",
        "When do the northern lifts start turning?",
        "What time can skiers ride up onto the ice field?",
    ),
    (
        "pistelink",
        "passes.group",
        "Children under 6 ski free with an adult pass.",
        "Students pay 75 % of the adult price.",
        "What do the youngest skiers pay?",
        "What discount applies to people in higher education?",
    ),
    (
        "pistelink",
        "people.patrol",
        "Anscar Obuya-Fielding leads the ski patrol.",
        "Clementia Haugland runs the snowmaking crew.",
        "Who is in charge of slope rescue?",
        "Who heads the team that produces artificial snow?",
    ),
    (
        "pistelink",
        "grooming.slope",
        "Blue runs are groomed every night.",
        "Black runs are groomed twice a week.",
        "How often are the intermediate slopes prepared?",
        "How often are the expert slopes smoothed?",
    ),
    (
        "pistelink",
        "snow.source",
        "The lower slopes draw water from the valley reservoir.",
        "The upper slopes draw water from a glacial lake.",
        "Where does snowmaking water for the bottom runs come from?",
        "What supplies water to the guns at altitude?",
    ),
    (
        "batchwell",
        "cleanroom.grade",
        "The filling line runs in a grade A zone.",
        "The packaging hall is a grade D area.",
        "What cleanliness class applies where vials are filled?",
        "How clean must the room be where cartons are packed?",
    ),
    (
        "batchwell",
        "ebr.site",
        "The Cork plant runs its batch records on PAS-X.",
        "The Basel plant runs its batch records on Syncade.",
        "Which MES does the Irish site use?",
        "Which MES does the Swiss factory use?",
    ),
    (
        "batchwell",
        "people.qa",
        "Philomena Adewale-Storm heads quality assurance for tablets.",
        "Gustavo Lindgren-Eke heads quality assurance for injectables.",
        "Who is the QA lead for solid doses?",
        "Who oversees quality for sterile products?",
    ),
    (
        "batchwell",
        "serial.market",
        "Packs for Germany carry a securPharm code.",
        "Packs for China carry an NMPA traceability code.",
        "What serial marking do German shipments have?",
        "Which code goes on boxes sent to Chinese pharmacies?",
    ),
    (
        "batchwell",
        "weigh.booth",
        "Booth 1 dispenses powders.",
        "Booth 2 dispenses liquids.",
        "Where are dry ingredients weighed out?",
        "Which station handles fluids?",
    ),
    (
        "turnstyle",
        "gates.stand",
        "The east stand gates open 90 minutes before kick-off.",
        "The family stand gates open 2 hours before kick-off.",
        "How early can fans enter on the east side?",
        "When are children and parents let into their section?",
    ),
    (
        "turnstyle",
        "tickets.tier",
        "Season-ticket holders get their seats on an NFC card.",
        "Match-day buyers get their seats as a mobile ticket.",
        "What do regular subscribers carry to get in?",
        "How do one-off purchasers receive their entry pass?",
    ),
    (
        "turnstyle",
        "people.ops",
        "Desislava Okonjo-Reyes manages the turnstile crew.",
        "Fitzgerald Amankwah-Brandt manages the box office.",
        "Who is responsible for the people at the entry barriers?",
        "Who runs the ticket counter?",
    ),
    (
        "turnstyle",
        "resale.window",
        "League match seats can be resold until 24 hours before kick-off.",
        "Cup match seats can be resold until 3 hours before kick-off.",
        "What is the last moment to put a league seat back on sale?",
        "How late can a knockout-game seat be passed on?",
    ),
    (
        "turnstyle",
        "seats.access",
        "Wheelchair spaces are on the lower tier of the west stand.",
        "Easy-access seats with extra legroom are in row 1 of every stand.",
        "Where can wheelchair users watch from?",
        "Where are the seats for fans with limited mobility?",
    ),
    (
        "isobarix",
        "nwp.domain",
        "The regional model covers the home country at high resolution.",
        "The global model covers the whole Earth at 9 km.",
        "What area does the limited-area forecast span?",
        "How wide is the coverage of the worldwide run?",
    ),
    (
        "isobarix",
        "warn.colour",
        "Yellow warnings mean be aware.",
        "Red warnings mean take action to protect life.",
        "What does the lowest alert level tell the public?",
        "What should people do under the most severe alert?",
    ),
    (
        "isobarix",
        "people.desks",
        "Leontia Abara-Holm leads the aviation forecast desk.",
        "Casper Ndukwe-Lindahl leads the marine forecast desk.",
        "Who heads forecasting for airports?",
        "Who runs the forecasts for shipping?",
    ),
    (
        "isobarix",
        "radar.band",
        "The coastal radars are C-band.",
        "The mountain radars are X-band.",
        "Which frequency do the seaside weather radars use?",
        "What band do the alpine radars operate in?",
    ),
    (
        "isobarix",
        "obs.network",
        "Automatic stations measure wind at 10 metres.",
        "Buoys measure wind at 4 metres.",
        "At what height do land stations record wind?",
        "How high are anemometers on the floating platforms?",
    ),
    (
        "isobarix",
        "archive.tier",
        "The last 30 days of model output stay on disk.",
        "Output older than 30 days sits on tape.",
        "Where is last month's forecast output kept?",
        "Where does older model data live?",
    ),
    (
        "groundloop",
        "antenna.band",
        "Dish 1 receives S-band telemetry.",
        "Dish 2 receives X-band payload data.",
        "Which dish takes housekeeping telemetry?",
        "What does the second antenna downlink?",
    ),
    (
        "groundloop",
        "sched.priority",
        "Government customers get priority 1 passes.",
        "Commercial customers get priority 3 passes.",
        "What ranking do state clients' passes have?",
        "What level do paying companies' passes get?",
    ),
    (
        "groundloop",
        "people.shifts",
        "Evangelos Mbatha-Krogh leads the day operations shift.",
        "Ottilia Sarkodie-Wynne leads the night operations shift.",
        "Who supervises operators during daytime?",
        "Who is in charge of the overnight crew?",
    ),
    (
        "groundloop",
        "tlm.mission",
        "Imaging satellites send telemetry in CCSDS frames.",
        "The legacy weather satellite sends telemetry in a custom PCM format.",
        "What framing do the Earth observation craft use?",
        "How does the old meteorological spacecraft format its data?",
    ),
    (
        "groundloop",
        "uplink.power",
        "Routine commands are uplinked at 200 watts.",
        "Emergency commands are uplinked at 2 kilowatts.",
        "What transmit power is used for everyday commanding?",
        "How strong is the signal when a spacecraft is in trouble?",
    ),
    (
        "swipecore",
        "disputes.sla",
        "Fraud disputes must be filed within 120 days of the transaction.",
        "Processing-error disputes must be filed within 90 days of the transaction.",
        "How long does a cardholder have to claim an unauthorised charge?",
        "What is the window for contesting a processing mistake?",
    ),
]

# (project, topic, source 1, source 2, question): two sources disagree, no replacement cue.
CONTRADICTION_ITEMS: list[tuple[str, str, str, str, str]] = [
    (
        "swipecore",
        "volume",
        "The annual review says the switch handles 2.4 billion transactions a year.",
        "The switch statistics report 1.9 billion transactions last year.",
        "How many card payments go through the router yearly?",
    ),
    (
        "swipecore",
        "approval",
        "The scheme scorecard puts our approval rate at 94 %.",
        "The internal dashboard shows an approval rate of 91.5 %.",
        "What share of authorisations are accepted?",
    ),
    (
        "lecternly",
        "users",
        "The vendor case study claims 52,000 active learners.",
        "The platform logs show 44,300 students logged in this term.",
        "How many people actively use the learning platform?",
    ),
    (
        "roomlatch",
        "hotels",
        "The corporate website lists 118 hotels.",
        "The property system has 104 hotels live.",
        "How many properties does the chain operate?",
    ),
    (
        "roomlatch",
        "occupancy",
        "The investor update reports 81 % average occupancy.",
        "The revenue system shows 76 % average occupancy for the year.",
        "How full are the hotels on average?",
    ),
    (
        "pistelink",
        "pistes",
        "The trail map advertises 210 km of pistes.",
        "The grooming logs cover 164 km of prepared runs.",
        "How long is the resort's slope network?",
    ),
    (
        "batchwell",
        "yield",
        "The site dashboard gives a batch yield of 98.2 %.",
        "The annual product review reports 96.7 % average yield.",
        "What proportion of each batch ends up as sellable product?",
    ),
    (
        "turnstyle",
        "capacity",
        "The club brochure says the stadium holds 54,000.",
        "The safety certificate allows 51,350 spectators.",
        "How many fans fit in the ground?",
    ),
    (
        "turnstyle",
        "season",
        "The chairman's letter mentions 31,000 season-ticket holders.",
        "The ticketing database has 27,800 active season tickets.",
        "How many supporters hold a yearly seat?",
    ),
    (
        "isobarix",
        "accuracy",
        "The press office says next-day temperature forecasts are 92 % accurate.",
        "The verification report scores next-day temperature forecasts at 86 %.",
        "How reliable are tomorrow's temperature predictions?",
    ),
    (
        "groundloop",
        "passes",
        "The sales deck promises 1,200 passes a month.",
        "The scheduler recorded 970 completed passes last month.",
        "How many satellite contacts does the station handle monthly?",
    ),
    (
        "groundloop",
        "uptime",
        "The customer contract quotes 99.9 % station availability.",
        "The operations report measured 99.2 % availability last year.",
        "How available is the ground station?",
    ),
]


# The people the pairs file names (owners, leads, successors): shared names too.
PAIR_PEOPLE = [
    "Aldegonde Kimathi",
    "Anscar Obuya-Fielding",
    "Bartholdy Oyedele-Sand",
    "Casper Ndukwe-Lindahl",
    "Clementia Haugland",
    "Cornelius Ebbesen",
    "Cosima Halberstadt-Oni",
    "Dagmar Olawale-Frost",
    "Desislava Okonjo-Reyes",
    "Evangelos Mbatha-Krogh",
    "Ferdinand Achterhuis-Bello",
    "Fitzgerald Amankwah-Brandt",
    "Gunther Abiodun-Kesh",
    "Gustavo Lindgren-Eke",
    "Henrikka Lindahl-Ofori",
    "Hyacinthe Morrow-Adeyemi",
    "Ilsabe Koroma-Whitlock",
    "Leander Mukasa-Holm",
    "Leontia Abara-Holm",
    "Margarethe Solberg-Osei",
    "Marietta Solheim-Obi",
    "Pelagius Pemberton-Eze",
    "Ottavio Nwachukwu-Berg",
    "Ottilia Sarkodie-Wynne",
    "Perran Oyelowo-Marsh",
    "Philomena Adewale-Storm",
    "Radegund Achterberg-Mensah",
    "Ruprecht Anyanwu-Lind",
    "Saorla Mbeki-Lund",
    "Sigbritt Afolabi-Whitcombe",
    "Theodric Balogun-Ashby",
    "Torvald Nakamura-Achebe",
]


# -- the files -----------------------------------------------------------------------------------


def build() -> dict[str, list[dict]]:
    """The five files of heldout7."""
    return hb.changed_build(globals())


def names() -> list[str]:
    """Every entity, person, owner, project and event name of heldout7."""
    named = [*ATTRS["primary_pager"]["values"], *ATTRS["fallback_pager"]["values"]]
    named += [*PERSON_ATTRS["carpool_mate"]["values"], *PAIR_PEOPLE]  # people as values, in pairs
    return hb.changed_names(globals(), named)


def leaks() -> list[str]:
    """What heldout7 shares with any other part (heldout_build.changed_leaks)."""
    return hb.changed_leaks(globals(), names())


if __name__ == "__main__":
    sys.exit(hb.main(__doc__, SPLIT, build, leaks, "shares with another part"))
