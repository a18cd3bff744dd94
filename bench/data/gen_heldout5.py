"""Generate the fifth held-out part (issue 27, item 7): `heldout5`, never read to tune.

    python bench/data/gen_heldout5.py           # (re)write the heldout5 files
    python bench/data/gen_heldout5.py --check   # exit 1 when a committed file is stale or
                                                # when heldout5 shares a name, an attribute kind
                                                # or a sentence with another part

Written while the update detector was being tuned by someone who never saw these files, so the
tuning can be checked for generalisation. Nothing is taken from the other parts (tune /
heldout / heldout2 of gen_streams.py, heldout3 of gen_heldout3.py, heldout5 of
gen_heldout5.py, memory_updates.jsonl): other projects (an airline crew-scheduling system, a
bank's payments core, an e-commerce search team, a robotics firmware team, a university
research computing cluster, a news publisher CMS, a farm-sensor IoT platform, a video
streaming CDN), other entities, attribute kinds, sentence templates, event kinds, people and
update wordings. Deterministic: no randomness but a sha256 of fixed strings (gen_streams'
helpers). The code is gen_heldout5.py's; only the data differs.

Files, in gen_streams' line format (id, set, split="heldout5", scope, seq, kind, entity,
attribute, text, questions, replaces, restates):

- `streams_parallel_heldout5.jsonl`: 14 entities x 9 attributes, every fact true at once.
  Near-twin identifiers in six pairs (pairing-solver-v7 / -v8, the SWIFT_GATEWAY_RW /
  SWIFT_GATEWAY_RO pool, the us-east-2a / us-east-2b search shard, firmware-ota-canary /
  firmware-ota-prod, sacct_rollup_daily / sacct_rollup_hourly, the fra1 / fra2 edge cache)
  plus two lone components, sharing attribute words ("is pinned
  to", "flushes every", "rotates its keys every", "pages", "is served from"), subjects late,
  passive or after the value ("V is where X runs", "V is the bucket behind X", "Only the V
  responders are woken up for X", "Turning off V takes X out of service"), near-twin values
  (s3://ota-images-canary / -stable, semantic_rerank / semantic_rerank_b).
- `streams_events_heldout5.jsonl`: crew disruption reports, settlement runs, relevance
  tests, firmware release candidates, dated maintenance windows, newsroom corrections, CDN
  purge batches: many of one template with another number or date.
- `streams_people_heldout5.jsonl`: 8 people x 8 attributes (mentor, instrument, coffee, car,
  sport, parking bay, volunteering, headphones), then 6 real updates of one attribute of one
  person each; the person's other facts stay true.
- `streams_mixed_heldout5.jsonl`: three projects (skyroster, furrowgrid, reelgate), each
  with five components and one person: ~60 % facts, ~18 % events, ~12 % real updates (16 cue
  wordings of their own plus plain new values with no cue), ~10 % restatements.
- `memory_updates_heldout5.jsonl`: hand-written pairs in memory_updates.jsonl's schema:
  8 projects, updates (cue / plain / value_only), near-topic non-updates, contradictions.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import heldout_build as hb  # noqa: E402
from heldout_build import up  # noqa: E402

SPLIT = "heldout5"


# -- parallel ------------------------------------------------------------------------------------

ENTITIES = [
    "pairing-solver-v7",
    "pairing-solver-v8",
    "the SWIFT_GATEWAY_RW pool",
    "the SWIFT_GATEWAY_RO pool",
    "the us-east-2a search shard",
    "the us-east-2b search shard",
    "firmware-ota-canary",
    "firmware-ota-prod",
    "sacct_rollup_daily",
    "sacct_rollup_hourly",
    "the wire-photo ingester",
    "the soil-probe collector",
    "the fra1 edge cache",
    "the fra2 edge cache",
]

Phrase = Callable[[str, str], str]

ATTRS: dict[str, dict] = {
    "node_pool": {
        "values": [
            "the c7g-arm pool",
            "the m6i-general pool",
            "the r7i-highmem pool",
            "the spot-batch pool",
            "the gpu-a10 pool",
            "the edge-bare pool",
            "the hpc-infiniband pool",
            "the i4i-nvme pool",
            "the burst-t3 pool",
            "the dedicated-pci pool",
            "the c7g-arm-b pool",
            "the gpu-l4 pool",
        ],
        "phrases": [
            lambda e, v: f"{up(e)} is pinned to {v} by a node selector.",
            lambda e, v: f"{up(v)} is where {e} runs.",
            lambda e, v: f"The scheduler only ever places {e} on {v}.",
        ],
        "questions": [
            lambda e: f"On which group of machines do the pods of {e} land?",
            lambda e: f"What hardware does the scheduler reserve for {e}?",
        ],
    },
    "flush_interval": {
        "values": [str(v) for v in (2, 5, 8, 10, 15, 20, 30, 45, 60, 90, 120, 300)],
        "phrases": [
            lambda e, v: f"{up(e)} flushes every {v} seconds.",
            lambda e, v: f"Buffered writes of {e} are pushed to disk once per {v} seconds.",
            lambda e, v: f"Every {v} seconds, whatever {e} holds in memory is written out.",
        ],
        "questions": [
            lambda e: f"How long can data sit unsaved in the buffer of {e}?",
            lambda e: f"At what cadence does {e} persist what it has queued?",
        ],
    },
    "key_rotation": {
        "values": [str(v) for v in (7, 14, 21, 30, 45, 60, 90, 120, 180, 365)],
        "phrases": [
            lambda e, v: f"{up(e)} rotates its keys every {v} days.",
            lambda e, v: f"Signing material used by {e} is replaced on a {v}-day cycle.",
            lambda e, v: f"A fresh encryption key is issued to {e} each {v} days.",
        ],
        "questions": [
            lambda e: f"How often does {e} get new cryptographic credentials?",
            lambda e: f"What is the lifetime of one key generation for {e}?",
        ],
    },
    "escalation": {
        "values": [
            "crew-ops-primary",
            "crew-ops-secondary",
            "treasury-rails",
            "treasury-rails-night",
            "relevance-duty",
            "fleet-firmware",
            "fleet-firmware-eu",
            "research-infra",
            "newsdesk-tech",
            "agronomy-iot",
            "edge-delivery",
            "edge-delivery-apac",
        ],
        "phrases": [
            lambda e, v: f"When {e} breaks, Opsgenie pages the {v} schedule.",
            lambda e, v: f"Alerts raised by {e} go to the {v} rotation.",
            lambda e, v: f"Only the {v} responders are woken up for {e}.",
        ],
        "questions": [
            lambda e: f"Who gets called in the night if {e} goes down?",
            lambda e: f"Which on-duty roster answers for failures of {e}?",
        ],
    },
    "asset_origin": {
        "values": [
            "s3://crew-assets-euw1",
            "s3://crew-assets-euw1-replica",
            "gs://pay-static-prod",
            "gs://pay-static-dr",
            "s3://search-synonyms-a",
            "s3://search-synonyms-b",
            "s3://ota-images-canary",
            "s3://ota-images-stable",
            "nfs://scratch01/rollups",
            "az://photos-raw",
            "az://photos-raw-cold",
            "gs://probe-dumps",
            "s3://fra-origin-1",
        ],
        "phrases": [
            lambda e, v: f"The static files of {e} are served from {v}.",
            lambda e, v: f"{up(v)} is the bucket behind {e}.",
            lambda e, v: f"Downloads requested from {e} are answered out of {v}.",
        ],
        "questions": [
            lambda e: f"Which storage location backs the content {e} hands out?",
            lambda e: f"What origin bucket feeds {e}?",
        ],
    },
    "worker_threads": {
        "values": [str(v) for v in (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)],
        "phrases": [
            lambda e, v: f"{up(e)} runs {v} worker threads.",
            lambda e, v: f"A pool of {v} threads does the work inside {e}.",
            lambda e, v: f"Concurrency for {e} is set to {v} threads per process.",
        ],
        "questions": [
            lambda e: f"How many things can {e} process in parallel?",
            lambda e: f"How many jobs can {e} have in flight at once?",
        ],
    },
    "scratch_quota": {
        "values": ["5 GB", "10 GB", "20 GB", "25 GB", "40 GB", "50 GB", "80 GB", "100 GB",
                   "200 GB", "250 GB", "500 GB", "1 TB"],  # fmt: skip
        "phrases": [
            lambda e, v: f"{up(e)} may write at most {v} to its scratch volume.",
            lambda e, v: f"Temporary files of {e} are limited to {v}.",
            lambda e, v: f"Past {v} of scratch space, writes from {e} are refused.",
        ],
        "questions": [
            lambda e: f"How much local disk is {e} allowed for intermediate data?",
            lambda e: f"When does {e} run out of room for temp output?",
        ],
    },
    "cert_expiry": {
        "values": ["2027-01-15", "2027-02-01", "2027-02-28", "2027-03-10", "2027-03-31",
                   "2027-04-22", "2027-05-05", "2027-06-30", "2027-07-14", "2027-08-09",
                   "2027-09-19", "2027-11-02", "2027-12-24"],  # fmt: skip
        "phrases": [
            lambda e, v: f"The TLS certificate of {e} expires on {v}.",
            lambda e, v: f"{up(e)} presents a certificate valid until {v}.",
            lambda e, v: f"On {v}, the serving cert for {e} runs out.",
        ],
        "questions": [
            lambda e: f"By what date must {e} get a renewed certificate?",
            lambda e: f"When will clients start rejecting the handshake of {e}?",
        ],
    },
    "gate_flag": {
        "values": [
            "crew_solver_beta",
            "crew_solver_ga",
            "rtgs_writes",
            "rtgs_reads_only",
            "semantic_rerank",
            "semantic_rerank_b",
            "ota_staged_rollout",
            "ota_full_rollout",
            "rollup_v2",
            "rollup_v2_hourly",
            "wire_autocrop",
            "probe_gzip",
            "edge_h3",
        ],
        "phrases": [
            lambda e, v: f"Traffic reaches {e} only while the flag {v} is on.",
            lambda e, v: f"{up(e)} sits behind the {v} feature toggle.",
            lambda e, v: f"Turning off {v} takes {e} out of service.",
        ],
        "questions": [
            lambda e: f"Which switch in the flag system controls {e}?",
            lambda e: f"What toggle would disable {e}?",
        ],
    },
}


# -- events --------------------------------------------------------------------------------------

EVENTS: dict[str, dict] = {
    "disruptions": {
        "names": ["IRREG-7731", "IRREG-7732", "IRREG-7736", "IRREG-7740"],
        "what": [
            "grounded eleven rotations after a snowstorm closed Oslo",
            "left four cabin crews illegal on rest after a three-hour delay",
            "swapped two A321 tails and broke the standby roster",
            "stranded a pilot pairing in Tenerife overnight",
        ],
        "phrases": [
            lambda n, a: f"Disruption report {n} {a}.",
            lambda n, a: f"Ops control logged that {n} {a}.",
        ],
        "questions": [
            lambda n: f"What went wrong for the crews in {n}?",
            lambda n: f"What operational damage is recorded under {n}?",
        ],
    },
    "settlements": {
        "names": ["settlement run SR-0914", "settlement run SR-0915", "settlement run SR-0921",
                  "settlement run SR-0922"],  # fmt: skip
        "what": [
            "posted late because the central bank window closed early",
            "rejected 212 SEPA credit transfers with a bad BIC",
            "balanced to the cent on the first attempt",
            "was replayed after a duplicate camt.053 file arrived",
        ],
        "phrases": [
            lambda n, a: f"The treasury desk noted that {n} {a}.",
            lambda n, a: f"{up(n)} {a}.",
        ],
        "questions": [
            lambda n: f"How did {n} turn out?",
            lambda n: f"What is on record about {n}?",
        ],
    },
    "experiments": {
        "names": ["relevance test RLV-52", "relevance test RLV-53", "relevance test RLV-57"],
        "what": [
            "lifted add-to-cart by 1.8 % with typo-tolerant matching",
            "was stopped early because zero-result searches doubled",
            "showed no difference between the two synonym lists",
        ],
        "phrases": [
            lambda n, a: f"The search team's {n} {a}.",
            lambda n, a: f"Readout: {n} {a}.",
        ],
        "questions": [lambda n: f"What did we learn from {n}?"],
    },
    "firmware": {
        "names": ["firmware 3.4.1-rc2", "firmware 3.4.1-rc3", "firmware 3.5.0-rc1"],
        "what": [
            "bricked two gripper controllers on the test bench",
            "cut motor jitter on the wrist joint by half",
            "failed the watchdog soak after nine hours",
        ],
        "phrases": [
            lambda n, a: f"Robot {n} {a}.",
            lambda n, a: f"On the hardware-in-the-loop rig, {n} {a}.",
        ],
        "questions": [lambda n: f"How did {n} behave when tested?"],
    },
    "maintenance": {
        "names": ["2026-09-02", "2026-09-16", "2026-09-30"],
        "what": [
            "replaced the Lustre metadata server",
            "upgraded Slurm and drained every partition for six hours",
            "was cancelled because the chiller contractor did not show up",
        ],
        "phrases": [
            lambda n, a: f"The cluster maintenance window of {n} {a}.",
            lambda n, a: f"Research computing's downtime on {n} {a}.",
        ],
        "questions": [lambda n: f"What happened to the compute cluster on {n}?"],
    },
    "corrections": {
        "names": ["correction notice CN-118", "correction notice CN-119", "correction notice CN-124"],
        "what": [
            "fixed a misquoted council vote in the housing story",
            "removed a photo caption that named the wrong farmer",
            "added a disclosure to the energy price explainer",
        ],
        "phrases": [
            lambda n, a: f"The newsroom's {n} {a}.",
            lambda n, a: f"Published yesterday, {n} {a}.",
        ],
        "questions": [lambda n: f"What error in our journalism does {n} deal with?"],
    },
    "purges": {
        "names": ["purge batch PB-2041", "purge batch PB-2042", "purge batch PB-2049"],
        "what": [
            "invalidated every HLS manifest of the cup final",
            "missed the Frankfurt POPs because of an API timeout",
            "cleared stale thumbnails for the documentary catalogue",
        ],
        "phrases": [
            lambda n, a: f"CDN {n} {a}.",
            lambda n, a: f"According to the edge log, {n} {a}.",
        ],
        "questions": [lambda n: f"What did {n} do at the edge?"],
    },
}


# -- people --------------------------------------------------------------------------------------

PEOPLE = [
    "Ysolde Marchetti",
    "Cormac Tolliver",
    "Philippa Ngata",
    "Evander Lindholm",
    "Tiberius Brennan",
    "Leocadia Haverkamp",
    "Fintan Szabo",
    "Clementine Ishikawa",
]
PERSON_ATTRS: dict[str, dict] = {
    "mentor": {
        "values": [
            "Augustin Pretorius",
            "Hermione Valdés",
            "Leontyne Oduro",
            "Rosalind Featherstone",
            "Barnaby Wojtaszek",
            "Beatrix Nakagawa",
            "Lysander Quaye",
            "Octavia Lindqvist-Mora",
        ],
        "phrases": [
            lambda p, v: f"{p} is mentored by {v}.",
            lambda p, v: f"Career advice for {p} comes from {v}, the assigned mentor.",
        ],
        "questions": [lambda p: f"Who coaches {p} on their career path?"],
    },
    "instrument": {
        "values": ["the cello", "the bass guitar", "the accordion", "the oboe", "the banjo",
                   "the tabla", "the trumpet", "the harp"],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} plays {v} in a community orchestra.",
            lambda p, v: f"Evenings, {p} practises {v}.",
        ],
        "questions": [lambda p: f"What does {p} make music with?"],
    },
    "coffee": {
        "values": ["a flat white", "a double espresso", "an oat cortado", "a cold brew",
                   "a cardamom latte", "a black filter coffee", "a macchiato", "a mocha"],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} always orders {v} from the canteen.",
            lambda p, v: f"If you fetch drinks, {p} wants {v}.",
        ],
        "questions": [lambda p: f"What should I bring back from the café for {p}?"],
    },
    "car": {
        "values": ["a Skoda Octavia estate", "a Renault Zoe", "a Volvo V60", "a Fiat Panda",
                   "a Kia EV6", "a Toyota Yaris hybrid", "a Mazda MX-5", "a VW ID.Buzz"],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} drives {v}.",
            lambda p, v: f"The vehicle {p} owns is {v}.",
        ],
        "questions": [lambda p: f"What does {p} get around in by road?"],
    },
    "sport": {
        "values": ["water polo", "fencing", "ultimate frisbee", "rowing", "badminton",
                   "orienteering", "curling", "handball"],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} competes in {v} at club level.",
            lambda p, v: f"Twice a week {p} trains for {v}.",
        ],
        "questions": [lambda p: f"Which game or discipline does {p} practise competitively?"],
    },
    "parking": {
        "values": ["bay P2-14", "bay P2-41", "bay P1-07", "bay P3-22", "bay B-05", "bay B-50",
                   "bay P1-70", "bay P3-02"],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} parks in {v} of the staff garage.",
            lambda p, v: f"The garage spot allocated to {p} is {v}.",
        ],
        "questions": [lambda p: f"Where does {p} leave the car at the office?"],
    },
    "volunteering": {
        "values": ["a food bank", "a coding club for teenagers", "the local lifeboat crew",
                   "a hospice shop", "a river clean-up group", "a refugee language café",
                   "an animal shelter", "a repair café"],  # fmt: skip
        "phrases": [
            lambda p, v: f"{p} volunteers at {v} on Saturdays.",
            lambda p, v: f"Unpaid, {p} gives time to {v}.",
        ],
        "questions": [lambda p: f"What good cause does {p} help out with?"],
    },
    "headphones": {
        "values": ["Sony WH-1000XM5", "Bose QC45", "AirPods Max", "Jabra Evolve2 85",
                   "Sennheiser HD 600", "Shure Aonic 50", "Beyerdynamic DT 770",
                   "Logitech Zone Vibe"],  # fmt: skip
        "phrases": [
            lambda p, v: f"On calls {p} wears {v}.",
            lambda p, v: f"{p}'s headset is a pair of {v}.",
        ],
        "questions": [lambda p: f"What does {p} use to listen in meetings?"],
    },
}
PersonUpdate = Callable[[str, str, str], str]  # (person, old, new) -> text
# One real change of one attribute per person; the other attributes of that person stay true.
PERSON_UPDATES: dict[str, PersonUpdate] = {
    "mentor": lambda p, o, n: f"{o} handed mentoring of {p} over to {n} this quarter.",
    "car": lambda p, o, n: f"{p} sold {o} and picked up {n}.",
    "parking": lambda p, o, n: f"Facilities reassigned {p} from {o} to {n}.",
    "coffee": lambda p, o, n: f"{p} went off {o}; the usual order is {n} lately.",
    "sport": lambda p, o, n: f"{p} quit {o} and took up {n}.",
    "headphones": lambda p, o, n: f"{p}'s {o} broke, so IT issued {n}.",
}


# -- mixed ---------------------------------------------------------------------------------------

MIXED_PROJECTS: dict[str, tuple[list[str], str]] = {
    "skyroster": (
        [
            "the crew-legality checker",
            "the standby-callout bot",
            "roster-publisher-blue",
            "roster-publisher-green",
            "the FLT_OPS_DB_RO replica",
        ],
        "Saoirse Kandola",
    ),
    "furrowgrid": (
        [
            "the moisture-probe gateway (north field)",
            "the moisture-probe gateway (south field)",
            "the irrigation-scheduler",
            "the LoRa uplink decoder",
            "silo-telemetry-v1",
        ],
        "Hieronymus Baptiste",
    ),
    "reelgate": (
        [
            "the origin shield in ams",
            "the origin shield in sin",
            "the manifest-rewriter",
            "drm-license-proxy-canary",
            "drm-license-proxy-stable",
        ],
        "Zenobia Laurentis",
    ),
}
MIXED_ATTRS = ["flush_interval", "key_rotation", "worker_threads", "scratch_quota", "escalation"]
MIXED_PERSON_ATTRS = ["parking", "car", "instrument", "coffee", "sport"]
# Which attribute of the project's person changes (the others stay true).
MIXED_PERSON_UPDATE = {"skyroster": "parking", "furrowgrid": "car", "reelgate": "coffee"}
# How an attribute is named and how its value reads inside an update sentence.
NOUN = {
    "flush_interval": ("the flush interval", lambda v: f"{v} seconds"),
    "key_rotation": ("the key rotation period", lambda v: f"{v} days"),
    "worker_threads": ("the thread count", lambda v: f"{v} threads"),
    "scratch_quota": ("the scratch quota", lambda v: v),
    "escalation": ("the paging schedule", lambda v: v),
}
Update = Callable[[str, str, str, str], str]  # (entity, noun, old, new) -> text
# Real-update wordings no other part has; each is used in turn, so every one of them occurs.
UPDATES: list[Update] = [
    lambda e, a, o, n: f"Per today's change request, {a} of {e} is {n}, superseding {o}.",
    lambda e, a, o, n: f"{up(e)} has had {a} revised to {n}.",
    lambda e, a, o, n: f"We retuned {a} on {e} to {n}.",
    lambda e, a, o, n: f"{up(a)} for {e} read {o} until Tuesday's rollout set it to {n}.",
    lambda e, a, o, n: f"{up(e)} migrated off {o}; {a} is {n} after the migration.",
    lambda e, a, o, n: f"The {o} setting for {a} on {e} is obsolete; {n} applies.",
    lambda e, a, o, n: f"{up(e)} received a new {a.removeprefix('the ')}: {n}.",
    lambda e, a, o, n: f"Amended: {a} of {e} = {n}.",
    lambda e, a, o, n: f"Following the incident review, {e} was reconfigured to {n} ({a}).",
    lambda e, a, o, n: f"{up(o)} was the earlier {a.removeprefix('the ')} on {e}; the current one is {n}.",
    lambda e, a, o, n: f"{up(e)} ships with {n} as {a}, in place of {o}.",
    lambda e, a, o, n: f"{up(a)} of {e} was reverted to {n}.",
    lambda e, a, o, n: f"Ops flipped {e} to {n} for {a} last night.",
    lambda e, a, o, n: f"{up(e)} abandoned {o} for {a}; {n} took over.",
    lambda e, a, o, n: f"A change ticket set {a} of {e} to {n} last week.",
    lambda e, a, o, n: f"{up(a)} for {e}: {o} is history, {n} is current.",
]
RESTATE: dict[str, Callable[[str, str], str]] = {
    "flush_interval": lambda e, v: f"No write sits in the buffer of {e} longer than {v} seconds.",
    "key_rotation": lambda e, v: f"Keys held by {e} are swapped out on a {v}-day schedule.",
    "worker_threads": lambda e, v: f"Inside {e}, {v} threads share the load.",
    "scratch_quota": lambda e, v: f"The temp-space ceiling for {e} stands at {v}.",
    "escalation": lambda e, v: f"Pages about {e} land with {v}.",
    "parking": lambda p, v: f"The car of {p} goes in {v}.",
    "car": lambda p, v: f"{p} gets to client sites in {v}.",
    "instrument": lambda p, v: f"{p} is a keen {v.removeprefix('the ')} player.",
    "coffee": lambda p, v: f"{p}'s canteen drink of choice is {v}.",
    "sport": lambda p, v: f"{p} turns out for a local {v} side.",
}
MIXED_EVENTS: dict[str, list[tuple[str, str]]] = {
    "skyroster": [
        (
            "Roster period RP-2611 was published two days late because of a solver crash.",
            "Why did the crews get their November schedule late?",
        ),
        (
            "Disruption IRREG-8104 left six cabin crews out of hours in Palma.",
            "What did IRREG-8104 do to the crews in Palma?",
        ),
        (
            "Roster period RP-2612 went out with 40 unassigned reserve days.",
            "What gap was there in the December schedule?",
        ),
        (
            "Audit finding AF-77 says the legality checker ignores split duties.",
            "Which rule gap did the auditors flag in AF-77?",
        ),
        (
            "Disruption IRREG-8109 was a volcanic ash closure over Catania.",
            "What grounded flights in IRREG-8109?",
        ),
        (
            "Pull request !3390 adds the new EASA rest rules to the checker.",
            "Which regulation change does merge request 3390 bring in?",
        ),
        (
            "On 2026-10-05, the union approved the winter reserve pattern.",
            "What did crew representatives sign off in early October?",
        ),
        (
            "Audit finding AF-81 says call-outs were logged without timestamps.",
            "What logging gap is described in AF-81?",
        ),
        (
            "Pull request !3402 makes roster-publisher-green the default target.",
            "What does merge request 3402 change about publishing?",
        ),
    ],
    "furrowgrid": [
        (
            "Field outage FO-331 took the north gateway offline during the harvest.",
            "What stopped readings from the north field in FO-331?",
        ),
        (
            "Firmware push FW-58 raised probe battery life to fourteen months.",
            "How long do probe batteries last after the FW-58 push?",
        ),
        (
            "Field outage FO-336 was a cow chewing through a solar cable.",
            "What unusual cause was behind FO-336?",
        ),
        (
            "Season review 2026-H1 found irrigation used 18 % less water.",
            "How much water was saved in the first half of 2026?",
        ),
        (
            "Firmware push FW-61 broke the LoRa join on older probes.",
            "What regression did FW-61 bring?",
        ),
        (
            "Work order WO-4402 replaces the mast at the south field.",
            "What physical repair is WO-4402 about?",
        ),
        (
            "On 2026-04-18, frost alerts fired for the first time this year.",
            "When did the first cold warning of the spring go off?",
        ),
        (
            "Work order WO-4409 adds two probes to the orchard rows.",
            "How many sensors is WO-4409 putting among the fruit trees?",
        ),
        (
            "Season review 2026-H2 blamed silo-telemetry-v1 for missed fill alerts.",
            "Which component did the second-half review fault for late silo warnings?",
        ),
    ],
    "reelgate": [
        (
            "Live event LE-905 peaked at 2.1 million concurrent viewers.",
            "What was the audience high point during LE-905?",
        ),
        (
            "Purge job PJ-7710 emptied the ams shield by mistake.",
            "What accidental wipe happened in PJ-7710?",
        ),
        (
            "Live event LE-912 rebuffered for Safari users for twenty minutes.",
            "Which browser's viewers had stalls in LE-912?",
        ),
        (
            "Capacity plan CP-27Q1 adds 400 Gbps of egress in Singapore.",
            "How much extra bandwidth does the first-quarter plan bring to Asia?",
        ),
        (
            "Purge job PJ-7714 cleared manifests for the relaunched kids catalogue.",
            "Which catalogue's playlists were invalidated by PJ-7714?",
        ),
        (
            "Postmortem RG-PM-19 traced licence failures to clock skew on the canary proxy.",
            "What root cause did RG-PM-19 identify for licence errors?",
        ),
        (
            "On 2026-11-21, the cup final streamed without a single origin error.",
            "How did the late-November final go for the origin?",
        ),
        (
            "Capacity plan CP-27Q2 retires the old Madrid cache racks.",
            "What hardware does the second-quarter plan decommission?",
        ),
        (
            "Postmortem RG-PM-22 covers a certificate mix-up on the manifest-rewriter.",
            "What went wrong according to RG-PM-22?",
        ),
    ],
}


# -- hand-written update pairs (memory_updates.jsonl's schema) -----------------------------------

# project -> (about, context facts as (topic, text)); items below name their project.
PROJECTS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "aerocrew": (
        "airline crew scheduling: pairing optimiser (Python, OR-Tools), bid portal, crew app",
        [
            ("solver", "The pairing optimiser is a Python service built on OR-Tools."),
            ("bids", "Cabin crew enter their monthly preferences in the bid portal."),
            ("app", "Crew check their duties in a native iOS and Android app."),
            ("people", "Marisela Oyarzun leads crew planning."),
            ("rules", "Flight time limits follow EASA ORO.FTL."),
            ("db", "Rosters are stored in Oracle 19c."),
        ],
    ),
    "ledgerpay": (
        "bank payments core: payment-hub (Java), ISO 20022 gateway, fraud screening, ledger",
        [
            ("hub", "payment-hub is a Java 21 service that routes every outgoing transfer."),
            ("iso", "Messages to clearing houses are ISO 20022 pacs.008."),
            ("fraud", "Every payment passes a fraud score before release."),
            ("people", "Thorvald Amadi owns the payments core."),
            ("ledger", "Balances are booked on a mainframe ledger in COBOL."),
            ("mq", "payment-hub talks to the ledger over IBM MQ."),
        ],
    ),
    "findcart": (
        "e-commerce search: OpenSearch cluster, query-understanding service, autocomplete",
        [
            ("engine", "Product search runs on an OpenSearch cluster."),
            ("qu", "query-understanding rewrites queries before they reach the index."),
            ("auto", "Autocomplete suggestions come from a separate prefix index."),
            ("people", "Wendeline Ocampo leads search relevance."),
            ("feed", "The catalogue feed is re-indexed from Kafka."),
            ("eval", "Relevance is judged on a set of 3,000 labelled queries."),
        ],
    ),
    "servoworks": (
        "robotics firmware: STM32 motor controllers, Zephyr RTOS, CAN bus, test rig",
        [
            ("mcu", "The joint controllers use STM32G4 microcontrollers."),
            ("rtos", "The firmware is built on Zephyr RTOS."),
            ("bus", "Joints talk to the main computer over CAN FD."),
            ("people", "Ambrose Keskin owns the motor control firmware."),
            ("rig", "Every release runs on a hardware-in-the-loop rig."),
            ("ota", "Firmware reaches robots through signed OTA images."),
        ],
    ),
    "gridhall": (
        "university research computing: Slurm cluster, Lustre storage, GPU partition",
        [
            ("sched", "Jobs are scheduled by Slurm."),
            ("fs", "Project data lives on a Lustre file system."),
            ("gpu", "The GPU partition has A100 nodes."),
            ("people", "Dr. Imelda Sorensen chairs the allocation committee."),
            ("login", "Researchers reach the cluster through two login nodes."),
            ("soft", "Software is provided as Lmod modules."),
        ],
    ),
    "pressroom": (
        "news publisher CMS: Wagtail CMS, paywall service, wire ingest, push alerts",
        [
            ("cms", "Journalists write stories in a Wagtail CMS."),
            ("pay", "The paywall meters free articles per reader."),
            ("wire", "Agency copy arrives through a wire ingest service."),
            ("people", "Bernadette Kaur is the managing editor for digital."),
            ("push", "Breaking news alerts go to the app as push notifications."),
            ("img", "Photos are resized by an image service on the fly."),
        ],
    ),
    "tillhub": (
        "farm-sensor IoT platform: LoRaWAN gateways, MQTT broker, agronomy dashboard",
        [
            ("radio", "Field sensors report over LoRaWAN."),
            ("mqtt", "Readings are fanned out by an MQTT broker."),
            ("dash", "Farmers see their fields on an agronomy dashboard."),
            ("people", "Percival Mwangi runs the field installations."),
            ("db", "Sensor history is kept in InfluxDB."),
            ("power", "Gateways in the fields run on solar panels."),
        ],
    ),
    "vidhop": (
        "video streaming CDN: packager, origin servers, DRM licence service, edge caches",
        [
            ("pack", "The packager turns mezzanine files into HLS and DASH."),
            ("origin", "Two origin clusters sit behind the edge caches."),
            ("drm", "Licences for protected titles come from a DRM service."),
            ("people", "Rosamund Achterhof leads video delivery."),
            ("edge", "Edge caches run Varnish."),
            ("qoe", "Playback quality is measured with client beacons."),
        ],
    ),
}

# (project, topic, style, old, new, question); topic's first dotted part keeps context apart.
UPDATE_ITEMS: list[tuple[str, str, str, str, str, str]] = [
    ("aerocrew", "solver.runtime", "cue",
     "A full monthly pairing run takes 6 hours.",
     "After the warm-start change, a full monthly pairing run finishes in 2 hours.",
     "How long does the optimiser need for a whole month of pairings?"),
    ("aerocrew", "bids.window", "plain",
     "The bid portal opens on the 5th of each month.",
     "The bid portal opens on the 8th of each month.",
     "On which day can crew start submitting preferences?"),
    ("aerocrew", "app.min", "value_only",
     "The crew app supports Android 10 and later.",
     "Crew app minimum Android: 12.",
     "What is the oldest phone OS the duty app still runs on?"),
    ("aerocrew", "people.planning", "cue",
     "Marisela Oyarzun signs off the published rosters.",
     "Roster sign-off moved across from Marisela Oyarzun to Eustace Bamidele.",
     "Who approves a roster before crews see it?"),
    ("aerocrew", "db.engine", "cue",
     "Rosters are kept in Oracle 19c.",
     "Rosters were ported from Oracle 19c onto PostgreSQL 16.",
     "What database stores the crew schedules?"),
    ("aerocrew", "rules.rest", "plain",
     "Minimum rest at home base is 12 hours.",
     "Minimum rest at home base is 14 hours.",
     "How much time off must crew get at base between duties?"),
    ("ledgerpay", "fraud.threshold", "cue",
     "Payments scoring above 0.80 are held for review.",
     "The review hold kicks in above 0.72 following the fraud team's recalibration.",
     "What fraud score sends a transfer to manual checking?"),
    ("ledgerpay", "hub.cutoff", "plain",
     "Same-day SEPA payments must be submitted before 15:30.",
     "Same-day SEPA payments must be submitted before 16:15.",
     "What is the latest time for a euro transfer to go out today?"),
    ("ledgerpay", "people.core", "value_only",
     "Thorvald Amadi is the product owner of payment-hub.",
     "payment-hub product owner: Gaspard Ndiaye.",
     "Who sets priorities for the routing service?"),
    ("ledgerpay", "mq.queue", "cue",
     "payment-hub writes bookings to the queue LEDGER.IN.01.",
     "Bookings from payment-hub go to LEDGER.IN.02 since the queue split.",
     "Into which MQ queue are postings for the ledger put?"),
    ("ledgerpay", "iso.version", "cue",
     "Outgoing credit transfers use pacs.008.001.08.",
     "We bumped outgoing credit transfers up a schema release to pacs.008.001.10.",
     "Which version of the credit transfer message do we send?"),
    ("findcart", "engine.version", "cue",
     "The product index runs on OpenSearch 2.11.",
     "The product index was rolled forward to OpenSearch 2.15 over the weekend.",
     "Which OpenSearch release hosts the catalogue index?"),
    ("findcart", "auto.count", "value_only",
     "Autocomplete shows 8 suggestions.",
     "Autocomplete suggestions shown: 6.",
     "How many completions appear under the search box?"),
    ("findcart", "qu.model", "plain",
     "query-understanding classifies queries with a fastText model.",
     "query-understanding classifies queries with a DistilBERT model.",
     "What model decides which category a search belongs to?"),
    ("findcart", "people.relevance", "cue",
     "Wendeline Ocampo approves every ranking change.",
     "Ranking changes are approved by Horatio Lemaire after Wendeline Ocampo's move to pricing.",
     "Whose approval does a new ranking tweak need?"),
    ("findcart", "feed.delay", "plain",
     "Price changes reach the index within 5 minutes.",
     "Price changes reach the index within 90 seconds.",
     "How quickly does a new price show up in search?"),
    ("servoworks", "mcu.part", "cue",
     "The wrist joint runs on an STM32G474.",
     "Owing to the chip shortage the wrist joint is built around an STM32G491 instead.",
     "Which microcontroller drives the wrist?"),
    ("servoworks", "bus.rate", "plain",
     "The CAN FD data phase runs at 2 Mbit/s.",
     "The CAN FD data phase runs at 5 Mbit/s.",
     "How fast is the data phase on the joint bus?"),
    ("servoworks", "rtos.version", "cue",
     "The controllers are built against Zephyr 3.5.",
     "The controllers build against Zephyr 3.7 LTS from this release.",
     "Which Zephyr version is the firmware compiled with?"),
    ("servoworks", "people.fw", "value_only",
     "Ambrose Keskin reviews all motor control patches.",
     "Motor control patch reviewer: Sigrun Ferreol-Nakamura.",
     "Who checks changes to the motor loop code?"),
    ("servoworks", "rig.hours", "cue",
     "Release candidates soak on the rig for 12 hours.",
     "The rig soak for release candidates was stretched to 24 hours.",
     "How long does a candidate build run on the test bench?"),
    ("gridhall", "sched.walltime", "cue",
     "The default job wall time is 24 hours.",
     "The default job wall time dropped to 12 hours at the start of term.",
     "How long can a job run if it asks for no time limit?"),
    ("gridhall", "fs.quota", "value_only",
     "Each project gets 10 TB on Lustre.",
     "Lustre project quota: 20 TB.",
     "How much parallel storage does a research group receive?"),
    ("gridhall", "gpu.limit", "plain",
     "A user may hold 4 GPUs at once.",
     "A user may hold 8 GPUs at once.",
     "How many accelerators can one researcher use at the same time?"),
    ("gridhall", "people.alloc", "cue",
     "Dr. Imelda Sorensen decides on large allocation requests.",
     "Large allocation requests went to Prof. Caspar Ilunga once Dr. Sorensen stepped down.",
     "Who rules on big compute-time applications?"),
    ("gridhall", "login.host", "plain",
     "Researchers log in at login1.gridhall.ac.uk.",
     "Researchers log in at hpc.gridhall.ac.uk.",
     "Which hostname do scientists SSH into?"),
    ("pressroom", "pay.meter", "cue",
     "Readers get 5 free articles a month.",
     "The meter was tightened so that readers get 3 free articles a month.",
     "How many stories can a non-subscriber read monthly?"),
    ("pressroom", "cms.version", "plain",
     "The newsroom runs Wagtail 5.2.",
     "The newsroom runs Wagtail 6.1.",
     "Which version of the editing system do journalists use?"),
    ("pressroom", "people.digital", "value_only",
     "Bernadette Kaur approves homepage layout changes.",
     "Homepage layout approver: Leopoldine Opoku.",
     "Who must agree before the front page design changes?"),
    ("pressroom", "wire.agency", "cue",
     "Agency copy is bought from Reuters.",
     "We dropped Reuters; agency copy is supplied by AP under the new contract.",
     "Which news agency feeds our wire desk?"),
    ("pressroom", "push.cap", "plain",
     "The app sends at most 4 breaking alerts a day.",
     "The app sends at most 6 breaking alerts a day.",
     "What is the daily limit on urgent notifications?"),
    ("tillhub", "radio.sf", "cue",
     "Field sensors transmit at spreading factor SF9.",
     "Field sensors were retuned down to SF7 to save airtime.",
     "What spreading factor do the soil sensors use?"),
    ("tillhub", "db.retention", "plain",
     "Raw sensor readings are kept for 2 years.",
     "Raw sensor readings are kept for 5 years.",
     "How long is unaggregated field data stored?"),
    ("tillhub", "mqtt.broker", "cue",
     "Readings go through a Mosquitto broker.",
     "Readings flow through EMQX ever since Mosquitto hit its connection ceiling.",
     "Which MQTT server distributes the readings?"),
    ("tillhub", "people.install", "value_only",
     "Percival Mwangi schedules new sensor installations.",
     "Sensor installation scheduling: Henrietta Obuya.",
     "Who books the visits to put in new probes?"),
    ("tillhub", "dash.refresh", "plain",
     "The agronomy dashboard refreshes every 15 minutes.",
     "The agronomy dashboard refreshes every 5 minutes.",
     "How often do the field charts update?"),
    ("vidhop", "pack.segment", "cue",
     "The packager cuts 6-second segments.",
     "The packager cuts 4-second segments after the low-latency project.",
     "How long is each chunk of video produced by the packager?"),
    ("vidhop", "drm.provider", "plain",
     "Widevine licences are issued by BuyDRM.",
     "Widevine licences are issued by EZDRM.",
     "Which vendor hands out Widevine keys?"),
    ("vidhop", "edge.software", "cue",
     "Edge caches run Varnish 6.",
     "Edge caches were rebuilt on Varnish 7.4 during the hardware refresh.",
     "What Varnish generation serves from the edge?"),
    ("vidhop", "people.delivery", "value_only",
     "Rosamund Achterhof signs off CDN vendor contracts.",
     "CDN vendor contract sign-off: Maximilian Adebayo-Fox.",
     "Who authorises agreements with delivery vendors?"),
    ("vidhop", "origin.count", "plain",
     "Two origin clusters sit behind the edge.",
     "Three origin clusters sit behind the edge.",
     "How many origin groups feed the caches?"),
    ("vidhop", "qoe.target", "cue",
     "The rebuffering target is under 0.5 % of watch time.",
     "The rebuffering target was tightened to under 0.3 % of watch time.",
     "What share of viewing may be spent buffering?"),
]

# (project, topic, old, new, question about old, question about new): both stay true.
NON_UPDATE_ITEMS: list[tuple[str, str, str, str, str, str]] = [
    ("aerocrew", "rules.rest",
     "Minimum rest away from base is 10 hours.",
     "Minimum rest after a night duty is 16 hours.",
     "How long must crew rest at an outstation?",
     "How much time off follows an overnight shift?"),
    ("aerocrew", "bids.kind",
     "Cabin crew bid for days off in the bid portal.",
     "Pilots bid for training slots in the bid portal.",
     "What do flight attendants request through the portal?",
     "What do flight deck crew ask for in the portal?"),
    ("aerocrew", "people.planning",
     "Marisela Oyarzun leads cabin crew planning.",
     "Eustace Bamidele leads pilot planning.",
     "Who is in charge of scheduling flight attendants?",
     "Who heads scheduling for the cockpit crews?"),
    ("aerocrew", "solver.fleet",
     "A320 family pairings are solved every night.",
     "Widebody pairings are solved once a week.",
     "How often are the narrowbody trips optimised?",
     "How frequently are long-haul trips optimised?"),
    ("aerocrew", "app.push",
     "The crew app alerts crew to duty changes by push notification.",
     "The crew app alerts crew to standby call-outs by phone call.",
     "How are crew told that a duty changed?",
     "How does a standby crew member hear that they are needed?"),
    ("aerocrew", "base.hotel",
     "Crews laying over in Lisbon stay at the Tivoli Oriente.",
     "Crews laying over in Athens stay at the Divani Caravel.",
     "Where do crews sleep on a Lisbon night-stop?",
     "Which hotel houses crews overnight in Athens?"),
    ("ledgerpay", "hub.cutoff",
     "Instant payments can be sent around the clock.",
     "Urgent TARGET2 payments must be submitted before 17:00.",
     "When are real-time transfers available?",
     "What is the deadline for high-value euro payments?"),
    ("ledgerpay", "fraud.model",
     "Card-not-present payments are scored by a gradient-boosted model.",
     "Outgoing wires are scored by a rules engine.",
     "What scores online card transactions?",
     "How are wire transfers screened?"),
    ("ledgerpay", "people.core",
     "Thorvald Amadi owns payment-hub.",
     "Gaspard Ndiaye owns the ISO 20022 gateway.",
     "Who is responsible for the routing service?",
     "Who looks after the clearing message gateway?"),
    ("ledgerpay", "limit.daily",
     "Retail customers may send 10,000 euros a day online.",
     "Business customers may send 250,000 euros a day online.",
     "What is the online transfer ceiling for personal accounts?",
     "How much can a company account move per day through online banking?"),
    ("ledgerpay", "iso.messages",
     "Incoming credit transfers arrive as pacs.008.",
     "Payment returns arrive as pacs.004.",
     "Which message type carries money coming in?",
     "In what message do bounced payments come back?"),
    ("findcart", "engine.shards",
     "The fashion index has 12 primary shards.",
     "The electronics index has 6 primary shards.",
     "How many primaries does the clothing catalogue use?",
     "How is the gadgets catalogue split into primaries?"),
    ("findcart", "auto.source",
     "Autocomplete on the web shop uses popular queries.",
     "Autocomplete in the mobile app uses recently viewed products.",
     "Where do website suggestions come from?",
     "What feeds the suggestions in the phone app?"),
    ("findcart", "people.relevance",
     "Wendeline Ocampo leads relevance for search.",
     "Horatio Lemaire leads the recommendations carousel.",
     "Who is responsible for the quality of search results?",
     "Who heads the recommended-products strip?"),
    ("findcart", "qu.lang",
     "German queries are split into compound words before matching.",
     "French queries have their accents folded before matching.",
     "What preprocessing do German searches get?",
     "How are French searches normalised?"),
    ("findcart", "eval.set",
     "Fashion relevance is judged on 1,800 labelled queries.",
     "Electronics relevance is judged on 1,200 labelled queries.",
     "How big is the clothing judgement set?",
     "How many annotated searches cover gadgets?"),
    ("servoworks", "mcu.part",
     "Shoulder joints use an STM32G474.",
     "Gripper fingers use an STM32C031.",
     "Which chip runs the shoulder controller?",
     "What microcontroller sits in the gripper?"),
    ("servoworks", "bus.ids",
     "The left arm's joints use CAN IDs 0x10 to 0x17.",
     "The right arm's joints use CAN IDs 0x20 to 0x27.",
     "Which identifiers do left-arm joints answer on?",
     "What address range belongs to the right arm?"),
    ("servoworks", "people.fw",
     "Ambrose Keskin owns the motor control loop.",
     "Sigrun Ferreol-Nakamura owns the bootloader.",
     "Who maintains the current and velocity loops?",
     "Who is responsible for the startup loader?"),
    ("servoworks", "loop.rate",
     "The current loop runs at 20 kHz.",
     "The position loop runs at 1 kHz.",
     "How fast is the innermost control loop?",
     "At what frequency is position regulated?"),
    ("servoworks", "ota.channel",
     "Lab robots take firmware from the nightly channel.",
     "Customer robots take firmware from the stable channel.",
     "Which release track do test robots follow?",
     "Which track is installed on robots at customer sites?"),
    ("gridhall", "sched.partition",
     "The standard partition allows jobs of up to 7 days.",
     "The debug partition allows jobs of up to 30 minutes.",
     "What is the longest job the regular queue accepts?",
     "How long may a job run in the testing queue?"),
    ("gridhall", "gpu.nodes",
     "The GPU partition has 24 A100 nodes.",
     "The visualisation partition has 4 L40S nodes.",
     "How many machines with A100s are there?",
     "How many nodes serve remote visualisation?"),
    ("gridhall", "people.alloc",
     "Dr. Imelda Sorensen chairs the allocation committee.",
     "Prof. Caspar Ilunga chairs the hardware procurement board.",
     "Who presides over compute-time allocation?",
     "Who leads the group that buys new hardware?"),
    ("gridhall", "fs.purge",
     "Files in scratch are purged after 60 days.",
     "Files in project space are never purged.",
     "When does temporary storage get cleaned out?",
     "Is anything deleted automatically from group storage?"),
    ("gridhall", "login.nodes",
     "login1 is reserved for interactive editing.",
     "login2 is reserved for file transfers.",
     "What is the first login node meant for?",
     "Which login node should large copies go through?"),
    ("pressroom", "pay.meter",
     "Registered readers get 5 free articles a month.",
     "Anonymous readers get 2 free articles a month.",
     "How many free pieces do signed-in non-subscribers get?",
     "How much can someone read without an account?"),
    ("pressroom", "push.segments",
     "Politics alerts go to readers who followed politics.",
     "Sports alerts go to readers who followed their club.",
     "Who receives notifications about elections?",
     "Which readers are sent match alerts?"),
    ("pressroom", "people.digital",
     "Bernadette Kaur is the managing editor for digital.",
     "Leopoldine Opoku is the managing editor for print.",
     "Who runs the online newsroom?",
     "Who manages the paper edition?"),
    ("pressroom", "wire.lang",
     "English wire copy is published after a subeditor check.",
     "Spanish wire copy is translated before any check.",
     "What happens to agency stories in English before they go live?",
     "What is done first with agency stories in Spanish?"),
    ("pressroom", "img.sizes",
     "Article hero images are cropped to 16:9.",
     "Author portraits are cropped to 1:1.",
     "What aspect ratio do lead photos have?",
     "What shape are journalist headshots?"),
    ("tillhub", "radio.region",
     "Sensors in Europe use the EU868 band.",
     "Sensors in Australia use the AU915 band.",
     "Which frequency plan do European probes use?",
     "What band do devices in Australia transmit on?"),
    ("tillhub", "dash.units",
     "Soil moisture is shown as volumetric percent.",
     "Rainfall is shown in millimetres per hour.",
     "How is the wetness of the ground displayed?",
     "What unit do precipitation charts use?"),
    ("tillhub", "people.install",
     "Percival Mwangi runs installations in the east region.",
     "Henrietta Obuya runs installations in the west region.",
     "Who puts in sensors on eastern farms?",
     "Who handles installs for farms in the west?"),
    ("tillhub", "power.battery",
     "Soil probes run on a 19 Ah lithium cell.",
     "Weather stations run on a 40 Ah lead-acid battery.",
     "What powers the probes in the ground?",
     "What battery does a weather mast use?"),
    ("tillhub", "mqtt.topics",
     "Soil readings are published under farm/+/soil.",
     "Weather readings are published under farm/+/weather.",
     "Which topic pattern carries ground measurements?",
     "Where do meteorological readings get published?"),
    ("vidhop", "pack.formats",
     "Apple devices are served HLS with fMP4 segments.",
     "Smart TVs are served DASH with CMAF segments.",
     "Which streaming format do iPhones receive?",
     "What do television apps play?"),
    ("vidhop", "drm.systems",
     "Chrome and Android players use Widevine.",
     "Safari and iOS players use FairPlay.",
     "Which protection scheme runs in Chrome?",
     "What DRM do Apple players rely on?"),
    ("vidhop", "people.delivery",
     "Rosamund Achterhof leads video delivery.",
     "Maximilian Adebayo-Fox leads the live encoding team.",
     "Who is in charge of getting streams to viewers?",
     "Who heads the encoders for live channels?"),
    ("vidhop", "edge.ttl",
     "Video segments are cached at the edge for 24 hours.",
     "Live manifests are cached at the edge for 2 seconds.",
     "How long does an edge keep a media chunk?",
     "How long is a live playlist held in cache?"),
    ("vidhop", "origin.region",
     "The Amsterdam origin serves European viewers.",
     "The Singapore origin serves Asian viewers.",
     "Which origin handles traffic from Europe?",
     "Where do viewers in Asia get their streams from?"),
    ("vidhop", "qoe.startup",
     "Video start time on web must stay under 2 seconds.",
     "Video start time on smart TVs must stay under 4 seconds.",
     "How fast should playback begin in a browser?",
     "What start-up delay is acceptable on television sets?"),
]

# (project, topic, source 1, source 2, question): two sources disagree, no replacement cue.
CONTRADICTION_ITEMS: list[tuple[str, str, str, str, str]] = [
    ("aerocrew", "crew.count",
     "The HR system lists 4,120 active cabin crew.",
     "The bid portal has 3,870 cabin crew with open accounts.",
     "How many flight attendants work for the airline?"),
    ("aerocrew", "standby.pool",
     "The planning handbook keeps 45 crew on standby each day.",
     "The ops dashboard shows 38 crew on today's standby list.",
     "How many standby crew are kept per day?"),
    ("ledgerpay", "volume",
     "The board pack says we process 2.4 million payments a day.",
     "payment-hub's metrics show 1.9 million payments a day.",
     "How many transfers do we handle daily?"),
    ("ledgerpay", "fraud.rate",
     "The risk report puts confirmed fraud at 0.04 % of payments.",
     "The fraud team's tracker records 0.07 % of payments as fraud.",
     "What share of transfers turns out fraudulent?"),
    ("findcart", "catalog.size",
     "The merchandising deck quotes 3.1 million products.",
     "The OpenSearch index holds 2.6 million product documents.",
     "How many items can be found through search?"),
    ("findcart", "zero.rate",
     "The quarterly review says 4 % of searches return nothing.",
     "The analytics tool shows 7 % zero-result searches.",
     "How often does a search come back empty?"),
    ("servoworks", "fleet",
     "The sales tracker lists 640 robots in the field.",
     "The OTA server sees 585 robots checking in.",
     "How many robots are deployed at customers?"),
    ("gridhall", "cores",
     "The university website advertises 48,000 cores.",
     "Slurm reports 41,600 cores across all partitions.",
     "How many CPU cores does the cluster have?"),
    ("pressroom", "subs",
     "The annual report counts 182 thousand digital subscribers.",
     "The paywall database holds 167 thousand active subscriptions.",
     "How many people pay for the digital edition?"),
    ("tillhub", "sensors",
     "The investor update mentions 12 thousand sensors in the ground.",
     "The LoRaWAN network server has 9,400 devices joined.",
     "How many field sensors are live?"),
    ("vidhop", "peak",
     "The marketing blog claims a peak of 14 Tbps of traffic.",
     "The edge metrics show an all-time peak of 11.2 Tbps.",
     "What is the highest throughput the CDN has delivered?"),
    ("vidhop", "pops",
     "The sales brochure lists 62 points of presence.",
     "The edge inventory has 54 live points of presence.",
     "How many PoPs does the network run?"),
]


# -- the files -----------------------------------------------------------------------------------


def build() -> dict[str, list[dict]]:
    return hb.build(hb.Part.of(globals(), "h5"))


def names() -> list[str]:
    """Every entity, person, project and event name of heldout5."""
    out = hb.part_names(hb.Part.of(globals(), "h5"))
    mentors = PERSON_ATTRS["mentor"]["values"]  # people named as a value
    out += [*mentors, *(m.split(" ")[0] for m in mentors)]
    return out


def leaks() -> list[str]:
    """What heldout5 shares with any other part: an entity, person, first name, project or
    event name in another part's text; an attribute kind (the `attribute` of a stream line)
    another part has; a fact, context or question sentence another part has."""
    out = hb.name_leaks(SPLIT, names())
    rows = hb.other_rows(SPLIT)
    theirs = {r["attribute"] for r in rows if "attribute" in r} - {"event"}
    ours = [*ATTRS, *PERSON_ATTRS]
    out |= {f"attribute {a!r}" for a in ours if a in theirs}
    mine = hb.sentences([r for part in build().values() for r in part])
    out |= {f"sentence {t!r}" for t in mine & hb.sentences(rows)}
    return sorted(out)


if __name__ == "__main__":
    sys.exit(hb.main(__doc__, SPLIT, build, leaks, "shares with another part"))


