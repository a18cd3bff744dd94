"""Generate the stream evaluation sets (issue 27): facts shaped like a real project's memory.

    python bench/data/gen_streams.py           # (re)write bench/data/streams_*.jsonl
    python bench/data/gen_streams.py --check   # exit 1 when a committed file is stale

Four sets, each in three files that never share an entity, a name or a number: `*_tune.jsonl`
(tune on it, read its failures), `*_heldout.jsonl` (run it to report, never read it to
choose a rule or a constant) and `*_heldout2.jsonl` (written after `heldout` had been looked
at: new entity shapes, phrasings, event kinds, people and update wordings that no other file
has; run once at the end of a piece of work, never read or tuned on). Deterministic: no
randomness but a sha256 of fixed strings.

- `parallel`: 14 components x 9 attributes, every fact true at once (each component its own
  timeout, port, owning team, language, deploy day, replicas, log retention, region, payload
  limit), 4-5 phrasings per attribute (the last one of each attribute only in held-out),
  entity names of different shapes ("the payments service", "inventory-worker", "the Auth
  gateway", "the EU cron scheduler" beside "the US cron scheduler").
- `events`: numbered and named events (builds, sprint retros, incidents, tickets, releases,
  customers reporting), all true, many of one template with another number.
- `people`: 8 people x 8 attributes ("Marisol commutes by ferry", "Marisol moved to Lisbon").
- `mixed`: three projects (tune: four, the fourth with 15 updates in wordings the others lack),
  each a stream of parallel facts, events, real updates (a later
  fact replaces an earlier one: "moved from X to Y", "no longer", "now", or the same attribute
  stated with another value) and restatements (an earlier fact said again in other words),
  in about the proportions of a working project's memory (~60 % facts, ~18 % events, ~12 %
  updates, ~9 % restatements).

One line per memory, in the order it is added: `id`, `set`, `split`, `scope`, `seq`, `kind`
(fact | event | update | restatement), `entity`, `attribute`, `text`, `questions` (answered by
this memory), `replaces` (update: the id it replaces; that memory then has no questions) and
`restates` (restatement: the id it says again; a question of either is answered by both).
Everything not replaced must stay visible.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path

DATA = Path(__file__).resolve().parent
SPLITS = ("tune", "heldout", "heldout2")


def h(*parts: object) -> int:
    return int(hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:12], 16)


def pick(seq: list, *key: object):
    return seq[h(*key) % len(seq)]


def order(items: list, *key: object) -> list:
    return sorted(items, key=lambda x: h(*key, json.dumps(x, sort_keys=True, default=str)))


def cap(s: str) -> str:
    """Sentence-initial form: "the payments service" -> "The payments service"; an identifier
    such as "inventory-worker" is written as it is."""
    first = s.split(" ")[0]
    ident = any(c in first for c in "-_./") or any(c.isupper() for c in first[1:])
    return s if ident else s[:1].upper() + s[1:]


def update_of(r: dict, value: str, text: str) -> dict:
    """A real update of the fact `r` (same entity and attribute, `value` new). The old fact's
    questions move to the update."""
    row = {
        "kind": "update",
        "entity": r["entity"],
        "attribute": r["attribute"],
        "value": value,
        "text": text,
        "questions": r["questions"],
        "replaces": r,
    }
    r["questions"] = []
    return row


def restatement_of(r: dict, text: str) -> dict:
    """`text` says again what the fact `r` says; it has no question of its own."""
    return {
        "kind": "restatement",
        "entity": r["entity"],
        "attribute": r["attribute"],
        "value": r["value"],
        "text": text,
        "questions": [],
        "restates": r,
    }


# -- parallel facts ------------------------------------------------------------------------------

COMPONENTS = {
    "tune": [
        "the payments service",
        "inventory-worker",
        "the Auth gateway",
        "the EU cron scheduler",
        "the US cron scheduler",
        "the staging payment webhook",
        "the prod payment webhook",
        "the search indexer",
        "notification-relay",
        "the Billing API",
        "the image resizer",
        "ledger-sync",
        "the EU edge proxy",
        "the staging recommendation model",
    ],
    "heldout": [
        "the orders service",
        "shipping-worker",
        "the Admin portal",
        "the APAC report builder",
        "the LATAM report builder",
        "the staging checkout webhook",
        "the prod checkout webhook",
        "the fraud scorer",
        "email-dispatcher",
        "the Catalog API",
        "the video transcoder",
        "audit-exporter",
        "the canary feature-flag server",
        "the nightly data exporter",
    ],
    # heldout2: shapes neither earlier split has (snake_case, CamelCase, a prefixed id,
    # numbered tiers, platform pairs, a qualifier before a shared head noun)
    "heldout2": [
        "the reconciliation daemon",
        "svc-geo-lookup",
        "TokenVault",
        "the iOS push bridge",
        "the Android push bridge",
        "the tier-1 cache",
        "the tier-2 cache",
        "rate_limiter",
        "the GraphQL gateway",
        "the SMS OTP sender",
        "the PDF renderer",
        "the invoices Kafka consumer",
        "the refunds Kafka consumer",
        "the on-prem license server",
    ],
}

TEAMS = "Falcon Orca Heron Lynx Otter Puma Raven Tiger Wolf Koala Bison Cobra Dingo Eagle".split()
LANGS = ["Go", "Rust", "Kotlin", "Python", "TypeScript", "Java", "Elixir", "Scala", "Ruby", "C#"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
REGIONS = [
    "eu-west-1",
    "us-east-2",
    "ap-southeast-1",
    "eu-central-1",
    "us-west-2",
    "ca-central-1",
    "sa-east-1",
    "ap-northeast-1",
]

Phrase = Callable[[str, str], str]  # (entity as written mid-sentence, value) -> text

# Per attribute: values (index by component), phrasings, questions. The last phrasing of each
# attribute is used only in held-out, so held-out also tests wording the detector never saw.
ATTRIBUTES: dict[str, dict] = {
    "timeout": {
        "values": [str(v) for v in (3, 5, 8, 12, 15, 20, 30, 4, 6, 10, 25, 2, 45, 9)],
        "phrases": [
            lambda e, v: f"{cap(e)} times out after {v} seconds.",
            lambda e, v: f"Requests to {e} time out after {v} s.",
            lambda e, v: f"The timeout for {e} is {v} seconds.",
            lambda e, v: f"{cap(e)} gives up on a call after {v} seconds.",
            lambda e, v: f"{cap(e)} has a {v}-second request timeout.",
        ],
        "questions": [
            lambda e: f"How long does {e} wait before a request times out?",
            lambda e: f"After how many seconds does {e} abandon a call?",
        ],
    },
    "port": {
        "values": [str(v) for v in range(8081, 8095)],
        "phrases": [
            lambda e, v: f"{cap(e)} listens on port {v}.",
            lambda e, v: f"{cap(e)} serves traffic on port {v}.",
            lambda e, v: f"The port for {e} is {v}.",
            lambda e, v: f"{cap(e)} binds to port {v}.",
            lambda e, v: f"{cap(e)} accepts connections on TCP port {v}.",
        ],
        "questions": [
            lambda e: f"Which port number does {e} use?",
            lambda e: f"Where do I point a client to reach {e}, port-wise?",
        ],
    },
    "team": {
        "values": TEAMS,
        "phrases": [
            lambda e, v: f"{cap(e)} is owned by the {v} team.",
            lambda e, v: f"The {v} team owns {e}.",
            lambda e, v: f"{cap(e)} belongs to the {v} team.",
            lambda e, v: f"Pages for {e} go to the {v} team.",
            lambda e, v: f"The {v} team is on call for {e}.",
        ],
        "questions": [
            lambda e: f"Which team is responsible for {e}?",
            lambda e: f"Who should I ask about {e}?",
        ],
    },
    "language": {
        "values": [LANGS[i % len(LANGS)] for i in range(14)],
        "phrases": [
            lambda e, v: f"{cap(e)} is written in {v}.",
            lambda e, v: f"{cap(e)} is implemented in {v}.",
            lambda e, v: f"The code of {e} is {v}.",
            lambda e, v: f"{cap(e)} was built in {v}.",
            lambda e, v: f"{cap(e)}'s source is all {v}.",
        ],
        "questions": [
            lambda e: f"What programming language is {e} coded in?",
            lambda e: f"Which language would I need to know to change {e}?",
        ],
    },
    "deploy_day": {
        "values": [DAYS[i % len(DAYS)] for i in range(14)],
        "phrases": [
            lambda e, v: f"{cap(e)} deploys on {v}s.",
            lambda e, v: f"We ship {e} every {v}.",
            lambda e, v: f"Releases of {e} go out on {v}.",
            lambda e, v: f"{cap(e)} is deployed each {v}.",
            lambda e, v: f"New builds of {e} reach production on {v}s.",
        ],
        "questions": [
            lambda e: f"On which weekday does {e} get released?",
            lambda e: f"What day of the week do changes to {e} go live?",
        ],
    },
    "replicas": {
        "values": [str(v) for v in (3, 2, 6, 4, 8, 5, 12, 7, 10, 9, 16, 11, 14, 20)],
        "phrases": [
            lambda e, v: f"{cap(e)} runs {v} replicas.",
            lambda e, v: f"{cap(e)} is scaled to {v} replicas.",
            lambda e, v: f"The replica count for {e} is {v}.",
            lambda e, v: f"{cap(e)} has {v} pods behind its load balancer.",
            lambda e, v: f"There are {v} copies of {e} running.",
        ],
        "questions": [
            lambda e: f"How many instances of {e} are up?",
            lambda e: f"To how many pods is {e} scaled?",
        ],
    },
    "retention": {
        "values": [str(v) for v in (7, 14, 30, 45, 60, 90, 10, 21, 120, 180, 5, 3, 365, 28)],
        "phrases": [
            lambda e, v: f"Logs from {e} are kept for {v} days.",
            lambda e, v: f"{cap(e)} keeps its logs for {v} days.",
            lambda e, v: f"Log retention for {e} is {v} days.",
            lambda e, v: f"{cap(e)}'s logs are deleted after {v} days.",
            lambda e, v: f"We retain {v} days of logs for {e}.",
        ],
        "questions": [
            lambda e: f"How long are the logs of {e} retained?",
            lambda e: f"When do old log lines of {e} get purged?",
        ],
    },
    "region": {
        "values": [REGIONS[i % len(REGIONS)] for i in range(14)],
        "phrases": [
            lambda e, v: f"{cap(e)} runs in {v}.",
            lambda e, v: f"{cap(e)} is hosted in the {v} region.",
            lambda e, v: f"{cap(e)} is deployed to {v}.",
            lambda e, v: f"The region of {e} is {v}.",
            lambda e, v: f"{cap(e)} lives in the {v} AWS region.",
        ],
        "questions": [
            lambda e: f"Which cloud region hosts {e}?",
            lambda e: f"In what AWS location does {e} run?",
        ],
    },
    "payload": {
        "values": [str(v) for v in (1, 2, 5, 8, 10, 16, 25, 50, 4, 20, 32, 64, 3, 12)],
        "phrases": [
            lambda e, v: f"{cap(e)} rejects payloads larger than {v} MB.",
            lambda e, v: f"The payload limit for {e} is {v} MB.",
            lambda e, v: f"{cap(e)} accepts request bodies up to {v} MB.",
            lambda e, v: f"Requests to {e} are capped at {v} MB.",
            lambda e, v: f"{cap(e)} refuses uploads over {v} MB.",
        ],
        "questions": [
            lambda e: f"What is the biggest request body {e} will take?",
            lambda e: f"How large can a message sent to {e} be?",
        ],
    },
}


# heldout2 (never used for tuning): phrasings no earlier split has, two per attribute.
PHRASES_H2: dict[str, list[Phrase]] = {
    "timeout": [
        lambda e, v: f"{cap(e)} waits at most {v} seconds for an answer.",
        lambda e, v: f"A call to {e} is cut off at the {v}-second mark.",
    ],
    "port": [
        lambda e, v: f"Clients reach {e} at port {v}.",
        lambda e, v: f"{cap(e)} is exposed on :{v}.",
    ],
    "team": [
        lambda e, v: f"The {v} squad maintains {e}.",
        lambda e, v: f"Ownership of {e} sits with team {v}.",
    ],
    "language": [
        lambda e, v: f"{cap(e)} is a {v} codebase.",
        lambda e, v: f"Engineers change {e} in {v}.",
    ],
    "deploy_day": [
        lambda e, v: f"{cap(e)} goes to prod every {v}.",
        lambda e, v: f"The release train for {e} leaves on {v}.",
    ],
    "replicas": [
        lambda e, v: f"We keep {v} instances of {e} up.",
        lambda e, v: f"{cap(e)} is horizontally scaled to {v} nodes.",
    ],
    "retention": [
        lambda e, v: f"Log files of {e} expire after {v} days.",
        lambda e, v: f"{v} days is how long the logs of {e} stay around.",
    ],
    "region": [
        lambda e, v: f"{cap(e)} sits in the {v} data centre.",
        lambda e, v: f"The home region of {e} is {v}.",
    ],
    "payload": [
        lambda e, v: f"{cap(e)} caps uploads at {v} MB.",
        lambda e, v: f"Anything over {v} MB sent to {e} is refused.",
    ],
}


def phrasing(split: str, attribute: str, *key: object) -> Phrase:
    if split == "heldout2":
        return pick(PHRASES_H2[attribute], split, attribute, *key)
    phrases = ATTRIBUTES[attribute]["phrases"]
    pool = phrases if split == "heldout" else phrases[:-1]
    return pick(pool, split, attribute, *key)


def fact_rows(split: str, components: list[str], attributes: list[str], tag: str) -> list[dict]:
    rows = []
    for ci, comp in enumerate(components):
        for attribute in attributes:
            spec = ATTRIBUTES[attribute]
            value = spec["values"][(ci + h(tag, attribute)) % len(spec["values"])]
            text = phrasing(split, attribute, tag, comp)(comp, value)
            question = pick(spec["questions"], split, tag, comp, attribute, "q")(comp)
            rows.append(
                {
                    "kind": "fact",
                    "entity": comp,
                    "attribute": attribute,
                    "value": value,
                    "text": text,
                    "questions": [question],
                }
            )
    return rows


# -- events --------------------------------------------------------------------------------------

EVENTS = {
    "tune": {
        "builds": [1423, 1424, 1425, 1427, 1430, 1431],
        "sprints": [31, 32, 33, 34],
        "incidents": ["INC-2041", "INC-2042", "INC-2047", "INC-2050"],
        "tickets": ["PAY-118", "PAY-119", "PAY-124", "PAY-131"],
        "releases": ["v2.4.0", "v2.4.1", "v2.5.0", "v2.5.1"],
        "customers": ["Acme", "Globex", "Initech", "Umbrella", "Hooli"],
    },
    "heldout": {
        "builds": [5180, 5181, 5183, 5186, 5190, 5191],
        "sprints": [47, 48, 49, 50],
        "incidents": ["INC-3310", "INC-3311", "INC-3318", "INC-3325"],
        "tickets": ["SHIP-402", "SHIP-403", "SHIP-410", "SHIP-417"],
        "releases": ["v3.1.0", "v3.1.1", "v3.2.0", "v3.2.2"],
        "customers": ["Soylent", "Vandelay", "Tyrell", "Cyberdyne", "Wonka"],
    },
}
BUILD_WHY = [
    ("failed on the lint step because of an unused import", "lint", "unused import"),
    ("failed in the integration tests because the Redis container did not start", "redis", ""),
    ("failed because the Docker layer cache was evicted mid-build", "docker cache", ""),
    ("failed on a flaky snapshot test in the checkout page", "snapshot test", ""),
    ("failed when npm could not reach the registry", "npm registry", ""),
    ("failed because the migrations step timed out", "migration timeout", ""),
]
BUILD_Q = [
    lambda n: f"Why did build {n} break?",
    lambda n: f"What went wrong in CI run {n}?",
]
RETRO = [
    "agreed to cap work in progress at three tickets per person",
    "decided to move the demo to Thursday afternoons",
    "agreed to pair on every database migration",
    "decided to drop the Friday code freeze",
]
RETRO_PHRASE = [
    lambda n, a: f"The sprint {n} retro {a}.",
    lambda n, a: f"In the Sprint {n} retrospective the team {a}.",
]
RETRO_Q = [lambda n: f"What came out of the sprint {n} retrospective?"]
CAUSE = [
    "an expired TLS certificate on the load balancer",
    "a full disk on the primary database",
    "a bad feature flag that disabled card payments",
    "a DNS change that pointed checkout at the old cluster",
]
INCIDENT_PHRASE = [
    lambda n, c: f"Incident {n} was caused by {c}.",
    lambda n, c: f"The root cause of {n} was {c}.",
]
INCIDENT_Q = [lambda n: f"What triggered {n}?", lambda n: f"Why did outage {n} happen?"]
ASK = [
    "CSV export of invoices",
    "a dark mode for the dashboard",
    "SAML login for enterprise accounts",
    "retrying failed webhooks automatically",
]
TICKET_PHRASE = [
    lambda n, a: f"Ticket {n} asks for {a}.",
    lambda n, a: f"{n} is a request for {a}.",
]
TICKET_Q = [lambda n: f"What does {n} request?"]
SHIPPED = [
    "added multi-currency invoices",
    "fixed the double-charge bug on retries",
    "introduced the new onboarding wizard",
    "removed the legacy v1 endpoints",
]
RELEASE_PHRASE = [
    lambda n, a: f"Release {n} {a}.",
    lambda n, a: f"Version {n} went out and {a}.",
]
RELEASE_Q = [lambda n: f"What changed in {n}?"]
PROBLEM = [
    "that invoices show the wrong tax rate",
    "slow page loads on the reports screen",
    "that password reset emails never arrive",
    "duplicate rows in the monthly export",
    "that the mobile app logs them out every hour",
]
CUSTOMER_PHRASE = [
    lambda n, p: f"Customer {n} reported {p}.",
    lambda n, p: f"{n} reported {p}.",
]
CUSTOMER_Q = [lambda n: f"What issue did {n} raise?", lambda n: f"What is {n} complaining about?"]


# heldout2 (never used for tuning): kinds of event no earlier split has — pull requests,
# schema migrations, deploys, security audits, vendor outages — many of one template.
EVENTS_H2: dict[str, dict] = {
    "pull requests": {
        "names": ["PR #812", "PR #813", "PR #815", "PR #820", "PR #821"],
        "what": [
            "adds retries to the webhook sender",
            "removes the unused feature-flag client",
            "switches the date parsing to ISO 8601",
            "splits the settings page into tabs",
            "bumps the ORM to the next major version",
        ],
        "phrases": [
            lambda n, a: f"{n} {a}.",
            lambda n, a: f"The change in {n} {a}.",
        ],
        "questions": [lambda n: f"What does {n} do?", lambda n: f"What is {n} about?"],
    },
    "migrations": {
        "names": ["migration 0042", "migration 0043", "migration 0047", "migration 0051"],
        "what": [
            "adds an index on orders.created_at",
            "drops the legacy sessions table",
            "renames the column user_name to handle",
            "backfills the currency of old invoices",
        ],
        "phrases": [
            lambda n, a: f"Schema {n} {a}.",
            lambda n, a: f"{n[:1].upper() + n[1:]} {a}.",
        ],
        "questions": [lambda n: f"What does database {n} change?"],
    },
    "deploys": {
        "names": ["deploy 3307", "deploy 3308", "deploy 3312", "deploy 3315"],
        "what": [
            "was rolled back after error rates doubled",
            "was paused because a health check flapped",
            "went out behind a 5 % canary",
            "was delayed by a stuck image pull",
        ],
        "phrases": [
            lambda n, a: f"Production {n} {a}.",
            lambda n, a: f"{n[:1].upper() + n[1:]} {a}.",
        ],
        "questions": [lambda n: f"What happened with {n}?"],
    },
    "audits": {
        "names": ["the Q1 audit", "the Q2 audit", "the Q3 audit", "the Q4 audit"],
        "what": [
            "found two admin accounts without MFA",
            "flagged an S3 bucket that was public",
            "asked for shorter API key lifetimes",
            "found debug logging of card numbers",
        ],
        "phrases": [
            lambda n, a: f"{n[:1].upper() + n[1:]} {a}.",
            lambda n, a: f"During {n} the security team {a}.",
        ],
        "questions": [lambda n: f"What did {n} turn up?"],
    },
    "vendor outages": {
        "names": ["Stripe", "Twilio", "SendGrid", "Cloudflare", "Okta"],
        "what": [
            "was down for forty minutes on the first of the month",
            "dropped about a tenth of our requests for an afternoon",
            "returned stale data from one of its regions",
            "rate-limited us during the launch",
            "broke its API with an unannounced field rename",
        ],
        "phrases": [
            lambda n, a: f"Our vendor {n} {a}.",
            lambda n, a: f"{n} {a}.",
        ],
        "questions": [lambda n: f"What trouble did we have with {n}?"],
    },
}


def kind_event_rows(
    events: dict[str, dict],
    split: str,
    tag: str,
    take: int | None = None,
    split_in_hash: bool = True,
) -> list[dict]:
    """One event per name of every kind in `events` (names, what, phrases, questions); what
    happened is picked by hash of `split` (unless not `split_in_hash`), `tag` and the kind.
    Serves heldout2 here and the held-out generators (bench/data/heldout_build.py)."""
    rows = []
    salt = (split,) if split_in_hash else ()
    for kind, spec in events.items():
        for i, n in enumerate(spec["names"][:take]):
            what = spec["what"][(i + h(*salt, tag, kind)) % len(spec["what"])]
            text = pick(spec["phrases"], split, tag, n)(n, what)
            question = pick(spec["questions"], split, tag, n, 1)(n)
            rows.append(
                {
                    "kind": "event",
                    "entity": n,
                    "attribute": "event",
                    "text": text,
                    "questions": [question],
                }
            )
    return rows


def event_rows_h2(tag: str, take: int | None = None) -> list[dict]:
    return kind_event_rows(EVENTS_H2, "heldout2", tag, take, split_in_hash=False)


def event_rows(split: str, tag: str, take: int | None = None) -> list[dict]:
    if split == "heldout2":
        return event_rows_h2(tag, take)
    ev = EVENTS[split]
    rows = []

    def add(entity: str, text: str, question: str) -> None:
        rows.append(
            {
                "kind": "event",
                "entity": entity,
                "attribute": "event",
                "text": text,
                "questions": [question],
            }
        )

    for i, n in enumerate(ev["builds"][:take]):
        why = BUILD_WHY[(i + h(tag, "b")) % len(BUILD_WHY)][0]
        add(f"build {n}", f"Build {n} {why}.", pick(BUILD_Q, split, tag, n)(n))
    for i, n in enumerate(ev["sprints"][:take]):
        act = RETRO[(i + h(tag, "s")) % len(RETRO)]
        add(f"sprint {n}", pick(RETRO_PHRASE, split, tag, n)(n, act), RETRO_Q[0](n))
    for i, n in enumerate(ev["incidents"][:take]):
        c = CAUSE[(i + h(tag, "i")) % len(CAUSE)]
        add(n, pick(INCIDENT_PHRASE, split, tag, n)(n, c), pick(INCIDENT_Q, split, tag, n, 1)(n))
    for i, n in enumerate(ev["tickets"][:take]):
        a = ASK[(i + h(tag, "t")) % len(ASK)]
        add(n, pick(TICKET_PHRASE, split, tag, n)(n, a), TICKET_Q[0](n))
    for i, n in enumerate(ev["releases"][:take]):
        a = SHIPPED[(i + h(tag, "r")) % len(SHIPPED)]
        add(n, pick(RELEASE_PHRASE, split, tag, n)(n, a), RELEASE_Q[0](n))
    for i, n in enumerate(ev["customers"][:take]):
        p = PROBLEM[(i + h(tag, "c")) % len(PROBLEM)]
        text = pick(CUSTOMER_PHRASE, split, tag, n)(n, p)
        add(n, text, pick(CUSTOMER_Q, split, tag, n, 1)(n))
    return rows


# -- people --------------------------------------------------------------------------------------

PEOPLE = {
    "tune": ["Marisol", "Kenji", "Priya", "Tomasz", "Aiko", "Dmitri", "Fatima", "Liam"],
    "heldout": ["Ingrid", "Rafael", "Oluwaseun", "Beatriz", "Hamid", "Sofia", "Nikolai", "Mei"],
    "heldout2": ["Yusuf", "Astrid", "Chiara", "Bongani", "Leilani", "Tobias", "Svetlana", "Arjun"],
}
# heldout2 (never used for tuning): phrasings no earlier split has, two per attribute.
PERSON_PHRASES_H2: dict[str, list[Phrase]] = {
    "commute": [
        lambda p, v: f"Every morning {p} comes in by {v}.",
        lambda p, v: f"{p} reaches the office by {v} most days.",
    ],
    "city": [
        lambda p, v: f"{p} relocated to {v} last year.",
        lambda p, v: f"{p}'s home is in {v}.",
    ],
    "role": [
        lambda p, v: f"{p} joined as a {v}.",
        lambda p, v: f"On the org chart {p} is listed as {v}.",
    ],
    "editor": [
        lambda p, v: f"{p} swears by {v}.",
        lambda p, v: f"{p} does all their coding in {v}.",
    ],
    "pet": [
        lambda p, v: f"{p} adopted {v}.",
        lambda p, v: f"{p} lives with {v}.",
    ],
    "hobby": [
        lambda p, v: f"Off the clock {p} is into {v}.",
        lambda p, v: f"{p} unwinds by {v}.",
    ],
    "speaks": [
        lambda p, v: f"{p} is a native {v} speaker.",
        lambda p, v: f"{p} talks to family in {v}.",
    ],
    "standup": [
        lambda p, v: f"{p} holds the team sync at {v}.",
        lambda p, v: f"The daily check-in {p} leads begins at {v}.",
    ],
}
PERSON_ATTRS: dict[str, dict] = {
    "commute": {
        "values": ["ferry", "bike", "train", "bus", "tram", "scooter", "car", "foot"],
        "phrases": [
            lambda p, v: f"{p} commutes by {v}.",
            lambda p, v: f"{p} gets to the office by {v}.",
            lambda p, v: f"{p} travels to work by {v} every day.",
        ],
        "questions": [lambda p: f"How does {p} get to work?"],
    },
    "city": {
        "values": ["Lisbon", "Osaka", "Pune", "Gdansk", "Nagoya", "Tbilisi", "Rabat", "Cork"],
        "phrases": [
            lambda p, v: f"{p} moved to {v}.",
            lambda p, v: f"{p} lives in {v}.",
            lambda p, v: f"{p} is based in {v}.",
        ],
        "questions": [lambda p: f"Which city is {p} living in?"],
    },
    "role": {
        "values": [
            "backend engineer",
            "product designer",
            "site reliability engineer",
            "engineering manager",
            "data scientist",
            "QA lead",
            "frontend engineer",
            "security engineer",
        ],
        "phrases": [
            lambda p, v: f"{p} works as a {v}.",
            lambda p, v: f"{p} is our {v}.",
            lambda p, v: f"{p}'s job title is {v}.",
        ],
        "questions": [lambda p: f"What is {p}'s position on the team?"],
    },
    "editor": {
        "values": ["Vim", "Emacs", "VS Code", "Helix", "Zed", "IntelliJ", "Sublime Text", "Nano"],
        "phrases": [
            lambda p, v: f"{p} writes code in {v}.",
            lambda p, v: f"{p}'s editor of choice is {v}.",
            lambda p, v: f"{p} uses {v} for programming.",
        ],
        "questions": [lambda p: f"Which editor does {p} prefer?"],
    },
    "pet": {
        "values": [
            "a cat called Miso",
            "a beagle called Pixel",
            "two goldfish",
            "a parrot called Kiwi",
            "a greyhound called Dash",
            "a tortoise called Atlas",
            "a rabbit called Bun",
            "a husky called Nova",
        ],
        "phrases": [
            lambda p, v: f"{p} has {v}.",
            lambda p, v: f"At home {p} looks after {v}.",
            lambda p, v: f"{p} shares a flat with {v}.",
        ],
        "questions": [lambda p: f"What animal lives with {p}?"],
    },
    "hobby": {
        "values": [
            "bouldering",
            "chess",
            "baking sourdough",
            "trail running",
            "playing the cello",
            "birdwatching",
            "salsa dancing",
            "woodworking",
        ],
        "phrases": [
            lambda p, v: f"{p} spends weekends {v}.",
            lambda p, v: f"In their free time {p} enjoys {v}.",
            lambda p, v: f"{p}'s hobby is {v}.",
        ],
        "questions": [lambda p: f"What does {p} do outside of work?"],
    },
    "speaks": {
        "values": [
            "Portuguese",
            "Japanese",
            "Marathi",
            "Polish",
            "Korean",
            "Georgian",
            "Arabic",
            "Irish",
        ],
        "phrases": [
            lambda p, v: f"{p} speaks fluent {v}.",
            lambda p, v: f"{p}'s first language is {v}.",
            lambda p, v: f"{p} grew up speaking {v}.",
        ],
        "questions": [lambda p: f"Which language is {p} a native speaker of?"],
    },
    "standup": {
        "values": ["9:00", "9:30", "10:00", "10:15", "8:45", "11:00", "9:15", "10:30"],
        "phrases": [
            lambda p, v: f"{p} runs the daily standup at {v}.",
            lambda p, v: f"{p}'s team meets for standup at {v}.",
            lambda p, v: f"Standup with {p} starts at {v} each morning.",
        ],
        "questions": [lambda p: f"When is {p}'s morning sync?"],
    },
}


# tune only (issue 27, fifth pass): people with near-twin full names, each fact naming its
# person after a leading time phrase, after "because of" or "For X, ..." (scope "n").
PEOPLE_TWINS_TUNE = [
    "Oskar Lindqvist",
    "Oskar Lindgren",
    "Maren Holt",
    "Maren Voss",
    "Idris Okafor",
    "Ines Okafor",
    "Pavel Ruzicka",
    "Pavla Ruzicka",
]
PERSON_TWIN_ATTRS: dict[str, dict] = {
    "diet": {
        "values": "peanuts gluten shellfish sesame dairy celery soy eggs".split(),
        "phrases": [
            lambda p, v: f"Team dinners skip {v} because of {p}.",
            lambda p, v: f"Because of {p}, the office kitchen keeps {v} out.",
        ],
        "questions": [lambda p: f"Which food does {p} have to avoid?"],
    },
    "course": {
        "values": [
            "a pottery class",
            "a Mandarin course",
            "night school in statistics",
            "a sailing licence",
            "piano lessons",
            "a welding course",
            "a first-aid course",
            "a cooking class",
        ],
        "phrases": [
            lambda p, v: f"A few months ago {p} started {v}.",
            lambda p, v: f"Since last autumn {p} has been taking {v}.",
        ],
        "questions": [lambda p: f"What is {p} studying outside work?"],
    },
    "purchase": {
        "values": [
            "a cargo bike",
            "an old sailboat",
            "a 3D printer",
            "a telescope",
            "a vintage camera",
            "a kayak",
            "an espresso machine",
            "a drum kit",
        ],
        "phrases": [
            lambda p, v: f"Last winter {p} bought {v}.",
            lambda p, v: f"Over the holidays {p} treated themselves to {v}.",
        ],
        "questions": [lambda p: f"What did {p} buy recently?"],
    },
    "desk": {
        "values": [str(v) for v in (98, 102, 106, 110, 114, 118, 122, 126)],
        "phrases": [
            lambda p, v: f"For {p}, the standing desk is set to {v} cm.",
            lambda p, v: f"{p}'s standing desk sits at {v} cm.",
        ],
        "questions": [lambda p: f"How high does {p} keep the standing desk?"],
    },
}


def person_twin_rows(people: list[str], tag: str) -> list[dict]:
    rows = []
    for pi, person in enumerate(people):
        for attribute, spec in PERSON_TWIN_ATTRS.items():
            value = spec["values"][(pi + h(tag, attribute)) % len(spec["values"])]
            text = pick(spec["phrases"], "tune", tag, person, attribute)(person, value)
            rows.append(
                {
                    "kind": "fact",
                    "entity": person,
                    "attribute": attribute,
                    "value": value,
                    "text": text[:1].upper() + text[1:],
                    "questions": [spec["questions"][0](person)],
                }
            )
    return rows


def person_rows(split: str, people: list[str], attrs: list[str], tag: str) -> list[dict]:
    rows = []
    for pi, person in enumerate(people):
        for attribute in attrs:
            spec = PERSON_ATTRS[attribute]
            value = spec["values"][(pi + h(tag, attribute)) % len(spec["values"])]
            phrases = PERSON_PHRASES_H2[attribute] if split == "heldout2" else spec["phrases"]
            text = pick(phrases, split, tag, person, attribute)(person, value)
            rows.append(
                {
                    "kind": "fact",
                    "entity": person,
                    "attribute": attribute,
                    "value": value,
                    "text": text,
                    "questions": [spec["questions"][0](person)],
                }
            )
    return rows


# -- mixed: facts, events, real updates, restatements ----------------------------------------------

# A real update of a component's attribute: (old value, new value) -> text.
UPDATE_PHRASES: dict[str, list[Callable[[str, str, str], str]]] = {
    "timeout": [
        lambda e, o, n: f"{cap(e)} now times out after {n} seconds instead of {o}.",
        lambda e, o, n: f"We raised the timeout of {e} from {o} to {n} seconds.",
        lambda e, o, n: f"{cap(e)} times out after {n} seconds.",
    ],
    "port": [
        lambda e, o, n: f"{cap(e)} moved from port {o} to port {n}.",
        lambda e, o, n: f"{cap(e)} no longer listens on {o}; it uses port {n} now.",
        lambda e, o, n: f"{cap(e)} listens on port {n}.",
    ],
    "team": [
        lambda e, o, n: f"The {n} team took over {e} from the {o} team.",
        lambda e, o, n: f"{cap(e)} is now owned by the {n} team.",
    ],
    "region": [
        lambda e, o, n: f"{cap(e)} moved from {o} to {n}.",
        lambda e, o, n: f"{cap(e)} was migrated to {n}.",
        lambda e, o, n: f"{cap(e)} runs in {n} now.",
    ],
    "replicas": [
        lambda e, o, n: f"{cap(e)} was scaled from {o} to {n} replicas.",
        lambda e, o, n: f"{cap(e)} now runs {n} replicas.",
        lambda e, o, n: f"{cap(e)} runs {n} replicas.",
    ],
}
# A restatement of a component's fact, in other words, with the same value.
RESTATE = {
    "timeout": lambda e, v: f"Calls into {e} are abandoned once {v} seconds have passed.",
    "port": lambda e, v: f"Port {v} is where {e} can be reached.",
    "team": lambda e, v: f"If {e} breaks, the {v} team gets paged.",
    "region": lambda e, v: f"{cap(e)} is hosted in the {v} region.",
    "replicas": lambda e, v: f"{cap(e)} is running with {v} replicas.",
}
MIXED = {
    "tune": {
        "projects": {
            "shopfront": [
                "the cart service",
                "pricing-engine",
                "the Storefront BFF",
                "the EU search cluster",
                "the US search cluster",
                "the staging tax webhook",
            ],
            "fleetops": [
                "the telemetry collector",
                "route-planner",
                "the Driver app API",
                "the nightly billing job",
                "the prod geofence service",
                "the staging geofence service",
            ],
            "medibook": [
                "the booking service",
                "reminder-sender",
                "the Clinic portal",
                "the EU audit log",
                "the US audit log",
                "the sandbox insurance webhook",
            ],
        },
    },
    "heldout": {
        "projects": {
            "grainlink": [
                "the harvest service",
                "silo-monitor",
                "the Farmer portal",
                "the EU pricing feed",
                "the US pricing feed",
                "the staging weather webhook",
            ],
            "tutorly": [
                "the lesson service",
                "grade-sync",
                "the Parent app API",
                "the weekly digest job",
                "the prod video relay",
                "the staging video relay",
            ],
            "parkwise": [
                "the permit service",
                "meter-gateway",
                "the Enforcement app",
                "the north zone counter",
                "the south zone counter",
                "the dev payments stub",
            ],
        },
    },
}
MIXED["heldout2"] = {
    "projects": {
        "harbormaster": [
            "the berth scheduler",
            "crane-telemetry",
            "CustomsBridge",
            "the tier-1 manifest store",
            "the tier-2 manifest store",
            "the pilot_dispatch job",
        ],
        "wavecast": [
            "the podcast ingester",
            "rss-poller",
            "the iOS player API",
            "the Android player API",
            "the transcript aligner",
            "the ad-insertion proxy",
        ],
    },
}
# heldout2 (never used for tuning): update and restatement wordings no earlier split has.
UPDATE_PHRASES_H2: dict[str, list[Callable[[str, str, str], str]]] = {
    "timeout": [
        lambda e, o, n: f"We cut the timeout of {e} to {n} seconds; it used to be {o}.",
        lambda e, o, n: f"{cap(e)} waits at most {n} seconds for an answer.",
    ],
    "port": [
        lambda e, o, n: f"{cap(e)} switched to port {n} (it was {o}).",
        lambda e, o, n: f"Clients reach {e} at port {n}.",
    ],
    "team": [
        lambda e, o, n: f"The {o} team handed {e} over to the {n} team.",
        lambda e, o, n: f"Ownership of {e} sits with team {n} now.",
    ],
    "region": [
        lambda e, o, n: f"We relocated {e} from {o} to {n}.",
        lambda e, o, n: f"The home region of {e} is {n}.",
    ],
    "replicas": [
        lambda e, o, n: f"{cap(e)} went from {o} to {n} replicas.",
        lambda e, o, n: f"We keep {n} instances of {e} up.",
    ],
}
RESTATE_H2 = {
    "timeout": lambda e, v: f"After {v} seconds without a reply, {e} gives up.",
    "port": lambda e, v: f"To talk to {e}, connect to port {v}.",
    "team": lambda e, v: f"Questions about {e} go to the {v} team.",
    "region": lambda e, v: f"{cap(e)} is operated out of {v}.",
    "replicas": lambda e, v: f"{cap(e)} has {v} instances behind it.",
}
MIXED_ATTRS = ["timeout", "port", "team", "region", "replicas"]
# tune only (issue 27, fourth pass): a fourth tune project whose updates use change wordings
# the first three tune projects never had ("it used to be", "it was", "relocated", "went
# from", "handed over", "was bumped", "as of", "switched over", "replaced X with Y",
# "instead of", "no more", the entity after the verb). Written for tuning the rules on; the
# sentences are this file's own (no held-out row is copied).
UPDATE_PHRASES_WORDINGS: dict[str, list[Callable[[str, str, str], str]]] = {
    "timeout": [
        lambda e, o, n: f"We brought the timeout of {e} down to {n} seconds; it used to be {o}.",
        lambda e, o, n: f"As of this week {e} times out after {n} seconds.",
        lambda e, o, n: f"The timeout of {e} was bumped to {n} seconds.",
    ],
    "port": [
        lambda e, o, n: f"{cap(e)} answers on port {n}; it was {o} before.",
        lambda e, o, n: f"{cap(e)} switched over to port {n}.",
        lambda e, o, n: f"No more port {o} for {e}: it listens on {n}.",
    ],
    "team": [
        lambda e, o, n: f"{cap(e)} was handed over to the {n} team.",
        lambda e, o, n: f"The {o} team passed {e} on to the {n} team.",
        lambda e, o, n: f"The {n} team looks after {e} instead of the {o} team.",
    ],
    "region": [
        lambda e, o, n: f"{cap(e)} was relocated to {n}.",
        lambda e, o, n: f"{cap(e)} went from {o} to {n} last month.",
        lambda e, o, n: f"We run {e} in {n} instead of {o}.",
    ],
    "replicas": [
        lambda e, o, n: f"We replaced the {o} replicas of {e} with {n}.",
        lambda e, o, n: f"{cap(e)} went from {o} replicas to {n}.",
        lambda e, o, n: f"The replica count of {e} was bumped to {n}.",
    ],
}
WORDINGS_TUNE = {
    "loyaltyhub": [
        "the loyalty service",
        "coupon-worker",
        "the Partner API",
        "the EU invoice archive",
        "the US invoice archive",
        "the staging points webhook",
        "the referral tracker",
    ],
}


def mixed_rows(
    split: str,
    project: str,
    components: list[str],
    wordings: dict[str, list[Callable[[str, str, str], str]]] | None = None,
) -> list[dict]:
    tag = f"mixed/{project}"
    facts = fact_rows(split, components, MIXED_ATTRS, tag)
    events = [r for r in event_rows(split, tag, take=2) if h(tag, r["entity"]) % 3 != 0][:6]
    stream = order(facts + events, split, tag, "stream")
    # the last third of the stream gets the updates and restatements, each after its fact
    candidates = [r for r in facts if r["attribute"] in UPDATE_PHRASES]
    chosen = order(candidates, split, tag, "chosen")
    n_updates = 4 if wordings is None else 15
    updates, restated = chosen[:n_updates], chosen[n_updates : n_updates + 3]
    later: list[dict] = []
    used: dict[str, int] = {}
    for r in updates:
        spec = ATTRIBUTES[r["attribute"]]
        values = [v for v in spec["values"] if v != r["value"]]
        new_value = pick(values, split, tag, r["entity"], r["attribute"], "new")
        upd = UPDATE_PHRASES_H2 if split == "heldout2" else UPDATE_PHRASES
        if wordings is not None:
            # every wording in turn, so each is tried
            k = used.get(r["attribute"], 0)
            used[r["attribute"]] = k + 1
            phrase = wordings[r["attribute"]][k % len(wordings[r["attribute"]])]
        else:
            phrase = pick(upd[r["attribute"]], split, tag, r["entity"], "u")
        text = phrase(r["entity"], r["value"], new_value)
        later.append(update_of(r, new_value, text))
    for r in restated:
        text = (RESTATE_H2 if split == "heldout2" else RESTATE)[r["attribute"]](
            r["entity"], r["value"]
        )
        later.append(restatement_of(r, text))
    return stream + order(later, split, tag, "later")


# -- near-twin identifiers (issue 27, fifth pass; tune only) -------------------------------------
# Written before the fifth pass changed the detector, from heldout3's failure classes: two
# entities whose names differ by one character, a digit or one segment (a model's version, an
# env var, a host, a namespace's environment, a table's year, a versioned URL), each named
# inside an object or prepositional phrase ("the X model", "the service behind X", "There is a
# cap of N ... on X", "For X, ...", "X's Y is ...", "Pager duty for X ..."). All true at once in
# `parallel` (scope "t"); in `mixed` (project "twinyard") the same shapes with real updates of
# one twin's value (the same identifier, another value), which must still supersede.
TWINS_TUNE = [
    "the fraud-scorer-v3 model",
    "the fraud-scorer-v4 model",
    "cache-a1.internal",
    "cache-a2.internal",
    "the search-prod namespace",
    "the search-qa namespace",
    "the service behind LEDGER_DB_URL",
    "the service behind LENDER_DB_URL",
    "invoices_2024",
    "invoices_2025",
    "api.v1.harbor.dev",
    "api.v2.harbor.dev",
    "the /srv/media-eu volume",
    "the /srv/media-us volume",
]
TWINS_MIXED = [
    "the ranker-v5 model",
    "the ranker-v6 model",
    "pg-eu1.internal",
    "pg-eu2.internal",
    "the ads-prod namespace",
    "the ads-dev namespace",
    "CART_DB_URL",
]
GEMS = "Amber Beryl Coral Dolomite Emerald Feldspar Garnet Hematite Iolite Jade Kyanite Lapis".split()
TWIN_ATTRIBUTES: dict[str, dict] = {
    "conns": {
        "values": [str(v) for v in (120, 240, 360, 480, 600, 720, 840, 960, 1080, 1200, 1320)],
        "phrases": [
            lambda e, v: f"There is a cap of {v} open connections on {e}.",
            lambda e, v: f"For {e}, the connection limit is {v}.",
            lambda e, v: f"The connection limit on {e} is {v}.",
        ],
        "update": lambda e, o, n: f"There is now a cap of {n} open connections on {e} ({o} before).",
        "questions": [lambda e: f"How many simultaneous connections will {e} accept?"],
    },
    "pinned": {
        "values": ["1.4.2", "2.0.9", "3.3.1", "0.8.7", "5.1.0", "4.6.3", "2.9.4", "1.1.8"],
        "phrases": [
            lambda e, v: f"The release manifest pins {e} to version {v}.",
            lambda e, v: f"Nobody moves {e} past version {v} for now.",
            lambda e, v: f"{cap(e)}'s pinned version is {v}.",
        ],
        "update": lambda e, o, n: f"The release manifest now pins {e} to version {n}.",
        "questions": [lambda e: f"Which release is {e} held at?"],
    },
    "oncall": {
        "values": GEMS,
        "phrases": [
            lambda e, v: f"Pager duty for {e} goes to the {v} rotation.",
            lambda e, v: f"The {v} rotation covers {e} out of hours.",
            lambda e, v: f"On-call for {e}: the {v} rotation.",
        ],
        "update": lambda e, o, n: f"Pager duty for {e} moved from the {o} rotation to {n}.",
        "questions": [lambda e: f"Who gets woken up when {e} breaks at night?"],
    },
    "backup": {
        "values": [str(v) for v in (1, 2, 3, 4, 6, 8, 12, 24)],
        "phrases": [
            lambda e, v: f"For {e}, backups are taken every {v} hours.",
            lambda e, v: f"A snapshot of {e} is made every {v} hours.",
            lambda e, v: f"In production, {e} is backed up every {v} hours.",
        ],
        "update": lambda e, o, n: f"Backups of {e} now run every {n} hours instead of {o}.",
        "questions": [lambda e: f"How often is {e} backed up?"],
    },
    "channel": {
        "values": "ops-wren ops-finch ops-heron ops-kite ops-lark ops-owl ops-rook ops-swift".split(),
        "phrases": [
            lambda e, v: f"#{v} is the Slack channel for {e}.",
            lambda e, v: f"Questions about {e} go to #{v} on Slack.",
        ],
        "update": lambda e, o, n: f"The Slack channel for {e} is now #{n}.",
        "questions": [lambda e: f"Where on Slack do people discuss {e}?"],
    },
    "ttl": {
        "values": [str(v) for v in (30, 45, 60, 90, 120, 180, 240, 300, 600)],
        "phrases": [
            lambda e, v: f"In production, {e}'s cache entries live for {v} seconds.",
            lambda e, v: f"The cache TTL of {e} is {v} seconds.",
            lambda e, v: f"Cached answers from {e} expire after {v} seconds.",
        ],
        "update": lambda e, o, n: f"We cut the cache TTL of {e} from {o} to {n} seconds.",
        "questions": [lambda e: f"How long are responses of {e} kept in cache?"],
    },
    "alert": {
        "values": [str(v) for v in (150, 200, 250, 300, 350, 400, 450, 500, 550)],
        "phrases": [
            lambda e, v: f"An alert fires when {e}'s p99 latency goes above {v} ms.",
            lambda e, v: f"Above {v} ms of p99 latency on {e}, the pager goes off.",
        ],
        "update": lambda e, o, n: f"The p99 alert of {e} was raised to {n} ms.",
        "questions": [lambda e: f"At what p99 latency does {e} page someone?"],
    },
    "sla": {
        "values": ["99.5", "99.9", "99.95", "99.0", "99.7", "99.99", "99.8"],
        "phrases": [
            lambda e, v: f"Per the contract, {e} must stay up {v}% of the month.",
            lambda e, v: f"We promise a {v}% availability SLA for {e}.",
        ],
        "update": lambda e, o, n: f"The SLA for {e} went from {o}% to {n}%.",
        "questions": [lambda e: f"What uptime is guaranteed for {e}?"],
    },
    # a near-twin name as a value, not an entity: "X reads from store-a1.internal" and a
    # real update to "store-a2.internal" (must supersede)
    "replica_host": {
        "values": [f"store-{x}{n}.internal" for x in "abc" for n in (1, 2, 3)],
        "phrases": [
            lambda e, v: f"{cap(e)} reads from {v}.",
            lambda e, v: f"The read replica of {e} is {v}.",
        ],
        "update": lambda e, o, n: f"{cap(e)} now reads from {n}.",
        "questions": [lambda e: f"Which database host serves reads for {e}?"],
    },
    "cleanup": {
        "values": ["01:10", "02:20", "03:30", "04:40", "05:50", "00:15", "23:45", "22:05"],
        "phrases": [
            lambda e, v: f"In UTC, housekeeping for {e} starts at {v}.",
            lambda e, v: f"The nightly cleanup of {e} kicks off at {v} UTC.",
        ],
        "update": lambda e, o, n: f"Housekeeping for {e} was moved from {o} to {n} UTC.",
        "questions": [lambda e: f"When does the cleanup of {e} begin?"],
    },
}


def twin_rows(components: list[str], tag: str) -> list[dict]:
    rows = []
    for ci, comp in enumerate(components):
        for attribute, spec in TWIN_ATTRIBUTES.items():
            value = spec["values"][(ci + h(tag, attribute)) % len(spec["values"])]
            text = pick(spec["phrases"], "tune", tag, attribute, comp)(comp, value)
            question = pick(spec["questions"], "tune", tag, comp, attribute, "q")(comp)
            rows.append(
                {
                    "kind": "fact",
                    "entity": comp,
                    "attribute": attribute,
                    "value": value,
                    "text": text,
                    "questions": [question],
                }
            )
    return rows


def twin_mixed_rows(components: list[str], tag: str) -> list[dict]:
    """Twin facts, a real update of one twin's value for 10 of them (the other twin's fact of
    that attribute stays true), in the order a project would write them."""
    facts = twin_rows(components, tag)
    stream = order(facts, "tune", tag, "stream")
    chosen = order(facts, "tune", tag, "chosen")[:10]
    later = []
    for r in chosen:
        spec = TWIN_ATTRIBUTES[r["attribute"]]
        values = [v for v in spec["values"] if v != r["value"]]
        new_value = pick(values, "tune", tag, r["entity"], r["attribute"], "new")
        text = spec["update"](r["entity"], r["value"], new_value)
        later.append(update_of(r, new_value, text))
    return stream + order(later, "tune", tag, "later")


# -- the files -----------------------------------------------------------------------------------


def finish(set_name: str, split: str, scoped: list[tuple[str, list[dict]]]) -> list[dict]:
    out: list[dict] = []
    for scope, rows in scoped:
        ids = {}
        for seq, r in enumerate(rows):
            ids[id(r)] = f"{set_name}-{split}-{scope}-{seq:03d}"
        for seq, r in enumerate(rows):
            row = {
                "id": ids[id(r)],
                "set": set_name,
                "split": split,
                "scope": f"{set_name}-{split}-{scope}",
                "seq": seq,
                "kind": r["kind"],
                "entity": r["entity"],
                "attribute": r["attribute"],
                "text": r["text"],
                "questions": r["questions"],
                "replaces": ids[id(r["replaces"])] if "replaces" in r else None,
                "restates": ids[id(r["restates"])] if "restates" in r else None,
            }
            out.append(row)
    return out


def build() -> dict[str, list[dict]]:
    files: dict[str, list[dict]] = {}
    for split in SPLITS:
        comps = COMPONENTS[split]
        parallel = order(fact_rows(split, comps, list(ATTRIBUTES), "parallel"), split, "par")
        scoped = [("p", parallel)]
        if split == "tune":
            scoped.append(("t", order(twin_rows(TWINS_TUNE, "parallel/t"), split, "twins")))
        files[f"streams_parallel_{split}"] = finish("parallel", split, scoped)
        events = order(event_rows(split, "events"), split, "ev")
        files[f"streams_events_{split}"] = finish("events", split, [("e", events)])
        people = person_rows(split, PEOPLE[split], list(PERSON_ATTRS), "people")
        scoped_people = [("h", order(people, split, "pp"))]
        if split == "tune":
            twins = person_twin_rows(PEOPLE_TWINS_TUNE, "people/n")
            scoped_people.append(("n", order(twins, split, "pn")))
        files[f"streams_people_{split}"] = finish("people", split, scoped_people)
        files[f"streams_mixed_{split}"] = finish(
            "mixed",
            split,
            [(p, mixed_rows(split, p, c)) for p, c in MIXED[split]["projects"].items()]
            + (
                [
                    (p, mixed_rows(split, p, c, UPDATE_PHRASES_WORDINGS))
                    for p, c in WORDINGS_TUNE.items()
                ]
                if split == "tune"
                else []
            )
            + ([("twinyard", twin_mixed_rows(TWINS_MIXED, "mixed/twinyard"))] if split == "tune" else []),
        )
    return files


def render(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def write_files(files: dict[str, list[dict]], check: bool, unit: str) -> list[str]:
    """Write each file (name without `.jsonl`) and print its counts of `unit`s, kinds and
    questions; with `check`, write nothing. Returns the names of the files that were stale."""
    stale = []
    for name, rows in files.items():
        path = DATA / f"{name}.jsonl"
        text = render(rows)
        if check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
            continue
        path.write_text(text, encoding="utf-8")
        kinds: dict[str, int] = {}
        for r in rows:
            kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
        questions = sum(
            len(r["questions"]) if isinstance(r.get("questions"), list) else 1 for r in rows
        )
        print(f"{path.name}: {len(rows)} {unit} {kinds}, {questions} questions")
    return stale


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when a file is stale")
    args = parser.parse_args()
    stale = write_files(build(), check=args.check, unit="memories")
    if stale:
        print("stale (run python bench/data/gen_streams.py): " + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
