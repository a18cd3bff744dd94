"""What one fact says, read without a model: its words, the values it states, its cue words.

A fact about a project names a *subject* (a tool, service, file, setting, person, port...) and
states a *value* for it. An update keeps the subject and changes the value; a related fact
names another subject. This module only reads one text; `features.py` compares two.

Values are the tokens a fact can change: numbers (with their unit), versions, hosts, URLs,
paths, identifiers (snake_case, kebab-case, dotted, CamelCase, ALLCAPS) and names (capitalised
words inside a sentence). Subject words are the content words, stemmed; the parts of an
identifier count as subject words too ("ledger-api" is about a ledger API).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from neuralgentics.text import stemmer

# Function words: they say nothing about what a fact is about.
STOPWORDS = frozenset(
    """a about after all also am an and any are as at be been before being both but by can
    could did do does doing done each for from had has have having he her here hers him his
    how i if in into is it its itself just may me might more most must my no nor not now of
    off on once one only or other our ours out over own per same she should so some such
    than that the their theirs them then there these they this those through to too under
    until up upon very was we were what when where which while who whom why will with would
    you your yours yet via because us let lets get gets got""".split()
)

# Change cues: the writer says that something changed. Words are matched whole; phrases on
# the lower-cased text. Only forms that state a change happened or is under way: the bare
# present of a verb ("Engineers change the PDF renderer in Kotlin", "we switch to Gradle next
# sprint", "move X to Y") describes a habit, a plan or an instruction, not a new fact that
# replaces an old one.
CHANGE_WORDS = frozenset(
    """now moved moving switched switching migrated migration replaced replacing upgraded
    bumped renamed changed changing rewritten rewrote rebuilt retired dropped deprecated
    removed gone instead standardised standardized decided anymore since newer latest
    currently became ported abandoned sunset phased ended relocated handed quit sold
    traded reconfigured reverted adjusted""".split()
)
CHANGE_PHRASES = (
    "no longer",
    "any more",
    "instead of",
    "in favour of",
    "in favor of",
    "as of",
    "from now on",
    "going forward",
    "these days",
    "was retired",
    "was removed",
    "is gone",
    "was dropped",
    "phased out",
    "read-only",
    "switched to",
    "moved to",
    "replaced by",
    "replaced with",
    "from this",
    "after the",
    "since the",
    "after last",
    # issue 27, fourth pass: wordings of a change the list above missed
    "used to",
    "it was",
    "went from",
    "switched over",
    "no more",
    "handed over",
    # issue 27, tenth pass: a person's change of habit
    "gave up",
    "went off",
    "moved on",
    "in place of",
    "took over",
    "at present",
    "nowadays",
    "these days",
)
# Cues whose words stand apart ("The Orca team passed X on to the Lynx team").
CHANGE_PATTERNS = (re.compile(r"\bpassed\b.{1,60}?\bon\s+to\b"),)
# Words that say an old value is on its way out when they sit near it ("Looker's contract
# ended", "the old bucket is being deleted", "AAC stays for old devices only").
REMOVAL_WORDS = frozenset(
    """gone retired removed dropped deleted deprecated ended replaced replacing migrated
    moved switched old legacy former previous previously read-only phased instead favour
    favor longer anymore""".split()
)
# Cues that a fact adds to what is known rather than replacing it.
ADDITIVE_WORDS = frozenset(
    "also too another additional extra second besides addition plus includes include "
    "including separate each every both".split()
)
# "every 240 seconds", "each Friday", "30 ticks per second": how often, not one more of a
# kind (issue 27, tenth pass): "each", "every" and "second" are additive only elsewhere
_HOW_OFTEN = re.compile(
    r"\b(?:each|every)\s+(?:\d|other\b|few\b|(?:monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|night|morning|evening|weekday|weekend|sprint|release|quarter|"
    r"second|minute|hour|day|week|month|year)s?\b|(?:one|two|three|four|five|six|seven|eight|"
    r"nine|ten|twelve|fifteen|twenty|thirty|sixty)\b)"
    r"|\b(?:per|each|every|\d+(?:st|nd|rd|th)?)\s+second\b"
)


def _additive(lower: str, plain: frozenset[str] | set[str]) -> int:
    found = sum(1 for w in plain if w in ADDITIVE_WORDS)
    return max(0, found - len(_HOW_OFTEN.findall(lower)))


# Cues that a fact is one source's account ("the wiki says", "X's dashboard shows").
ATTRIBUTION_WORDS = frozenset(
    """says said claims claim claimed shows showed shown lists listed states stated reports
    reported according estimates estimated assumes assumed measured measures quotes quoted
    mentions mentioned found finds counts counted puts flagged suggests believes thinks
    insists""".split()
)
# Things a claim comes from ("the field report", "Kenji's notes").
SOURCE_WORDS = frozenset(
    """report dashboard spreadsheet notes wiki readme deck sheet survey study log estimate
    doc docs page card review budget bill notebook tracker sitemap console""".split()
)
NEGATIONS = frozenset(
    "not no never without disabled off none isn't aren't doesn't don't can't cannot won't "
    "forbidden denied".split()
)

# Words that name one side of a pair of things that often live side by side in a project.
# Two facts on different sides of one pair are about different things (the frontend's tool
# and the backend's; staging's port and production's), not one thing that changed.
CONTRASTS: tuple[frozenset[str], ...] = tuple(
    frozenset(group.split())
    for group in (
        "frontend backend front back client server",
        "staging production prod dev development test testing local sandbox qa",
        "ios android web desktop mobile tv tvs",
        "online offline",
        "read write",
        "primary secondary fallback backup replica",
        "internal external public private",
        "input output inbound outbound upstream downstream",
        "minimum maximum min max lowest highest",
        "access refresh",
        "unit integration e2e load",
        "raw staged intermediate",
        "legacy",
        "fatal non-fatal",
        "tcp udp",
    )
)

# Irregular forms the stemmer leaves apart ("built" / "build", "rewritten" / "write").
_LEMMAS = {
    "built": "build",
    "rebuilt": "build",
    "rebuild": "build",
    "rebuilds": "build",
    "builds": "build",
    "written": "write",
    "wrote": "write",
    "rewritten": "write",
    "rewrote": "write",
    "rewrite": "write",
    "ran": "run",
    "sent": "send",
    "went": "go",
    "goes": "go",
    "kept": "keep",
    "held": "hold",
    "paid": "pay",
    "lives": "live",
    "owned": "own",
    "owner": "own",
    "owners": "own",
    "owns": "own",
}

# Units, each spelling mapped to one name ("4 s" and "10 seconds" measure the same thing).
UNIT_NAMES = {
    "ms": "ms",
    "millisecond": "ms",
    "milliseconds": "ms",
    "s": "s",
    "sec": "s",
    "secs": "s",
    "second": "s",
    "seconds": "s",
    "min": "min",
    "mins": "min",
    "minute": "min",
    "minutes": "min",
    "h": "h",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
    "day": "day",
    "days": "day",
    "week": "week",
    "weeks": "week",
    "month": "month",
    "months": "month",
    "year": "year",
    "years": "year",
    "kb": "byte",
    "mb": "byte",
    "gb": "byte",
    "tb": "byte",
    "kib": "byte",
    "mib": "byte",
    "gib": "byte",
    "bytes": "byte",
    "%": "%",
    "percent": "%",
    "hz": "hz",
    "khz": "hz",
    "kbps": "bps",
    "mbps": "bps",
    "rps": "rate",
    "qps": "rate",
    "px": "px",
}
NUMBER_WORDS = {
    "zero": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "eleven": "11",
    "twelve": "12",
    "fifteen": "15",
    "twenty": "20",
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "sixty": "60",
    "hundred": "100",
}
# Words that state how often: a schedule's value.
_FREQUENCY_WORDS = frozenset(
    """daily weekly nightly hourly monthly quarterly yearly annually biweekly fortnightly
    twice monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays friday
    fridays saturday saturdays sunday sundays""".split()
)

_TOKEN = re.compile(
    r"[A-Za-z][A-Za-z0-9+]*://\S+"  # URLs
    r"|[\w.+-]*[/:][\w./{}*+-]*[\w/}*]"  # paths, host:port, times (09:00)
    r"|\d+(?:[.,]\d+)*(?:%|[A-Za-z]+\b)?"  # numbers, versions, with a unit glued on
    r"|[A-Za-z0-9_$@]+(?:[.'\u2019_-][A-Za-z0-9_$@]+)*"  # words and identifiers
)
_SENTENCE_START = re.compile(r"(?:^|[.!?;:]\s+|\(\s*|\u2014\s*)$")
_SPLIT = re.compile(r"[.'\u2019_/:@-]+")
_NOT_SUBJECT = STOPWORDS | {"http", "https", "www", "com", "org", "io", "dev", "app", "gs", "s3"}
# "Label: value" — a fact that only states a setting's current value ("QA lead: Daniel Kim").
_LABEL = re.compile(r"^\s*[^:.;!?]{1,40}:\s+\S")


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    return _LEMMAS.get(word) or stemmer("english").stemWord(word)


@lru_cache(maxsize=1)
def cue_stems() -> frozenset[str]:
    """Stems of the cue words, which say how a fact relates to others, not what it is about
    (irregular forms such as "rebuilt" stay: their lemma is a subject word, "build")."""
    return frozenset(stem(w) for w in CHANGE_WORDS | ADDITIVE_WORDS if w not in _LEMMAS)


def _is_identifier(token: str) -> bool:
    core = token.strip("._-")
    if any(c in core for c in "_/:@$") or re.search(r"[a-z0-9][.-][a-z0-9]", core, re.I):
        return True
    if any(c.isdigit() for c in core) and any(c.isalpha() for c in core):
        return True  # RS256, ESP32, v2, L4
    upper = sum(c.isupper() for c in core)
    # CamelCase and ALLCAPS (EMQX, JWKS, EdDSA), not a capitalised ordinary word
    return upper >= 2 or (upper == 1 and not core[0].isupper())


def _norm_value(token: str) -> str:
    t = re.sub(r"^https?://", "", token.lower().rstrip(".,;"))
    return t.rstrip("/")


@dataclass(frozen=True)
class Fact:
    text: str
    words: frozenset[str]  # lower-cased tokens and their parts (for "is X named in here")
    tokens: frozenset[str]  # lower-cased whole tokens
    sequence: tuple[str, ...]  # the tokens as written, in order (for reasons shown to people)
    subject: frozenset[str]  # stems of the content words, values' parts included
    values: frozenset[str]  # numbers, versions, identifiers, names (normalised)
    names: frozenset[str]  # capitalised names and identifiers among the values
    numbers: frozenset[tuple[str, str]]  # (number, unit or "") pairs
    frequencies: frozenset[str]  # schedule words: weekly, nightly, tuesdays...
    label: bool  # "Label: value"
    change_cues: tuple[str, ...]  # the change cues found ("now", "moved to"...)
    removal_words: frozenset[str]  # removal words present (to find the old value next to them)
    additive_cues: int
    attribution_cues: int
    negated: bool
    contrast_sides: frozenset[tuple[int, str]]  # (contrast group, side) named by the fact


@lru_cache(maxsize=4096)
def read(text: str) -> Fact:
    """The parts of one fact (cached: a project's memories are read again on every write)."""
    lower = text.lower()
    words: set[str] = set()
    plain: set[str] = set()
    subject: set[str] = set()
    values: set[str] = set()
    names: set[str] = set()
    numbers: set[tuple[str, str]] = set()
    frequencies: set[str] = set()
    tokens = list(_TOKEN.finditer(text))
    for i, match in enumerate(tokens):
        token = match.group(0).rstrip(".,;:")
        if re.fullmatch(r":\d{2,5}", token) and text[match.start() - 1 : match.start()] in " (":
            token = token[1:]  # "exposed on :8087": the port 8087 (issue 27, tenth pass)
        possessive = token[-2:] in ("'s", "\u2019s")
        if possessive:
            token = token[:-2]  # "Marisol's" -> "Marisol"
        if not token:
            continue
        low = token.lower()
        plain.add(low)
        words.add(low)
        words.update(p for p in _SPLIT.split(low) if p)
        if low in STOPWORDS:
            continue
        following = tokens[i + 1].group(0) if i + 1 < len(tokens) else ""
        number = re.fullmatch(r"(\d+(?:[.,]\d+)*)(%|[a-z]+)?", low)
        if number or low in NUMBER_WORDS:
            digits = number.group(1).replace(",", "") if number else NUMBER_WORDS[low]
            unit = (number.group(2) if number else None) or following.lower().rstrip(".,;")
            if unit in UNIT_NAMES:
                unit = UNIT_NAMES[unit]
            elif unit.isalpha() and unit not in STOPWORDS:
                unit = stem(unit)  # what is counted: "eight nodes", "42 buoys"
            else:
                unit = ""
            numbers.add((digits, unit))
            values.add(digits)
            continue
        if low in UNIT_NAMES and i > 0 and re.match(r"\d", tokens[i - 1].group(0)):
            continue  # "30 minutes": the unit went with its number
        if low in _FREQUENCY_WORDS:
            frequencies.add(low.rstrip("s") if low.endswith("days") else low)
            values.add(low)
            continue
        at_start = bool(_SENTENCE_START.search(text[: match.start()]))
        if at_start and token[0].isupper():
            # A capitalised first word is a name when a name follows ("Priya Nair is ...")
            # or it is a possessive ("Marisol's team"); otherwise it is an ordinary word.
            at_start = not (following[:1].isupper() or possessive)
        if _is_identifier(token) or (token[0].isupper() and not at_start):
            value = _norm_value(token)
            names.add(value)
            values.add(value)
            for part in _SPLIT.split(low):
                if len(part) > 1 and part not in _NOT_SUBJECT and not part.isdigit():
                    subject.add(stem(part))
            continue
        subject.add(stem(low))
    change = [w for w in CHANGE_WORDS if w in plain]
    if "now" in change and not re.search(r"(?<!\bfor )\bnow\b", lower):
        change.remove("now")  # "for now" says how long, not that something changed
    # ("looks after the X" says who minds it, not that something changed after an event)
    change += [
        p
        for p in CHANGE_PHRASES
        if re.search(
            r"(?<!look )(?<!looks )(?<!looked )(?<!looking )\b" + re.escape(p) + r"\b", lower
        )
    ]
    # "no more than 64 connections", "no more than 3 retries": a bound, not a change
    if "no more" in change and not re.search(r"\bno more\b(?! than\b)", lower):
        change.remove("no more")
    change += [m.group(0) for p in CHANGE_PATTERNS for m in [p.search(lower)] if m]
    attribution = sum(1 for w in plain if w in ATTRIBUTION_WORDS) + lower.count("according to")
    # "Kenji's notes", "the field report": a named source
    attribution += sum(1 for w in plain if w in SOURCE_WORDS)
    contrast = {(g, w) for g, group in enumerate(CONTRASTS) for w in plain if w in group}
    subject -= cue_stems()
    return Fact(
        text=text,
        words=frozenset(words),
        tokens=frozenset(plain),
        sequence=tuple(dict.fromkeys(m.group(0).rstrip(".,;:") for m in tokens)),
        subject=frozenset(subject),
        values=frozenset(values),
        names=frozenset(names),
        numbers=frozenset(numbers),
        frequencies=frozenset(frequencies),
        label=bool(_LABEL.match(text)),
        change_cues=tuple(sorted(change)),
        removal_words=frozenset(plain & REMOVAL_WORDS),
        additive_cues=_additive(lower, plain),
        attribution_cues=attribution,
        negated=bool(plain & NEGATIONS) or "no longer" in lower,
        contrast_sides=frozenset(contrast),
    )
