"""Generate the sixth held-out part (issue 27, item 7): `heldout6`, never read to tune.

    python bench/data/gen_heldout6.py           # (re)write the heldout6 files
    python bench/data/gen_heldout6.py --check   # exit 1 when a committed file is stale or
                                                # when heldout6 shares a name, an attribute kind
                                                # or a sentence with another part

Written while the update detector was being tuned by someone who never saw these files, so the
tuning can be checked for generalisation. Nothing is taken from the other parts (gen_streams.py,
gen_heldout3.py .. gen_heldout5.py, memory_updates.jsonl): other domains (a hospital's lab
systems, a game studio's build farm, a city transit app, a logistics warehouse, an insurance
claims platform, a music streaming service, a university registrar, a telecom billing stack),
other entities, attribute kinds, sentence templates, event kinds, people and update wordings.
Deterministic: no randomness but a sha256 of fixed strings (gen_streams' helpers). The row
builders are heldout_build.py's; heldout6 has its own people and mixed layout (12 people, one
update each; 10 component updates per mixed project), so it builds its part here.

Files, in gen_streams' line format (id, set, split="heldout6", scope, seq, kind, entity,
attribute, text, questions, replaces, restates):

- `streams_parallel_heldout6.jsonl`: 14 entities x 9 attributes, every fact true at once.
- `streams_events_heldout6.jsonl`: 23 numbered events of 7 kinds, many of one template.
- `streams_people_heldout6.jsonl`: 12 people x 8 attributes, then 12 real updates (one
  attribute of each person; with and without change cues); the other facts stay true.
- `streams_mixed_heldout6.jsonl`: three projects, each with nine components and one person:
  ~60 % facts, ~16 % events, ~13 % real updates, ~10 % restatements.
- `memory_updates_heldout6.jsonl`: hand-written pairs in memory_updates.jsonl's schema:
  8 projects, updates (cue / plain / value_only), near-topic non-updates, contradictions.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import heldout_build as hb  # noqa: E402
from heldout_build import up  # noqa: E402

SPLIT = "heldout6"
PREFIX = "h6"


# -- parallel ------------------------------------------------------------------------------------

ENTITIES = [
    "the hematology analyzer bridge (lab 2)",
    "the hematology analyzer bridge (lab 3)",
    "shader-cache-node-07",
    "shader-cache-node-08",
    "the GTFS-RT vehicle poller",
    "the GTFS-RT alerts poller",
    "wms-pickpath-v3",
    "wms-pickpath-v4",
    "the FNOL intake API (motor)",
    "the FNOL intake API (home)",
    "royalty-ledger-eu",
    "royalty-ledger-latam",
    "the CDR mediation engine",
    "REGISTRAR_TRANSCRIPT_SVC",
]

Phrase = Callable[[str, str], str]

ATTRS: dict[str, dict] = {
    "heartbeat": {
        "values": [str(v) for v in (3, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 240)],
        "phrases": [
            lambda e, v: f"{up(e)} sends a heartbeat every {v} seconds.",
            lambda e, v: f"A liveness ping leaves {e} once per {v} seconds.",
            lambda e, v: f"Every {v} seconds the watchdog expects to hear from {e}.",
        ],
        "questions": [
            lambda e: f"How often does {e} signal that it is alive?",
            lambda e: f"What keep-alive cadence does {e} follow?",
        ],
    },
    "steward": {
        "values": [
            "Dagny Okonkwo",
            "Eberhard Ferreira-Lunde",
            "Hedwiga Mbeki",
            "Radomir Castellanos",
            "Kunigunde Osei",
            "Jadwiga Thorsdottir",
            "Isadora Kowalczyk",
            "Sulpicia Mahlangu",
            "Brónach Ó Dálaigh",
            "Lorcan Vanterpool",
            "Seraphina Adeyemi-Park",
            "Ottokar Bjornstad",
        ],
        "phrases": [
            lambda e, v: f"{up(e)} is owned by {v}.",
            lambda e, v: f"{v} is the named owner of {e}.",
            lambda e, v: f"Questions about {e} go to its owner, {v}.",
        ],
        "questions": [
            lambda e: f"Who is accountable for {e}?",
            lambda e: f"Which engineer answers for {e}?",
        ],
    },
    "site_code": {
        "values": [
            "site KRK-3 (hall B)",
            "site KRK-3 (hall C)",
            "site LIS-1",
            "site BUD-2 (cage 14)",
            "site BUD-2 (cage 15)",
            "site OTP-6",
            "site VNO-4 (hall A)",
            "site TLL-2",
            "site ZAG-1 (cage 3)",
            "site SOF-5",
            "site LJU-2 (hall D)",
            "site RIX-7",
        ],
        "phrases": [
            lambda e, v: f"{up(e)} is racked at {v}.",
            lambda e, v: f"{up(v)} hosts {e}.",
            lambda e, v: f"The hardware for {e} lives in {v}.",
        ],
        "questions": [
            lambda e: f"In which data hall does {e} physically sit?",
            lambda e: f"Where is the machine room for {e}?",
        ],
    },
    "sw_version": {
        "values": ["4.21.3", "4.21.5", "5.0.0-beta3", "2.7.19", "2.9.6", "7.3.0-hotfix1",
                   "7.3.2", "3.3.27", "3.6.0", "12.0.2", "12.0.3", "1.22.5"],  # fmt: skip
        "phrases": [
            lambda e, v: f"{up(e)} runs release {v}.",
            lambda e, v: f"Version {v} is what {e} has deployed.",
            lambda e, v: f"The build of {e} in service is {v}.",
        ],
        "questions": [
            lambda e: f"Which software release is live on {e}?",
            lambda e: f"What version number does {e} report?",
        ],
    },
    "backlog_cap": {
        "values": ["250 messages", "500 messages", "750 messages", "1,000 messages",
                   "1,500 messages", "2,000 messages", "3,000 messages", "5,000 messages",
                   "8,000 messages", "10,000 messages", "15,000 messages",
                   "20,000 messages"],  # fmt: skip
        "phrases": [
            lambda e, v: f"{up(e)} holds at most {v} in its backlog.",
            lambda e, v: f"Once {v} are waiting, {e} sheds new work.",
            lambda e, v: f"The backlog limit of {e} is {v}.",
        ],
        "questions": [
            lambda e: f"How much pending work can {e} queue before refusing more?",
            lambda e: f"At what queue length does {e} start rejecting input?",
        ],
    },
    "support_plan": {
        "values": [
            "Platinum (1-hour response)",
            "Platinum (2-hour response)",
            "Gold (4-hour response)",
            "Gold (next-business-day parts)",
            "Silver (8x5)",
            "Silver (8x5, remote only)",
            "Bronze (email only)",
            "Enterprise Plus (on-site engineer)",
            "Standard (12x5)",
            "Premier (24x7, named TAM)",
        ],
        "phrases": [
            lambda e, v: f"{up(e)} is covered by vendor support tier {v}.",
            lambda e, v: f"Vendor support tier {v} applies to {e}.",
            lambda e, v: f"If {e} fails, the supplier responds under tier {v}.",
        ],
        "questions": [
            lambda e: f"What service level does the manufacturer owe us for {e}?",
            lambda e: f"How fast must the vendor react when {e} has a fault?",
        ],
    },
    "disk_alarm": {
        "values": [str(v) for v in (70, 72, 75, 78, 80, 82, 85, 88, 90, 92, 95, 97)],
        "phrases": [
            lambda e, v: f"{up(e)} raises a disk alarm at {v} % usage.",
            lambda e, v: f"When its volume passes {v} % full, {e} alerts.",
            lambda e, v: f"A storage warning fires for {e} above {v} % occupancy.",
        ],
        "questions": [
            lambda e: f"How full can the storage of {e} get before someone is warned?",
            lambda e: f"What fill level triggers a space alert on {e}?",
        ],
    },
    "db_schema": {
        "values": ["lis_core", "lis_core_archive", "farm_meta", "farm_meta_v2", "gtfs_live",
                   "gtfs_live_shadow", "wms_pick", "wms_pick_v4", "fnol_intake", "royalty_eu",
                   "royalty_latam", "cdr_stage", "sis_transcripts"],  # fmt: skip
        "phrases": [
            lambda e, v: f"{up(e)} writes into the {v} schema.",
            lambda e, v: f"The tables of {e} live in schema {v}.",
            lambda e, v: f"Schema {v} is where {e} keeps its rows.",
        ],
        "questions": [
            lambda e: f"Which database namespace stores the records of {e}?",
            lambda e: f"Where in Postgres does {e} persist its data?",
        ],
    },
    "patch_window": {
        "values": ["Tuesday 02:00-04:00 UTC", "Tuesday 03:00-05:00 UTC",
                   "Wednesday 01:00-03:00 UTC", "Thursday 22:00-24:00 UTC",
                   "Saturday 05:00-07:00 UTC", "Sunday 04:00-06:00 UTC",
                   "Monday 23:00-01:00 UTC", "Friday 02:30-04:30 UTC",
                   "Sunday 01:00-02:00 UTC", "Wednesday 21:00-23:00 UTC"],  # fmt: skip
        "phrases": [
            lambda e, v: f"{up(e)} is patched in the {v} window.",
            lambda e, v: f"OS updates reach {e} only during {v}.",
            lambda e, v: f"The {v} slot is reserved for patching {e}.",
        ],
        "questions": [
            lambda e: f"When may the operating system of {e} be updated?",
            lambda e: f"In what maintenance slot does {e} get security fixes?",
        ],
    },
}


# -- events --------------------------------------------------------------------------------------

EVENTS: dict[str, dict] = {
    "nightly_builds": {
        "names": ["nightly build NB-5518", "nightly build NB-5519", "nightly build NB-5523",
                  "nightly build NB-5524"],  # fmt: skip
        "what": [
            "failed because the console SDK licence server was unreachable",
            "took nine hours after the shader cache was wiped",
            "shipped to QA with a broken main menu on ultrawide screens",
            "was green on every platform for the first time this milestone",
        ],
        "phrases": [
            lambda n, a: f"The studio's {n} {a}.",
            lambda n, a: f"According to the farm dashboard, {n} {a}.",
        ],
        "questions": [
            lambda n: f"What is known about the outcome of {n}?",
            lambda n: f"How did {n} go for the game team?",
        ],
    },
    "qc_lots": {
        "names": ["QC lot QL-3301", "QC lot QL-3302", "QC lot QL-3308", "QC lot QL-3309"],
        "what": [
            "drifted two standard deviations high on potassium",
            "passed every Westgard rule on the first run",
            "was rejected after the control vials arrived warm",
            "flagged a calibration shift on the troponin assay",
        ],
        "phrases": [
            lambda n, a: f"In the core lab, {n} {a}.",
            lambda n, a: f"The lab supervisor recorded that {n} {a}.",
        ],
        "questions": [
            lambda n: f"What did the quality control for {n} show?",
            lambda n: f"How did the control material of {n} perform?",
        ],
    },
    "service_alerts": {
        "names": ["service alert SA-612", "service alert SA-613", "service alert SA-619"],
        "what": [
            "diverted the number 9 tram around a burst water main",
            "reached riders twenty minutes after the line had reopened",
            "was pushed to every user instead of those near the harbour stop",
        ],
        "phrases": [
            lambda n, a: f"The transit app's {n} {a}.",
            lambda n, a: f"Rider support noted that {n} {a}.",
        ],
        "questions": [lambda n: f"What happened with {n}?"],
    },
    "cycle_counts": {
        "names": ["cycle count CC-2207", "cycle count CC-2208", "cycle count CC-2214"],
        "what": [
            "found 38 pallets of detergent in the wrong aisle",
            "matched the system stock to the unit in the freezer zone",
            "was abandoned when the handheld scanners lost Wi-Fi",
        ],
        "phrases": [
            lambda n, a: f"At the distribution centre, {n} {a}.",
            lambda n, a: f"The inventory lead reported that {n} {a}.",
        ],
        "questions": [lambda n: f"What was the result of {n}?"],
    },
    "catastrophe_events": {
        "names": ["catastrophe code CAT-41", "catastrophe code CAT-42", "catastrophe code CAT-47"],
        "what": [
            "opened for a hailstorm that damaged 9,000 vehicles",
            "covered river flooding in three inland counties",
            "was closed after fewer claims than forecast arrived",
        ],
        "phrases": [
            lambda n, a: f"Claims operations' {n} {a}.",
            lambda n, a: f"The underwriting bulletin says {n} {a}.",
        ],
        "questions": [lambda n: f"What loss event does {n} stand for?"],
    },
    "catalog_drops": {
        "names": ["catalogue delivery CD-8830", "catalogue delivery CD-8831",
                  "catalogue delivery CD-8839"],  # fmt: skip
        "what": [
            "arrived from the label with 1,200 tracks missing ISRCs",
            "put a surprise album live four minutes early",
            "duplicated every track of a compilation",
        ],
        "phrases": [
            lambda n, a: f"The music ingest desk logged that {n} {a}.",
            lambda n, a: f"Content operations: {n} {a}.",
        ],
        "questions": [lambda n: f"What went on with {n}?"],
    },
    "bill_runs": {
        "names": ["bill run BR-2711", "bill run BR-2712", "bill run BR-2718"],
        "what": [
            "charged roaming twice to 4,300 prepaid lines",
            "closed on time with no suspended accounts",
            "held back business invoices for a tax code fix",
        ],
        "phrases": [
            lambda n, a: f"The carrier's {n} {a}.",
            lambda n, a: f"Revenue assurance found that {n} {a}.",
        ],
        "questions": [lambda n: f"How did {n} end up?"],
    },
}


# -- people --------------------------------------------------------------------------------------

PEOPLE = [
    "Gunnhild Achterberg",
    "Eustachy Okafor-Rhys",
    "Zoltana Lindahl",
    "Quillon Mbatha",
    "Rasmussen Delacroix",
    "Honorata Vukovic",
    "Evadne Kristiansen",
    "Ptolemy Asante",
    "Jessamyn Oyelaran",
    "Barnabas Ilyushin",
    "Florentyna Maseko",
    "Auberon Tshabalala",
]
PERSON_ATTRS: dict[str, dict] = {
    "buddy": {
        "values": [
            "Cordelia Nwachukwu",
            "Hamish Varadkar",
            "Ottilie Brandvold",
            "Sebastiano Mthembu",
            "Winifred Aaltonen",
            "Leofric Ekwueme",
            "Roswitha Kaplan-Tan",
            "Emrys Odhiambo",
        ],
        "phrases": [
            lambda p, v: f"{p}'s onboarding buddy is {v}.",
            lambda p, v: f"{v} was assigned to show {p} the ropes.",
        ],
        "questions": [lambda p: f"Who helps {p} find their way around the company?"],
    },
    "bicycle": {
        "values": ["a Brompton folding bike", "a steel touring bike", "a cargo e-bike",
                   "a fixed-gear bike", "a gravel bike", "a recumbent trike",
                   "a Dutch omafiets", "a carbon road bike"],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} cycles to work on {v}.",
            lambda p, v: f"The bike {p} locks up outside the office is {v}.",
        ],
        "questions": [lambda p: f"What does {p} ride in on?"],
    },
    "tea": {
        "values": ["jasmine green tea", "lapsang souchong", "rooibos", "builder's tea",
                   "genmaicha", "peppermint tea", "masala chai", "oolong"],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} drinks {v} all afternoon.",
            lambda p, v: f"The kettle round for {p} means {v}.",
        ],
        "questions": [lambda p: f"What should go in the mug when making a brew for {p}?"],
    },
    "board_game": {
        "values": ["Carcassonne", "Terraforming Mars", "Azul", "Twilight Struggle",
                   "Wingspan", "Root", "Ticket to Ride", "Dominion"],  # fmt: skip
        "phrases": [
            lambda p, v: f"At game night {p} always brings {v}.",
            lambda p, v: f"{p}'s favourite tabletop title is {v}.",
        ],
        "questions": [lambda p: f"Which box does {p} put on the table when we play after work?"],
    },
    "keyboard": {
        "values": ["an HHKB Professional", "a Keychron Q1", "an ErgoDox EZ", "a Kinesis Advantage",
                   "a Model M", "a Moonlander", "a Logitech MX Keys", "a split Corne"],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} types on {v}.",
            lambda p, v: f"On the desk of {p} sits {v}.",
        ],
        "questions": [lambda p: f"What input device does {p} write code with?"],
    },
    "locker": {
        "values": ["locker L-114", "locker L-141", "locker L-208", "locker L-280",
                   "locker M-019", "locker M-091", "locker N-333", "locker N-303"],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} keeps a gym bag in {v}.",
            lambda p, v: f"The changing-room cupboard of {p} is {v}.",
        ],
        "questions": [lambda p: f"Where does {p} stash belongings at the office?"],
    },
    "gym_class": {
        "values": ["spin class", "reformer pilates", "kettlebell circuits", "aqua aerobics",
                   "bouldering club", "kickboxing", "yoga nidra", "rowing machine intervals"],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} goes to {v} at lunchtime.",
            lambda p, v: f"Midday workouts for {p} are {v}.",
        ],
        "questions": [lambda p: f"How does {p} exercise during the break?"],
    },
    "podcast": {
        "values": ["Darknet Diaries", "99% Invisible", "Hardcore History", "Radiolab",
                   "The Rest Is History", "Oxide and Friends", "Lex Fridman", "Planet Money"],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} listens to {v} on the commute.",
            lambda p, v: f"The show in {p}'s earbuds is usually {v}.",
        ],
        "questions": [lambda p: f"What audio series keeps {p} company on the way in?"],
    },
}
PersonUpdate = Callable[[str, str, str], str]  # (person, old, new) -> text
# One real change per person, in PEOPLE's order: (attribute, wording). With a change cue and
# without one (a plain new value, a value only, a narrative, "these days", past vs current).
PERSON_CHANGES: list[tuple[str, PersonUpdate]] = [
    ("bicycle", lambda p, o, n: f"{p} switched from {o} to {n} for the commute."),
    ("tea", lambda p, o, n: f"These days {p} sticks to {n}."),
    ("locker", lambda p, o, n: f"The door of {p}'s {o} jammed, so facilities handed out {n}."),
    ("keyboard", lambda p, o, n: f"{p} writes every line on {n}."),
    ("buddy", lambda p, o, n: f"{o} is no longer {p}'s onboarding buddy; {n} took that on."),
    ("gym_class", lambda p, o, n: f"{p} did {o} in the spring; the lunchtime session is {n} at present."),
    ("board_game", lambda p, o, n: f"{p}'s game-night pick: {n}."),
    ("podcast", lambda p, o, n: f"{p} moved on from {o} to {n}."),
    ("bicycle", lambda p, o, n: f"{p} replaced {o} with {n}."),
    ("tea", lambda p, o, n: f"{p} now brews {n} instead."),
    ("locker", lambda p, o, n: f"After the floor reshuffle {p} was moved to {n}."),
    ("keyboard", lambda p, o, n: f"{p} spilled soup over {o}, so the helpdesk sent {n}."),
]


# -- mixed ---------------------------------------------------------------------------------------

MIXED_PROJECTS: dict[str, tuple[list[str], str]] = {
    "specimenhub": (
        [
            "the chemistry analyzer bridge (bay A)",
            "the chemistry analyzer bridge (bay B)",
            "the specimen-label printer service",
            "the tube-sorter controller",
            "lis-hl7-router-primary",
            "lis-hl7-router-standby",
            "the critical-value caller",
            "the blood-bank crossmatch service",
            "the courier-tracking API",
        ],
        "Ximena Falkenrath",
    ),
    "shaderyard": (
        [
            "the asset-cooker pool (PC)",
            "the asset-cooker pool (console)",
            "the Perforce edge proxy",
            "the crash-symbol server",
            "build-dispatcher-blue",
            "build-dispatcher-green",
            "the localization exporter",
            "the replay-capture uploader",
            "the license-seat broker",
        ],
        "Wystan Achebe-Lund",
    ),
    "fareflow": (
        [
            "the tap-in validator gateway (north depot)",
            "the tap-in validator gateway (river depot)",
            "the journey planner",
            "the fare-capping engine",
            "arrivals-predictor-v2",
            "arrivals-predictor-v3",
            "the disruption push sender",
            "the ticket-wallet API",
            "the bike-dock status poller",
        ],
        "Amadea Holmqvist",
    ),
}
MIXED_ATTRS = ["heartbeat", "backlog_cap", "disk_alarm", "sw_version", "steward"]
MIXED_PERSON_ATTRS = ["bicycle", "tea", "board_game", "keyboard", "locker", "gym_class"]
# Which attribute of the project's person changes, and how it is said (the others stay true).
MIXED_PERSON_CHANGE: dict[str, tuple[str, PersonUpdate]] = {
    "specimenhub": ("locker", lambda p, o, n: f"{p} has {n} now; {o} went to a new starter."),
    "shaderyard": ("tea", lambda p, o, n: f"{p} gave up {o}; it is {n} every afternoon."),
    "fareflow": ("bicycle", lambda p, o, n: f"{p} rides {n} to the depot."),
}
MIXED_UPDATES_EACH = 10  # component updates per mixed project (then one of its person)
MIXED_RESTATED = 8  # component restatements per mixed project (then one of its person)
# How an attribute is named and how its value reads inside an update sentence.
NOUN = {
    "heartbeat": ("the heartbeat interval", lambda v: f"{v} seconds"),
    "backlog_cap": ("the backlog limit", lambda v: v),
    "disk_alarm": ("the disk alarm threshold", lambda v: f"{v} %"),
    "sw_version": ("the deployed release", lambda v: v),
    "steward": ("the owner", lambda v: v),
}
Update = Callable[[str, str, str, str], str]  # (entity, noun, old, new) -> text


def _bare(a: str) -> str:
    return a.removeprefix("the ")


# Real-update wordings no other part has; each is used once, in turn, and past the end of the
# list an update is a plain new value in a fact phrasing. With cues ("now", "moved from",
# "no longer", "replaced", "switched", ...) and without (a value only, a narrative, "these
# days", past vs current, a correction).
UPDATES: list[Update] = [
    lambda e, a, o, n: f"{up(a)} of {e} is now {n}.",
    lambda e, a, o, n: f"{up(a)} of {e} moved from {o} to {n}.",
    lambda e, a, o, n: f"{up(e)} no longer runs with {o} as {a}; it has {n}.",
    lambda e, a, o, n: f"{up(a)} of {e}, {o}, was replaced by {n}.",
    lambda e, a, o, n: f"We switched {e} over to {n} ({a}).",
    lambda e, a, o, n: f"{up(e)}, {_bare(a)}: {n}.",
    lambda e, a, o, n: f"These days {a} on {e} is {n}.",
    lambda e, a, o, n: f"{up(a)} on {e} was {o} back in the spring; it is {n} at present.",
    lambda e, a, o, n: f"{up(e)} kept paging at night with {o}, so the team set {a} to {n}.",
    lambda e, a, o, n: f"Going forward, {e} operates with {n} as {a}.",
    lambda e, a, o, n: f"Since the March cutover, {a} of {e} has been {n}.",
    lambda e, a, o, n: f"The old {_bare(a)} of {e} ({o}) is gone; {n} is in place.",
    lambda e, a, o, n: f"After the load review, {e} got {n} as {a}.",
    lambda e, a, o, n: f"{up(a)}, {e}: {n} (was {o}).",
    lambda e, a, o, n: f"Correction from the runbook: {a} of {e} reads {n}, not {o}.",
    lambda e, a, o, n: f"{up(e)} dropped {o}; {a} became {n}.",
    lambda e, a, o, n: f"Nowadays {e} works with {n} for {a}.",
    lambda e, a, o, n: f"{up(e)} picked up {n} as {a} in the last deploy.",
    lambda e, a, o, n: f"{up(o)} was {a} of {e} until the audit; today it is {n}.",
    lambda e, a, o, n: f"During the freeze exception, {a} of {e} was changed to {n}.",
    lambda e, a, o, n: f"The change board approved {n} as {a} for {e}, retiring {o}.",
    lambda e, a, o, n: f"{up(e)} has {n} for {a} lately, not {o}.",
    lambda e, a, o, n: f"Latest config for {e}: {n} ({a}).",
    lambda e, a, o, n: f"{up(e)} went live with {n} as {a}, leaving {o} behind.",
    lambda e, a, o, n: f"{up(o)} belonged to the previous setup of {e}; {a} is {n} in the current one.",
    lambda e, a, o, n: f"{up(e)}'s {_bare(a)} ended up at {n} after the tuning session.",
    lambda e, a, o, n: f"Nobody uses {o} for {e} any more: {a} is {n}.",
]
RESTATE: dict[str, Callable[[str, str], str]] = {
    "heartbeat": lambda e, v: f"Monitoring hears from {e} at {v}-second intervals.",
    "backlog_cap": lambda e, v: f"No more than {v} can pile up in front of {e}.",
    "disk_alarm": lambda e, v: f"Disk usage of {e} past {v} % wakes someone up.",
    "sw_version": lambda e, v: f"{up(e)} is on {v} in production.",
    "steward": lambda e, v: f"{v} looks after {e}.",
    "bicycle": lambda p, v: f"{p} arrives by bike, on {v}.",
    "tea": lambda p, v: f"{p} prefers {v} over coffee.",
    "board_game": lambda p, v: f"{p} is the one who brings {v} to game night.",
    "keyboard": lambda p, v: f"{p} works on {v} at the desk.",
    "locker": lambda p, v: f"{p}'s things are kept in {v}.",
    "gym_class": lambda p, v: f"{p} spends the lunch break at {v}.",
}
MIXED_EVENTS: dict[str, list[tuple[str, str]]] = {
    "specimenhub": [
        ("Incident LABINC-220 delayed potassium results for the emergency department by an hour.",
         "What slowed down results for the emergency ward in LABINC-220?"),
        ("Incident LABINC-223 printed 400 specimen labels with the wrong ward code.",
         "What labelling mistake happened in LABINC-223?"),
        ("Validation run VR-17 signed off the new troponin reagent lot.",
         "Which reagent was approved during VR-17?"),
        ("Validation run VR-18 failed the linearity check on creatinine.",
         "Why did VR-18 not pass?"),
        ("Change request CHG-90412 moves the sorter to the new conveyor.",
         "What does CHG-90412 relocate?"),
        ("Change request CHG-90417 adds a second printer on the maternity floor.",
         "What hardware is CHG-90417 installing for the birth unit?"),
        ("Audit visit UKAS-2027-03 found two unsigned temperature logs.",
         "What did the accreditation inspectors find missing in UKAS-2027-03?"),
        ("Release LIS 9.4.2 added reflex testing for thyroid panels.",
         "Which automatic follow-up test arrived with LIS 9.4.2?"),
        ("Release LIS 9.4.3 fixed duplicate orders from the outpatient clinic.",
         "What ordering bug did LIS 9.4.3 remove?"),
        ("Downtime drill DD-06 ran the lab on paper request forms for two hours.",
         "How did the lab work during drill DD-06?"),
        ("Courier route CR-31 missed the 14:00 pickup at the satellite clinic.",
         "What pickup was skipped on CR-31?"),
        ("Courier route CR-34 now stops at the hospice as well.",
         "Which extra stop is on CR-34?"),
        ("Incident LABINC-231 lost the link to the blood bank for nine minutes.",
         "Which connection dropped in LABINC-231?"),
        ("Sprint LABS-41 retro agreed to page the on-call scientist for analyzer faults.",
         "What did the team decide at the LABS-41 retrospective?"),
    ],
    "shaderyard": [
        ("Build CL-884213 broke the console package because of a missing texture.",
         "Why did changelist 884213 fail to package for console?"),
        ("Build CL-884219 was the first to cook the new open-world map.",
         "Which level was cooked for the first time in CL-884219?"),
        ("Milestone M7 alpha was handed to the publisher on Friday.",
         "What did the publisher receive at the end of that week?"),
        ("Milestone M8 beta slipped by two weeks for certification fixes.",
         "Why is the M8 beta late?"),
        ("Crash bucket CB-5521 holds 12,000 reports from one physics assert.",
         "What causes most of the reports in CB-5521?"),
        ("Crash bucket CB-5530 only happens on handhelds with 12 GB of memory.",
         "Which devices are affected by CB-5530?"),
        ("Playtest PT-19 rated the new tutorial 4.1 out of 5.",
         "How did players score the tutorial in PT-19?"),
        ("Playtest PT-20 lost half its sessions to a matchmaking outage.",
         "What ruined many sessions of PT-20?"),
        ("Ticket FARM-702 asks for ten more cooker machines before launch.",
         "What extra capacity does FARM-702 request?"),
        ("Ticket FARM-709 reports the symbol upload timing out for large PDBs.",
         "What upload problem is FARM-709 about?"),
        ("Patch 1.0.3 fixed the save corruption on cloud sync.",
         "What data-loss bug did patch 1.0.3 resolve?"),
        ("Patch 1.0.4 was withdrawn after it doubled load times.",
         "Why was patch 1.0.4 pulled?"),
        ("Sprint SY-58 demo showed the replay camera in photo mode.",
         "What feature was presented at the end of sprint SY-58?"),
        ("Sprint SY-59 planning cut the co-op lobby from the launch scope.",
         "Which feature was dropped from launch at sprint SY-59 planning?"),
    ],
    "fareflow": [
        ("Outage TRN-OUT-88 stopped tap-ins on the river depot buses for forty minutes.",
         "What did riders on the river depot routes lose in TRN-OUT-88?"),
        ("Outage TRN-OUT-91 showed wrong arrival times on line 14 all morning.",
         "Which line had bad predictions during TRN-OUT-91?"),
        ("App release 6.8.0 added Apple Pay top-ups for the ticket wallet.",
         "What payment option came with app version 6.8.0?"),
        ("App release 6.8.1 fixed a crash when the journey had three changes.",
         "What crash went away in app version 6.8.1?"),
        ("Fare change FC-2027A raised the daily cap by thirty cents.",
         "How did FC-2027A alter the most a rider pays per day?"),
        ("Fare change FC-2027B made travel free for under-twelves.",
         "Who rides for nothing under FC-2027B?"),
        ("Timetable T-52 moved the night buses to a fifteen-minute frequency.",
         "How often do night services run under timetable T-52?"),
        ("Timetable T-53 added a new stop at the stadium.",
         "Which stop was introduced in timetable T-53?"),
        ("Complaint batch CB-T-440 was mostly about double charges on transfers.",
         "What did riders complain about in CB-T-440?"),
        ("Accessibility audit AA-09 found the wallet screen unreadable with large fonts.",
         "What screen failed the AA-09 review?"),
        ("Ridership report RR-2027-05 counted 3.2 million app journeys in May.",
         "How many journeys were planned in the app that month?"),
        ("Ridership report RR-2027-06 showed weekend use up 11 %.",
         "How did Saturday and Sunday usage change in RR-2027-06?"),
        ("Sprint FF-33 review shipped live crowding levels for trams.",
         "What passenger-load feature was delivered in sprint FF-33?"),
        ("Bike-dock sync BD-7 lost the status of 60 docks after a firmware push.",
         "What went missing in bike-dock sync BD-7?"),
    ],
}


# -- hand-written update pairs (memory_updates.jsonl's schema) -----------------------------------

# project -> (what it is about, background facts as (topic, text)); an item's context is 2-5
# of its project's facts whose topic differs from the item's.
PROJECTS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "vialcare": (
        "hospital laboratory systems: LIS, analyzer middleware, specimen tracking, blood bank",
        [
            ("lis", "Results are released through the laboratory information system."),
            ("middleware", "Analyzer results pass through a middleware layer before the LIS."),
            ("tracking", "Every tube gets a barcode at the phlebotomy desk."),
            ("people", "Dr. Olufunmilayo Stenberg is the lab director."),
            ("bank", "The blood bank runs its own crossmatch software."),
            ("interfaces", "Orders reach the lab as HL7 v2 messages from the ward system."),
        ],
    ),
    "kilnworks": (
        "game studio build farm: Perforce, cook machines, shader cache, crash reporting",
        [
            ("vcs", "All game code and art live in Perforce."),
            ("cook", "Content is cooked per platform on dedicated machines."),
            ("shaders", "Compiled shaders are shared through a cache."),
            ("people", "Kasimir Ellingboe runs the build engineering team."),
            ("crash", "Crash dumps are symbolicated on upload."),
            ("ci", "Every submitted changelist triggers an incremental build."),
        ],
    ),
    "metrohop": (
        "city transit app: journey planner, realtime feeds, ticket wallet, fare capping",
        [
            ("planner", "Trips are planned over the city's GTFS timetable."),
            ("realtime", "Vehicle positions come from a GTFS-RT feed."),
            ("wallet", "Riders keep their tickets in an in-app wallet."),
            ("people", "Ottoline Ocansey is the product manager for the rider app."),
            ("fares", "Daily spending is capped automatically."),
            ("alerts", "Service disruptions are announced by push notification."),
        ],
    ),
    "palletbay": (
        "logistics warehouse: WMS, pick-path optimiser, conveyors, handheld scanners",
        [
            ("wms", "Stock is tracked in a warehouse management system."),
            ("pick", "Pickers follow routes from a pick-path optimiser."),
            ("conveyor", "Totes travel between zones on conveyors."),
            ("people", "Desmond Achterhuis manages the night shift."),
            ("scan", "Every move is confirmed with a handheld scanner."),
            ("dock", "Trucks are booked into dock slots a day ahead."),
        ],
    ),
    "claimwise": (
        "insurance claims platform: first notice of loss, fraud scoring, adjuster app, payouts",
        [
            ("fnol", "Customers report losses through a first-notice-of-loss form."),
            ("fraud", "New claims get a fraud score before assignment."),
            ("adjuster", "Field adjusters work from a tablet app."),
            ("people", "Henrike Mabuza heads claims operations."),
            ("payout", "Approved claims are paid by bank transfer."),
            ("docs", "Photos and invoices are attached to the claim file."),
        ],
    ),
    "tunewave": (
        "music streaming service: catalogue ingest, recommendations, royalties, audio delivery",
        [
            ("ingest", "Labels deliver albums as DDEX packages."),
            ("recs", "Home-screen mixes come from a recommendation service."),
            ("royalty", "Royalties are calculated from play counts each month."),
            ("people", "Gaudenz Wexford-Adu leads the catalogue team."),
            ("audio", "Tracks are streamed in several bitrates."),
            ("lyrics", "Synced lyrics are licensed from a partner."),
        ],
    ),
    "enrolldesk": (
        "university registrar: course enrolment, transcripts, timetabling, degree audit",
        [
            ("enrol", "Students enrol in courses through the student portal."),
            ("transcript", "Official transcripts are issued as signed PDFs."),
            ("timetable", "Rooms and lecture slots are set by a timetabling tool."),
            ("people", "Ambrosia Kettleborough is the university registrar."),
            ("audit", "A degree audit checks graduation requirements."),
            ("grades", "Lecturers submit final grades at the end of each term."),
        ],
    ),
    "dialbill": (
        "telecom billing stack: mediation, rating, invoicing, prepaid balances",
        [
            ("mediation", "Call detail records are collected by a mediation layer."),
            ("rating", "Usage is priced by a rating engine."),
            ("invoice", "Postpaid customers get a monthly invoice."),
            ("people", "Caoimhe Rautenbach owns the billing platform."),
            ("prepaid", "Prepaid balances are kept in real time."),
            ("dunning", "Unpaid invoices go through a dunning process."),
        ],
    ),
}

# (project, topic, style, old, new, question); topic's first dotted part keeps context apart.
UPDATE_ITEMS: list[tuple[str, str, str, str, str, str]] = [
    ("vialcare", "tat.troponin", "cue",
     "Troponin results are due within 60 minutes of receipt.",
     "Since the new analyzer went in, troponin results are due within 35 minutes of receipt.",
     "How long may the lab take to report a heart-damage marker?"),
    ("vialcare", "people.director", "cue",
     "Dr. Olufunmilayo Stenberg is the lab director.",
     "Dr. Olufunmilayo Stenberg retired; Dr. Piet Vanderhoeven is lab director now.",
     "Who leads the laboratory?"),
    ("vialcare", "middleware.vendor", "plain",
     "Analyzer middleware is Data Innovations Instrument Manager.",
     "Analyzer middleware is Sysmex Caresphere.",
     "Which product sits between the instruments and the LIS?"),
    ("vialcare", "tracking.label", "value_only",
     "Tube labels are printed on 50 x 25 mm stock.",
     "Tube label size: 57 x 19 mm.",
     "What dimensions do specimen stickers have?"),
    ("vialcare", "bank.expiry", "cue",
     "Platelet units expire 5 days after collection.",
     "With pathogen reduction, platelet units now last 7 days after collection.",
     "How long can platelets be kept?"),
    ("vialcare", "lis.autoverify", "plain",
     "About 40 % of routine chemistry results are autoverified.",
     "About 72 % of routine chemistry results are autoverified.",
     "What share of everyday chemistry tests is released without a human check?"),
    ("kilnworks", "cook.time", "cue",
     "A full console cook takes 5 hours.",
     "After moving to the incremental cooker, a full console cook takes 90 minutes.",
     "How long does it take to cook all content for console?"),
    ("kilnworks", "vcs.server", "cue",
     "The main Perforce server is hosted in the Montréal office.",
     "The main Perforce server was moved from the Montréal office to a cloud region in Virginia.",
     "Where is the primary depot server?"),
    ("kilnworks", "people.lead", "plain",
     "Kasimir Ellingboe runs the build engineering team.",
     "Annika Rosenqvist runs the build engineering team.",
     "Who is in charge of the people keeping the build farm alive?"),
    ("kilnworks", "shaders.size", "value_only",
     "The shader cache holds 2 TB.",
     "Shader cache capacity: 6 TB.",
     "How much compiled shader data can be stored?"),
    ("kilnworks", "crash.tool", "cue",
     "Crash reports are collected by an in-house crash server.",
     "Crash reports are no longer collected in-house; Backtrace receives them.",
     "Which system gathers crash dumps from players?"),
    ("metrohop", "realtime.refresh", "cue",
     "Vehicle positions refresh every 30 seconds.",
     "Vehicle positions now refresh every 10 seconds.",
     "How often do bus locations update in the app?"),
    ("metrohop", "fares.cap", "plain",
     "The daily fare cap is 6.40.",
     "The daily fare cap is 6.90.",
     "What is the highest total a rider is charged per day?"),
    ("metrohop", "people.pm", "cue",
     "Ottoline Ocansey is the product manager for the rider app.",
     "Ottoline Ocansey handed the rider app over to Rainer Obiora-Haas, who manages it today.",
     "Who decides what goes into the rider app?"),
    ("metrohop", "wallet.psp", "cue",
     "Wallet top-ups are processed by Adyen.",
     "Wallet top-ups switched from Adyen to Stripe in the spring.",
     "Which payment provider handles adding money to the wallet?"),
    ("metrohop", "planner.walk", "value_only",
     "The planner assumes a walking speed of 4.5 km/h.",
     "Planner walking speed: 4.0 km/h.",
     "How fast does the trip planner think people walk?"),
    ("palletbay", "pick.rate", "cue",
     "The pick target is 110 lines per hour.",
     "Now that pick-to-light is live, the pick target is 145 lines per hour.",
     "How many order lines should a picker do in an hour?"),
    ("palletbay", "people.night", "plain",
     "Desmond Achterhuis manages the night shift.",
     "Giedre Fairweather manages the night shift.",
     "Who runs the warehouse overnight?"),
    ("palletbay", "scan.model", "cue",
     "Pickers carry Zebra MC3300 scanners.",
     "The Zebra MC3300 scanners were replaced by ring scanners worn on the finger.",
     "What device do pickers confirm moves with?"),
    ("palletbay", "dock.slots", "plain",
     "Inbound trucks get 45-minute dock slots.",
     "Inbound trucks get 30-minute dock slots.",
     "How long is a delivery lorry given at the door?"),
    ("palletbay", "wms.vendor", "cue",
     "Stock is tracked in Manhattan SCALE.",
     "Stock has been tracked in Blue Yonder since the go-live weekend.",
     "Which warehouse management product holds the inventory?"),
    ("claimwise", "fraud.threshold", "cue",
     "Claims scoring above 0.8 go to the special investigations unit.",
     "The referral threshold for special investigations was lowered from 0.8 to 0.65.",
     "What fraud score sends a claim to investigators?"),
    ("claimwise", "payout.limit", "plain",
     "Adjusters can approve payouts up to 5,000 euros alone.",
     "Adjusters can approve payouts up to 12,000 euros alone.",
     "How much can an adjuster authorise without a second signature?"),
    ("claimwise", "people.ops", "cue",
     "Henrike Mabuza heads claims operations.",
     "Henrike Mabuza moved to underwriting; Fidelma Okoro heads claims operations.",
     "Who is in charge of claims handling?"),
    ("claimwise", "fnol.sla", "value_only",
     "First contact after a loss report must happen within 24 hours.",
     "First-contact SLA after a loss report: 4 hours.",
     "How quickly must someone call back a customer who reported damage?"),
    ("claimwise", "adjuster.os", "cue",
     "The adjuster app runs on iPads.",
     "The adjuster app is on rugged Android tablets these days.",
     "What hardware do field adjusters carry?"),
    ("tunewave", "audio.hifi", "cue",
     "The top streaming quality is 320 kbps Ogg Vorbis.",
     "The top streaming quality is now lossless FLAC at 16-bit/44.1 kHz.",
     "What is the best audio quality a subscriber can get?"),
    ("tunewave", "royalty.period", "plain",
     "Royalty statements go to labels on the 15th.",
     "Royalty statements go to labels on the 5th.",
     "On what day do rights holders get their statements?"),
    ("tunewave", "people.catalog", "cue",
     "Gaudenz Wexford-Adu leads the catalogue team.",
     "Gaudenz Wexford-Adu left; the catalogue team is led by Zsofia Marangoni-Reed.",
     "Who heads the people who manage the music catalogue?"),
    ("tunewave", "recs.model", "cue",
     "Home-screen mixes are ranked by a matrix-factorisation model.",
     "A two-tower neural model replaced matrix factorisation for home-screen mixes.",
     "What kind of model orders the mixes on the home screen?"),
    ("tunewave", "lyrics.partner", "value_only",
     "Synced lyrics are licensed from Musixmatch.",
     "Lyrics partner: LyricFind.",
     "Which company supplies the time-synced lyrics?"),
    ("enrolldesk", "enrol.open", "plain",
     "Enrolment for the autumn term opens on 1 July.",
     "Enrolment for the autumn term opens on 20 June.",
     "When can students start signing up for autumn courses?"),
    ("enrolldesk", "people.registrar", "cue",
     "Ambrosia Kettleborough is the university registrar.",
     "Since Ambrosia Kettleborough became provost, Ignacy Oduya has been registrar.",
     "Who is the registrar of the university?"),
    ("enrolldesk", "transcript.fee", "cue",
     "An official transcript costs 10 pounds.",
     "Official transcripts are no longer charged for.",
     "How much does a student pay for an official record of grades?"),
    ("enrolldesk", "timetable.tool", "cue",
     "Lecture slots are set in Syllabus Plus.",
     "Lecture slots moved to Semestry's TermTime last year.",
     "Which tool is used to build the lecture timetable?"),
    ("enrolldesk", "grades.deadline", "value_only",
     "Final grades are due 10 working days after the exam.",
     "Grade submission deadline: 5 working days after the exam.",
     "How long do lecturers have to hand in final marks?"),
    ("enrolldesk", "audit.credits", "plain",
     "A bachelor's degree needs 360 credits.",
     "A bachelor's degree needs 480 credits.",
     "How many credits must an undergraduate earn to graduate?"),
    ("dialbill", "rating.engine", "cue",
     "Usage is priced by an Ericsson rating engine.",
     "We switched usage pricing from the Ericsson engine to Optiva's charging engine.",
     "Which product rates calls and data?"),
    ("dialbill", "invoice.day", "plain",
     "Postpaid invoices are cut on the 1st of the month.",
     "Postpaid invoices are cut on the 25th of the month.",
     "On which day is the monthly bill produced?"),
    ("dialbill", "people.owner", "cue",
     "Caoimhe Rautenbach owns the billing platform.",
     "Ownership of the billing platform passed from Caoimhe Rautenbach to Ebenezer Lindgaard.",
     "Who is accountable for the billing systems?"),
    ("dialbill", "dunning.days", "plain",
     "Service is suspended 21 days after an unpaid due date.",
     "Service is suspended 14 days after an unpaid due date.",
     "How long after a missed payment are lines cut off?"),
    ("dialbill", "mediation.delay", "cue",
     "Call records reach rating within 15 minutes.",
     "Because the mediation layer went streaming, call records reach rating within 40 seconds.",
     "How long until a call's record is priced?"),
]


# (project, topic, old, new, question about old, question about new): both stay true.
NON_UPDATE_ITEMS: list[tuple[str, str, str, str, str, str]] = [
    ("vialcare", "tat.stat",
     "Urgent samples from the emergency department are reported within 1 hour.",
     "Urgent samples from the wards are reported within 2 hours.",
     "How fast must emergency-room specimens be resulted?",
     "What turnaround do urgent inpatient samples get?"),
    ("vialcare", "middleware.site",
     "The main hospital's analyzers connect through the middleware in the basement lab.",
     "The satellite clinic's analyzers connect through a cloud-hosted middleware.",
     "Where do the instruments of the central site plug in?",
     "How are the outpatient clinic's machines linked up?"),
    ("vialcare", "people.sections",
     "Dr. Benedikta Oyelowo leads microbiology.",
     "Dr. Rupert Malinowski-Eze leads haematology.",
     "Who heads the bacteria and culture section?",
     "Who runs the blood cell section?"),
    ("vialcare", "bank.storage",
     "Red cell units are stored at 4 degrees Celsius.",
     "Fresh frozen plasma is stored at minus 30 degrees Celsius.",
     "How cold is the fridge for packed red cells?",
     "At what temperature is plasma kept?"),
    ("vialcare", "tracking.tube",
     "Coagulation tests need a light-blue citrate tube.",
     "Glucose tests need a grey fluoride tube.",
     "Which container is drawn for clotting studies?",
     "What tube goes with a blood sugar order?"),
    ("vialcare", "interfaces.results",
     "Inpatient results go back to the ward system over HL7.",
     "GP practice results go out over a FHIR API.",
     "How do hospital wards receive lab values?",
     "How do family doctors get their patients' results?"),
    ("kilnworks", "cook.platform",
     "PC content is cooked on 24 Windows machines.",
     "Console content is cooked on 16 devkit-attached machines.",
     "How many cookers build the PC version?",
     "How many machines prepare the console version?"),
    ("kilnworks", "vcs.streams",
     "The main stream takes code from every team.",
     "The release stream takes only approved fixes.",
     "What can be submitted to the development line?",
     "What is allowed into the shipping branch?"),
    ("kilnworks", "people.farm",
     "Ilse Thorvaldsen owns the cook machines.",
     "Matthias Oyedepo owns the crash pipeline.",
     "Who maintains the content cookers?",
     "Who looks after crash processing?"),
    ("kilnworks", "ci.cadence",
     "Incremental builds run on every changelist.",
     "Full clean builds run once a night.",
     "When is a quick build started?",
     "How often does a from-scratch build happen?"),
    ("kilnworks", "shaders.platform",
     "DirectX shaders are compiled on Windows agents.",
     "Metal shaders are compiled on Mac minis.",
     "Where are the PC graphics shaders built?",
     "What hardware compiles the Apple shaders?"),
    ("metrohop", "realtime.mode",
     "Bus positions come from the operator's AVL system.",
     "Tram positions come from track circuit data.",
     "Where do we get the location of buses?",
     "What is the source for tram locations?"),
    ("metrohop", "fares.group",
     "Students travel at half fare with a verified card.",
     "Seniors over 65 travel free outside the morning peak.",
     "What discount do students get?",
     "When can pensioners ride without paying?"),
    ("metrohop", "people.eng",
     "Ludovica Amankwah leads the iOS team.",
     "Cyprian Haldorsen leads the Android team.",
     "Who is in charge of the iPhone app's developers?",
     "Who heads the engineers of the Android app?"),
    ("metrohop", "alerts.channel",
     "Planned works are announced a week ahead by email.",
     "Unplanned disruptions are announced by push notification.",
     "How do riders learn about scheduled engineering works?",
     "How are sudden service problems communicated?"),
    ("metrohop", "wallet.ticket",
     "Single tickets are valid for 90 minutes.",
     "Day passes are valid until 04:00 the next morning.",
     "How long can a one-way ticket be used?",
     "When does a 24-hour pass run out?"),
    ("palletbay", "pick.zone",
     "The ambient zone is picked with trolleys.",
     "The freezer zone is picked with reach trucks.",
     "What do pickers use in the room-temperature area?",
     "Which vehicles pick in the frozen section?"),
    ("palletbay", "conveyor.speed",
     "The inbound conveyor runs at 0.5 metres per second.",
     "The sortation conveyor runs at 2 metres per second.",
     "How fast does the receiving belt move?",
     "What is the speed of the sorter belt?"),
    ("palletbay", "people.shift",
     "Radka Oyelaran-Moss leads the day shift.",
     "Bertram Nakashima-Cole leads the weekend shift.",
     "Who is the daytime supervisor?",
     "Who supervises Saturdays and Sundays?"),
    ("palletbay", "dock.doors",
     "Doors 1 to 8 are for inbound deliveries.",
     "Doors 9 to 14 are for outbound loads.",
     "Which doors receive incoming trucks?",
     "Where are departing trailers loaded?"),
    ("palletbay", "scan.labels",
     "Pallets are labelled with SSCC barcodes.",
     "Bin locations are labelled with QR codes.",
     "What barcode identifies a pallet?",
     "How are shelf positions marked?"),
    ("claimwise", "fnol.channel",
     "Motor claims are mostly reported through the mobile app.",
     "Home claims are mostly reported by phone.",
     "How do customers usually report car damage?",
     "What is the usual way people report household losses?"),
    ("claimwise", "fraud.model",
     "Motor claims are scored by a gradient-boosted fraud model.",
     "Travel claims are checked by a rules list.",
     "What screens car claims for fraud?",
     "How are holiday claims vetted?"),
    ("claimwise", "people.adjusters",
     "Pieter Oyinlola coordinates motor adjusters.",
     "Siobhan Takahashi-Lowe coordinates property adjusters.",
     "Who plans the work of the car damage assessors?",
     "Who assigns the surveyors for buildings?"),
    ("claimwise", "payout.method",
     "Repairs at partner garages are paid to the garage.",
     "Total losses are paid to the policyholder.",
     "Who receives the money for a repair done by an approved workshop?",
     "Who is paid when a car is written off?"),
    ("claimwise", "docs.retention",
     "Claim files are kept for 7 years after closure.",
     "Call recordings are kept for 2 years.",
     "How long are closed claim folders archived?",
     "How long do we store phone recordings?"),
    ("tunewave", "audio.format",
     "Mobile clients stream AAC.",
     "Desktop clients stream Ogg Vorbis.",
     "Which codec do phones receive?",
     "What format does the computer app play?"),
    ("tunewave", "recs.surface",
     "Daily mixes are built from listening history.",
     "Release radar is built from followed artists.",
     "What are the daily playlists based on?",
     "What feeds the new-releases playlist?"),
    ("tunewave", "people.teams",
     "Greta Mwangi-Holloway leads recommendations.",
     "Oisin Beauregard leads audio delivery.",
     "Who is in charge of the personalisation team?",
     "Who runs the team that gets audio to devices?"),
    ("tunewave", "royalty.rate",
     "Labels are paid per stream from the premium pool.",
     "Publishers are paid a share of revenue for songwriting.",
     "How are record companies compensated?",
     "How do music publishers get their money?"),
    ("tunewave", "ingest.format",
     "Albums from major labels arrive as DDEX ERN 4.3.",
     "Podcasts arrive as RSS feeds.",
     "In what format do the big labels send releases?",
     "How do spoken-word shows get into the catalogue?"),
    ("enrolldesk", "enrol.limits",
     "Undergraduates may take up to 6 modules per term.",
     "Postgraduates may take up to 4 modules per term.",
     "What is the course load cap for bachelor students?",
     "How many modules can a master's student register for?"),
    ("enrolldesk", "transcript.delivery",
     "Domestic transcript requests are sent as signed PDFs.",
     "Transcripts for visa applications are sent on paper with a seal.",
     "How do home students receive their record of grades?",
     "What form do immigration transcripts take?"),
    ("enrolldesk", "people.faculties",
     "Hyacinth Oberhauser handles enrolment for engineering.",
     "Leopold Ampofo-Wren handles enrolment for humanities.",
     "Who processes course sign-ups in the engineering faculty?",
     "Who takes care of registrations for arts and history?"),
    ("enrolldesk", "timetable.rooms",
     "Lectures over 200 students are held in the Great Hall.",
     "Seminars are held in the library group rooms.",
     "Where do the largest classes meet?",
     "Where do small discussion classes take place?"),
    ("enrolldesk", "grades.scale",
     "Undergraduate work is marked on a 0-100 scale.",
     "Doctoral theses are graded pass or fail.",
     "What marking range is used for bachelor assessments?",
     "How is a PhD dissertation assessed?"),
    ("enrolldesk", "audit.minor",
     "A minor requires 60 credits outside the major.",
     "A double major requires 120 credits in each subject.",
     "How much study does a secondary subject take?",
     "What does a student need for two main subjects?"),
    ("dialbill", "rating.roaming",
     "EU roaming is rated at domestic prices.",
     "Roaming in the United States is rated at 2 euros per megabyte.",
     "What do customers pay for using their phone in Europe?",
     "How much does mobile data cost on a trip to America?"),
    ("dialbill", "invoice.format",
     "Consumer invoices are sent as PDFs by email.",
     "Enterprise invoices are delivered as EDI files.",
     "How do households get their bill?",
     "In what form do corporate accounts receive invoices?"),
    ("dialbill", "people.teams",
     "Eleonora Baptiste-Kim runs the prepaid platform.",
     "Jasper Ndlovu-Haig runs the postpaid platform.",
     "Who manages pay-as-you-go charging?",
     "Who manages the contract billing system?"),
    ("dialbill", "prepaid.bonus",
     "Top-ups over 20 euros give 5 GB of bonus data.",
     "Top-ups over 50 euros give unlimited weekend calls.",
     "What extra comes with a mid-sized recharge?",
     "What does a large recharge unlock?"),
    ("dialbill", "mediation.sources",
     "Voice records come from the IMS core.",
     "Data sessions come from the packet gateway.",
     "Where are call records collected from?",
     "What network element reports internet usage?"),
]

# (project, topic, source 1, source 2, question): two sources disagree, no replacement cue.
CONTRADICTION_ITEMS: list[tuple[str, str, str, str, str]] = [
    ("vialcare", "volume",
     "The annual report says the lab runs 3.8 million tests a year.",
     "The LIS statistics show 3.1 million tests last year.",
     "How many tests does the laboratory perform annually?"),
    ("vialcare", "staff",
     "The staffing plan lists 46 biomedical scientists.",
     "The rota system has 39 biomedical scientists scheduled.",
     "How many scientists work in the lab?"),
    ("kilnworks", "agents",
     "The studio wiki says the farm has 180 build agents.",
     "The farm dashboard counts 152 agents online.",
     "How big is the build farm?"),
    ("kilnworks", "buildtime",
     "The producer's slides give 40 minutes for an incremental build.",
     "The CI metrics put the median incremental build at 26 minutes.",
     "How long does a typical incremental build take?"),
    ("metrohop", "riders",
     "The city press release claims 410 thousand monthly app users.",
     "The analytics console reports 350 thousand monthly active users.",
     "How many people use the transit app each month?"),
    ("palletbay", "sku",
     "The sales brochure mentions 62,000 SKUs in stock.",
     "The WMS has 48,500 active SKUs.",
     "How many distinct products does the warehouse hold?"),
    ("palletbay", "accuracy",
     "The quarterly review states 99.8 % inventory accuracy.",
     "The last cycle counts found 98.9 % accuracy.",
     "How accurate is the stock record?"),
    ("claimwise", "cycle",
     "The customer charter says motor claims settle in 9 days on average.",
     "The claims database shows an average of 16 days to settle a motor claim.",
     "How long does it take to settle a car claim?"),
    ("tunewave", "catalogue",
     "The homepage advertises 100 million tracks.",
     "The catalogue database holds 87 million playable tracks.",
     "How many songs can subscribers play?"),
    ("tunewave", "subs",
     "The investor deck counts 21 million paying subscribers.",
     "The billing system has 18.4 million active paid plans.",
     "How many people pay for the service?"),
    ("enrolldesk", "students",
     "The prospectus says 31,000 students are enrolled.",
     "The student records system shows 28,700 registered students this term.",
     "How many students does the university have?"),
    ("dialbill", "lines",
     "The regulator filing reports 6.2 million mobile lines.",
     "The billing stack has 5.7 million billable lines.",
     "How many mobile subscriptions does the operator have?"),
]


# -- the files -----------------------------------------------------------------------------------


def build() -> dict[str, list[dict]]:
    """The five files of heldout6."""
    return hb.changed_build(globals())


def names() -> list[str]:
    """Every entity, person, owner, project and event name of heldout6."""
    named = [*ATTRS["steward"]["values"], *PERSON_ATTRS["buddy"]["values"]]  # people as values
    return hb.changed_names(globals(), named)


def leaks() -> list[str]:
    """What heldout6 shares with any other part (heldout_build.changed_leaks)."""
    return hb.changed_leaks(globals(), names())


if __name__ == "__main__":
    sys.exit(hb.main(__doc__, SPLIT, build, leaks, "shares with another part"))
