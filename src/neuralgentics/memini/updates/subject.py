"""The entity a fact is about, read by rules over its tokens (issue 27).

Two facts can only update, contradict or restate each other when they are about one entity:
"The payments service times out after 3 seconds." and "inventory-worker times out after 5
seconds." share every word but the entity, and both are true. The entity is the sentence's
subject noun phrase, read without a parser:

- the subject is the words before the main verb (a closed list of auxiliaries and common
  verbs, or a lower-case "-s"/"-ed" word after the first content word that does not modify a
  following component noun: "the payments service" keeps "payments");
- inside it, a possessor names the entity ("Marisol's editor" -> Marisol), else what follows
  the first preposition does ("Log retention for the EU cron scheduler" -> EU cron scheduler),
  else the phrase itself;
- a pronoun or "there" subject ("We ship the cart service every Friday"), a team as subject
  ("The Falcon team owns X": teams own things, the fact is about the thing), a source
  ("The wiki says ...", "According to X, ...") or a leading clause ("In their free time ...")
  hands over to the noun phrase that follows;
- its *anchors* are what tells one entity from its siblings: identifiers (inventory-worker,
  INC-2041, v2.4.0), names (Auth, Marisol, Acme), qualifiers (EU/US, staging/prod, ios/web)
  and numbered events ("build 1423", "sprint 31"); its other content words (payments,
  service) are the entity's plain words.

Two entities differ when each has an anchor the other lacks, or, anchors agreeing, each has a
plain word the other lacks. A fact whose subject cannot be read has no entity ("unknown"):
it is never the same entity as anything, so nothing it says is acted on automatically.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from neuralgentics.memini.updates.text import (
    CONTRASTS,
    NUMBER_WORDS,
    SOURCE_WORDS,
    STOPWORDS,
    UNIT_NAMES,
    stem,
)

_TOKEN = re.compile(r"[A-Za-z0-9][\w.+#/-]*(?:['\u2019]s\b)?|[,;:()\u2014]")
DETERMINERS = frozenset(
    "the a an our their its this that these those my your his her each every all some".split()
)
PREPOSITIONS = frozenset(
    "of for to from into in on at by with behind under over inside within across via".split()
)
PRONOUNS = frozenset(
    """we it they i you he she there this that everyone someone one anyone anything
    everything something nothing""".split()
)
# Words that end a subject: the verb or what stands before it.
AUXILIARIES = frozenset(
    """is are was were be been being has have had can could will would should must may might
    does do did gets got goes go went keeps kept needs need uses use runs run ran takes took
    holds held lives live sits sit stays stay starts start time sign come comes grew began
    became left came found made told wrote chose bought""".split()
)
ADVERBS = frozenset(
    """now no never always usually also only still just currently automatically typically
    normally already recently finally actually""".split()
)
# Leading words of a clause before the subject ("If the cart service breaks, ...").
SUBORDINATORS = frozenset("if when once while whenever after before since unless".split())
# Nouns that name a component: a "-s" word in front of one modifies it ("payments service").
HEADS = frozenset(
    """service services worker workers gateway scheduler webhook api app job jobs queue
    database db cluster bucket pipeline model cache proxy server bot team project repo
    library module endpoint site portal dashboard client sdk indexer resizer relay sync
    exporter builder scorer transcoder feed log logs monitor counter stub engine collector
    planner sender bff function cron retro retrospective meeting build sprint release
    incident ticket customer""".split()
)
# Nouns that name a thing of its own before a preposition ("the revenue report for the
# city", "the payments service for EU customers"), unlike "Logs from X", "Log retention for X".
OWN_NOUNS = frozenset(
    """report reports digest newsletter statement service services worker workers gateway
    scheduler api app database db pipeline queue bucket proxy server model cluster""".split()
)
# People in general as subject ("Clients reach X at port 8086", "Engineers change X in C#"):
# the fact is about what they act on (issue 27, tenth pass).
GENERIC_ACTORS = frozenset(
    "clients users callers engineers developers people everyone anyone nobody operators".split()
)
# Kinds of value that, with the value, can open a sentence about something else.
VALUE_KINDS = frozenset("topic port schema site release train queue bucket channel".split())
# Processes as subject ("OS updates reach X"): the fact is about the component they act on.
PROCESS_HEADS = frozenset("updates patches upgrades requests calls traffic".split())
# A team as subject: the fact is about what it owns or looks after.
OWNER_HEADS = frozenset("team squad group crew".split())
# Event nouns: with a number they name one event ("build 1423", "sprint 31", "PR 88").
EVENT_NOUNS = frozenset(
    """build builds sprint sprints incident incidents ticket tickets release releases version
    issue issues pr run job deploy deployment milestone iteration week quarter q epic story
    bug invoice order line lines lane route gate dock platform track shard partition rack
    floor room page pager alert""".split()
)
ATTRIBUTION = frozenset(
    """says say said claims claim claimed shows show showed lists list listed states stated
    reports reported notes noted mentions mentioned""".split()
)
QUALIFIERS = frozenset(
    {w for group in CONTRASTS for w in group}
    | set("eu us uk apac emea latam na north south east west canary nightly weekly".split())
)
# Where a schedule starts, a noun phrase ends ("the cart service every Friday"); "nightly"
# and "weekly" are not here: after a determiner they name a thing ("the nightly exporter").
SCHEDULE = frozenset(
    """every each monday tuesday wednesday thursday friday saturday sunday mondays tuesdays
    wednesdays thursdays fridays saturdays sundays""".split()
)
WH_WORDS = frozenset("where how when what who which why".split())
PARTICLES = frozenset("over on up out off back in".split())
# Words never part of an entity (they say how, not what).
_NOT_ENTITY = STOPWORDS | DETERMINERS | ADVERBS


@dataclass(frozen=True)
class Entity:
    anchors: frozenset[str]  # identifiers, names, qualifiers, numbered events (lower-cased)
    words: frozenset[str]  # the other content words, stemmed
    span: tuple[int, int]  # token positions of the entity phrase (for the attribute's words)

    @property
    def known(self) -> bool:
        return bool(self.anchors or self.words)

    def text(self) -> str:
        return " ".join(sorted(self.anchors | self.words))


UNKNOWN = Entity(frozenset(), frozenset(), (0, 0))


def _is_anchor(token: str, low: str, first: bool) -> bool:
    core = low.removesuffix("'s").removesuffix("\u2019s")
    if core in QUALIFIERS:
        return True
    if any(c in core for c in "-_./#") and any(c.isalnum() for c in core):
        return True
    if any(c.isdigit() for c in core) and any(c.isalpha() for c in core):
        return True
    if sum(c.isupper() for c in token) >= 2:
        return True  # API, BFF, CI, GraphQL
    return token[:1].isupper() and not first


def _verbish(tokens: list[str], i: int, seen_content: bool) -> bool:
    low = tokens[i].lower()
    if low in AUXILIARIES or low in ADVERBS or low in ATTRIBUTION:
        return seen_content or low in ADVERBS
    if not seen_content or not tokens[i].isalpha() or not tokens[i].islower():
        return False
    if not (low.endswith("ed") or (low.endswith("s") and not low.endswith("ss"))) or len(low) < 4:
        return False
    following = tokens[i + 1].lower() if i + 1 < len(tokens) else ""
    # "the payments service": a modifier; "new builds of X", "logs from X": a plural noun
    # ("moved from X to Y" is a verb: only a plural noun goes before "of"; after a component
    # noun or an identifier, "reads from" is one too: "the ledger worker reads from X";
    # "Log files of X" stays a noun)
    previous = tokens[i - 1] if i > 0 else ""
    named = previous.lower() in HEADS or (
        any(c in previous for c in "-_./") and any(c.isalpha() for c in previous)
    )
    # "OS updates reach X": a process noun, the verb after it
    if (
        low in PROCESS_HEADS
        and following.isalpha()
        and following not in DETERMINERS | PREPOSITIONS | AUXILIARIES | ADVERBS | STOPWORDS
    ):
        return False
    if (
        following in HEADS
        or following in COMPONENT_HEADS
        or (
            following in ("of", "from")
            and not low.endswith("ed")
            and not (named and following == "from")
        )
    ):
        return False
    # a verb comes right after it ("the EU pricing feed runs in", "the seed feed is",
    # "the billing feed moved to"): it is the phrase's head noun, the next word the verb
    return not _verb_next(tokens, i + 1)


def _verb_next(tokens: list[str], i: int) -> bool:
    """Is tokens[i] a verb for sure: an auxiliary or common verb of the closed list, or a
    lower-case "-ed" word followed by a preposition, an article or a number ("moved to",
    "failed on", "dropped 3")?"""
    if i >= len(tokens):
        return False
    low = tokens[i].lower()
    if low in AUXILIARIES or low in ATTRIBUTION:
        return True
    if not (tokens[i].isalpha() and tokens[i].islower() and low.endswith("ed") and len(low) > 4):
        return False
    after = tokens[i + 1].lower() if i + 1 < len(tokens) else ""
    return after in PREPOSITIONS or after in DETERMINERS or after[:1].isdigit()


@lru_cache(maxsize=8192)
def tokens_of(text: str) -> tuple[str, ...]:
    out = []
    for t in _TOKEN.findall(text):
        t = t.rstrip(".") if len(t) > 1 else t
        if t:
            out.append(t)
    return tuple(out)


def _phrase(tokens: list[str], start: int) -> tuple[int, int, int | None]:
    """The noun phrase from `start` to the verb: (start, end, verb position or None)."""
    seen = False
    for i in range(start, min(len(tokens), start + 10)):
        t = tokens[i]
        if i == start and (t.lower() in PRONOUNS or t.lower() in GENERIC_ACTORS):
            j = i + 1
            while j < len(tokens) and tokens[j].lower() in ADVERBS:
                j += 1
            return start, i + 1, j if j < len(tokens) else None
        if t in ",;:()\u2014":
            return start, i, None
        # a verb never follows a determiner or a preposition: "A call to the invoices Kafka
        # consumer" goes on past "invoices"
        after_function_word = i > start and tokens[i - 1].lower() in DETERMINERS | PREPOSITIONS
        if _verbish(tokens, i, seen) and not after_function_word:
            return start, i, i
        # "OS updates reach X": the word after a process noun is its verb
        if (
            i > start
            and tokens[i - 1].lower() in PROCESS_HEADS
            and t.isalpha()
            and t.islower()
            and t not in _NOT_ENTITY | PREPOSITIONS | AUXILIARIES
        ):
            return start, i, i
        if t.lower() not in _NOT_ENTITY:
            seen = True
    return start, min(len(tokens), start + 10), None


def _object_phrase(tokens: list[str], start: int) -> tuple[int, int]:
    """The noun phrase after a verb: from the first determiner or content word to the next
    preposition (other than of/for), verb, adverb or clause break."""
    i = start
    while i < len(tokens) and (tokens[i].lower() in ADVERBS or tokens[i].lower() in ("that",)):
        i += 1
    begin = i
    seen = False
    while i < len(tokens):
        low = tokens[i].lower()
        if tokens[i] in ",;:()\u2014" or low in ADVERBS | SUBORDINATORS | SCHEDULE:
            break
        if low in PREPOSITIONS and low not in ("of", "for") and seen:
            break
        # an "-ing" word ends the phrase ("the cart service running in ..."), but not one
        # right after a determiner or a qualifier ("the staging points webhook")
        after_function_word = i > begin and tokens[i - 1].lower() in DETERMINERS
        if (
            seen
            and (low in AUXILIARIES or low.endswith("ing"))
            and low not in QUALIFIERS
            and not after_function_word
        ):
            break
        if low not in _NOT_ENTITY and not re.fullmatch(r"\d+(?:[.,]\d+)*", low):
            seen = True
        i += 1
    return begin, i


def _entity(tokens: list[str], begin: int, end: int) -> Entity:
    """Anchors and words of tokens[begin:end], narrowed to a possessor or to what follows the
    first preposition."""
    span = list(range(begin, end))
    for i in span:
        if tokens[i].lower().endswith(("'s", "\u2019s")):
            span = [j for j in span if j <= i]
            break
    else:
        for k, i in enumerate(span):
            if tokens[i].lower() in PREPOSITIONS and k > 0:
                rest = span[k + 1 :]
                # "The revenue report for the city": a thing of its own before the
                # preposition (a component noun, a report) is named with what follows
                own = tokens[span[k - 1]].lower() in OWN_NOUNS
                if any(tokens[j].lower() not in _NOT_ENTITY for j in rest) and not own:
                    span = rest
                break
    anchors: set[str] = set()
    words: set[str] = set()
    for k, i in enumerate(span):
        token = tokens[i]
        low = token.lower().removesuffix("'s").removesuffix("\u2019s")
        if token.isupper() and low in QUALIFIERS:
            anchors.add(low)  # "US", which is also a pronoun
            continue
        if low in _NOT_ENTITY or low in PREPOSITIONS:
            continue
        # "Three origin clusters sit behind the edge": a count, no part of the entity's name
        # (issue 27, eighth pass)
        if low in NUMBER_WORDS:
            continue
        if re.fullmatch(r"\d+(?:[.,]\d+)*", low):
            before = tokens[span[k - 1]].lower() if k > 0 else ""
            if before in EVENT_NOUNS:
                anchors.add(f"{stem(before)} {low}")  # "build 1423"
            continue
        if low in EVENT_NOUNS and k + 1 < len(span) and tokens[span[k + 1]][:1].isdigit():
            continue  # said with its number
        if _is_anchor(token, low, i == 0):
            anchors.add(stem(low) if low.isalpha() else low)
        else:
            words.add(stem(low))
    return Entity(frozenset(anchors), frozenset(words), (span[0], span[-1] + 1) if span else (0, 0))


@lru_cache(maxsize=8192)
def entity(text: str) -> Entity:
    """The entity a fact is about: its subject noun phrase (`_subject`), or, when that holds
    no identifier of its own, the identifier the fact names in an entity's place (`named`):
    "The deploy manifest locks [the churn-predictor-v8 model] to release 2.31.0", "There is a
    cap of 575 open connections on [orders_archive]", "In UTC, housekeeping for
    [db-eu2.internal] fires at ..." (issue 27, fifth pass)."""
    return _with_qualifier(text, _entity_of(text))


def _with_qualifier(text: str, found: Entity) -> Entity:
    """An entity with the parenthesis right after its phrase ("the moisture-probe gateway
    (south field)"): the qualifier's words are anchors of the entity, not words of its
    attribute (issue 27, seventh pass)."""
    tokens = tokens_of(text)
    end = found.span[1]
    if not found.known or end >= len(tokens) or tokens[end] != "(":
        return found
    close = next((k for k in range(end + 1, min(len(tokens), end + 6)) if tokens[k] == ")"), 0)
    inner = {
        _plain(t)
        for t in tokens[end + 1 : close]
        # ("vault A", "bay B": a capital letter names one of several)
        if _plain(t) not in _NOT_ENTITY | PREPOSITIONS or (len(t) == 1 and t.isupper())
    }
    if not close or not inner:
        return found
    return Entity(found.anchors | inner, found.words, (found.span[0], close + 1))


def _entity_of(text: str) -> Entity:
    found = _subject(text)
    # the subject names a thing of its own: an identifier (not a Slack channel, a value), a
    # name or an acronym ("the Booking API"), not only a qualifier or a time zone ("In UTC,")
    if any(_identifier(a) and f"#{a}" not in text.lower() for a in found.anchors) or any(
        a not in WEAK_ANCHORS and not _identifier(a) for a in found.anchors
    ):
        return found
    placed = _placed(text)
    if not placed:
        return found
    ident, span = placed[0]
    return Entity(frozenset({ident}), frozenset(), span)


@lru_cache(maxsize=8192)
def _subject(text: str) -> Entity:
    tokens = list(tokens_of(text))
    start = 0
    # "fernbank-bff: owned by Leila Farouk.", "Attachment limit: 25 MB.": the label is the
    # entity (with the attribute, which the comparison of two entities tolerates)
    if ":" in tokens[1:6] and not re.match(r"\s*https?:", text):
        colon = tokens.index(":")
        found = _entity(tokens, 0, colon)
        if found.known:
            return found
    # a leading source ("According to the wiki, ...") or clause ("In their free time ...")
    if tokens and tokens[0].lower() == "according":
        start = next((i + 1 for i, t in enumerate(tokens) if t == ","), 0)
    while start < len(tokens) and tokens[start].lower() in SUBORDINATORS:
        start += 1
    if start < len(tokens) and tokens[start].lower() in PREPOSITIONS - {"of"}:
        # A leading phrase: "In the Sprint 31 retrospective the team ..." is about what it
        # names (an anchor); "At home Marisol looks after ..." about who follows it.
        j = start + 1
        while j < len(tokens) and tokens[j].lower() in DETERMINERS:
            j += 1
        lead = j
        while j < len(tokens) and not (
            tokens[j] == ","
            or tokens[j].lower() in DETERMINERS
            or (tokens[j][:1].isupper() and j > lead)
        ):
            j += 1
        # (a parenthesis qualifies the phrase: `_with_qualifier` adds it)
        stop = next((k for k in range(lead, j) if tokens[k] == "("), j)
        found = _entity(tokens, lead, stop)
        # "For the gondola drive monitor (lower terminal), the log topic …": a component
        # named in a leading "for" phrase is what the fact is about (tenth pass)
        named = tokens[start].lower() == "for" and any(
            _plain(t) in HEADS | COMPONENT_HEADS or _identifier(t) for t in tokens[lead:j]
        )
        if found.anchors or (named and found.known):
            return found
        start = j + 1 if j < len(tokens) and tokens[j] == "," else j
    # a sentence that opens with a person's full name and a lower-case word ("Tiberius
    # Brennan quit curling", "Cormac Tolliver sold a Renault Zoe"): the name is the subject,
    # the word its verb, whether or not the verb is one the rules know (seventh pass)
    for name, (b, e) in _name_runs(tokens):
        if b == start and e < len(tokens) and not name.endswith("'s"):
            nxt = tokens[e]
            if (
                nxt.isalpha()
                and nxt.islower()
                and nxt not in PREPOSITIONS | {"and", "or"}
                and not tokens[e - 1].lower().endswith(("'s", "\u2019s"))
            ):
                return _entity(tokens, b, e)
        break
    begin, end, verb = _phrase(tokens, start)
    # "Port 8084 is where the EU search cluster can be reached", "Rust is what X is written
    # in": the subject names the attribute; the clause after the wh-word names the entity
    if (
        verb is not None
        and tokens[verb].lower() in ("is", "are", "was", "were")
        and verb + 2 < len(tokens)
        and tokens[verb + 1].lower() in WH_WORDS
    ):
        found = _subject(" ".join(tokens[verb + 2 :]))
        if found.known:
            return found
    subject = _entity(tokens, begin, end)
    head = tokens[end - 1].lower() if end > begin else ""
    raw = [t.lower() for t in tokens[begin:end]]
    words_in = [t for t in raw if t not in _NOT_ENTITY or t in PRONOUNS]
    possessive = any(t.endswith(("'s", "\u2019s")) for t in raw)
    source = bool(set(words_in) & SOURCE_WORDS)
    # "OS updates reach X", "Security patches hit X first": a process that acts on a
    # component; the fact is about the component (when it names one, below)
    process = head in PROCESS_HEADS and verb is not None
    # "Topic ops.trace.raw receives the log output of X", "Release train RT-2027.06 carries
    # the build of X": a value named by its kind as subject; the fact is about X (tenth pass)
    content = [t for t in raw if t not in _NOT_ENTITY]
    process = process or (
        verb is not None
        and bool(content)
        and content[0] in VALUE_KINDS
        and any(_identifier(t) or t[:1].isdigit() for t in tokens[begin:end])
    )
    handed = (
        process
        or not words_in
        or all(w in PRONOUNS or w in GENERIC_ACTORS for w in words_in)
        or (head in OWNER_HEADS and not possessive)
        or (verb is not None and tokens[verb].lower() in ATTRIBUTION and source)
    )
    if handed and verb is not None:
        after = verb + 1
        if tokens[verb].lower() in ATTRIBUTION:
            rest = " ".join(tokens[after:])
            return _subject(rest) if rest else UNKNOWN
        while after < len(tokens) and tokens[after].lower() in AUXILIARIES | ADVERBS:
            after += 1
        if after < len(tokens) and tokens[after].lower() in PARTICLES:
            after += 1  # the verb's particle ("took over", "is on call for")
            while after < len(tokens) and tokens[after].lower() in PREPOSITIONS | {"call"}:
                after += 1
        b, e = _object_phrase(tokens, after)
        found = _entity(tokens, b, e)
        # what people in general act on is the entity only when it names a component ("reach
        # the iOS player API", "change crane-telemetry"), not a value ("get HTTP 429 from X")
        generic = any(w in GENERIC_ACTORS for w in words_in) and all(
            w in PRONOUNS or w in GENERIC_ACTORS for w in words_in
        )
        if (generic or process) and not _names_component(tokens, b, e):
            return subject if process else UNKNOWN
        return found if found.known else UNKNOWN
    if verb is None or not subject.known:
        return UNKNOWN
    # "Segment duration is 4 s", "The reading interval is 2 minutes", "Party size limit is
    # 5": a subject that ends in an attribute noun names its entity by the words before it
    # (issue 27, fourth pass); not when the phrase was narrowed to a possessor or to what
    # follows a preposition, whose head is the entity's own
    if (
        subject.span == (begin, end)
        and end - begin >= 2
        and tokens[end - 1].lower() in ATTRIBUTE_NOUNS
    ):
        cut = end - 1
        while cut - begin >= 2 and tokens[cut - 1].lower() in ATTRIBUTE_NOUNS:
            cut -= 1  # "Party size limit"
        narrowed = _entity(tokens, begin, cut)
        if narrowed.known:
            return narrowed
    return subject


def _names_component(tokens: list[str], begin: int, end: int) -> bool:
    """tokens[begin:end] name a component: an identifier, or a phrase ending in a component
    noun."""
    phrase = [_plain(t) for t in tokens[begin:end]]
    return bool(phrase) and (
        any(_identifier(t) for t in tokens[begin:end]) or phrase[-1] in COMPONENT_HEADS
    )


# -- identifiers in an entity's place (issue 27, fifth pass) ------------------------------------
# Near-twin names ("churn-predictor-v8" / "-v7", PAYMENTS_DB_URL / PAYOUTS_DB_URL, db-eu1 /
# db-eu2, billing-prod / billing-staging) are two entities wherever they stand: an identifier
# is what a fact is about when it stands where an entity does — before a component noun ("the
# X model"), after "behind", "for", "on", "of", "about" ("the database behind X", "housekeeping
# for X", "a cap of N connections on X"), as a possessor ("X's p99 latency"), at the head of a
# clause, or as the object of a verb whose value follows ("pins X to version 3.1"). After
# "from", "to", "in", "at", "via", "with", "by", "is" or a verb it is a value ("reads from
# store-a1.internal", "moved to eu-west-1", "uses node-18"), and so are regions, versions,
# numbers, dates and Slack channels.
PLACE_HEADS = HEADS | frozenset(
    """namespace namespaces volume volumes backend backends table tables topic topics host
    hosts relay relays schema index stream pod node cluster repository bucket vault store
    workspace tenant account environment env deployment daemon consumer producer""".split()
)
# Nouns that end a component's name (for the phrases people in general act on, and
# evidence._names_a_thing)
COMPONENT_HEADS = PLACE_HEADS | frozenset(
    """bridge poller daemon shield edge broker agent runner sender consumer ingester tracker
    publisher writer decoder predictor hub tokeniser tokenizer controller""".split()
)
ENTITY_PREPOSITIONS = frozenset("behind for on of about inside within across named called".split())
# "runs on X", "is hosted on X": where something runs is a value
_PLACE_VERBS = frozenset(
    """runs run ran lives live hosted deployed sits sit is are was were served based relies
    rely depends depend built scheduled mounted""".split()
)
_VALUE_AFTER = frozenset("to past at until below above under".split())
_VERSION = re.compile(r"v?\d+(?:\.\d+)+(?:[-+.][\w.]+)?")


# Hyphenated words of plain English, not names ("Night-time problems with X ...").
COMMON_HYPHENATED = frozenset(
    """night-time day-time part-time full-time on-call read-only real-time long-term
    short-term built-in opt-in opt-out follow-up first-response end-to-end third-party
    open-source up-to-date self-hosted non-fatal e-mail""".split()
)
# Anchors that name no thing on their own: a qualifier, a time zone ("In UTC, ..."), plain
# English with a hyphen ("Night-time problems with X ...").
WEAK_ANCHORS = QUALIFIERS | COMMON_HYPHENATED | frozenset("utc gmt cet pst est".split())
# Plural nouns that name trouble with a thing ("problems with X"): X is what it is about.
_TROUBLE = frozenset("problems issues errors trouble incidents outages bugs complaints".split())


def _identifier(token: str) -> bool:
    """An identifier that can name a thing: a name with a separator and a letter
    (churn-predictor-v8, PAYMENTS_DB_URL, db-eu1.internal, /srv/media, orders_archive), not a
    number, date, version or cloud region (values), nor a hyphenated English word."""
    core = token.lower().removesuffix("'s").removesuffix("\u2019s")
    if not any(c in core for c in "-_./") or not any(c.isalpha() for c in core):
        return False
    if core in COMMON_HYPHENATED:
        return False
    if core[:1].isdigit() or _VERSION.fullmatch(core) or _REGION_VALUE.fullmatch(core):
        return False
    return not core.startswith(("http", "www."))


def _plain(token: str) -> str:
    return token.lower().removesuffix("'s").removesuffix("\u2019s")


@lru_cache(maxsize=8192)
def _placed(text: str) -> tuple[tuple[str, tuple[int, int]], ...]:
    """The identifiers `text` names in an entity's place, each with its phrase's span (the
    identifier with the component nouns after it, or "the database behind X")."""
    tokens = list(tokens_of(text))
    out: list[tuple[str, tuple[int, int]]] = []
    for i, token in enumerate(tokens):
        if not _identifier(token) or f"#{token}" in text:
            continue
        low = token.lower().removesuffix("'s").removesuffix("\u2019s")
        nxt = tokens[i + 1].lower() if i + 1 < len(tokens) else ""
        j = i - 1
        while j >= 0 and tokens[j].lower() in DETERMINERS:
            j -= 1
        gov = tokens[j].lower() if j >= 0 else ""
        before_gov = tokens[j - 1].lower() if j >= 1 else ""
        end = i + 1
        while end < len(tokens) and _plain(tokens[end]) in PLACE_HEADS:
            end += 1
        begin = i
        if gov == "behind" and j >= 1:
            # "the database behind X": the whole phrase names one thing
            b = j - 1
            while b > 0 and tokens[b - 1].lower() not in _NOT_ENTITY | PREPOSITIONS:
                b -= 1
            if b > 0 and tokens[b - 1].lower() in DETERMINERS:
                b -= 1
            begin = b
        after = tokens[i + 1 :]
        value_follows = (
            nxt in _VALUE_AFTER
            and len(after) > 1
            and (after[1][:1].isdigit() or after[1].lower() in ("version", "release", "v"))
        )
        # "the north-bay buoys": an identifier between a determiner and a noun names a thing
        modifier = (
            j < i - 1
            and nxt.isalpha()
            and nxt.islower()
            and nxt not in _NOT_ENTITY | PREPOSITIONS | AUXILIARIES | SCHEDULE | PRONOUNS
            and not nxt.endswith(("ed", "ing"))
            and not _verb_next(tokens, i + 1)
        )
        placed = (
            token.lower().endswith(("'s", "\u2019s"))
            or end > i + 1
            or modifier
            or gov in ("", ",", ";")
            or (gov in ENTITY_PREPOSITIONS and not (gov == "on" and before_gov in _PLACE_VERBS))
            or (gov == "with" and before_gov in _TROUBLE)
            or value_follows
        )
        # a phrase of time ("after the low-latency project", "since the v2-cutover") says
        # when, not what the fact is about (issue 27, eighth pass)
        if gov in TIME_WORDS and not token.lower().endswith(("'s", "\u2019s")):
            placed = False
        if placed and low not in {x for x, _ in out}:
            out.append((low, (begin, end)))
    for name, (begin, end) in _name_runs(tokens):
        j = begin - 1
        gov = tokens[j].lower() if j >= 0 else ""
        nxt = tokens[end].lower() if end < len(tokens) else ""
        # "A few months ago Maren Holt started ...", "because of Maren Holt", "For Maren
        # Holt, ...": a person's full name in a subject's or an entity's place
        verb_next = nxt in AUXILIARIES or (
            nxt.isalpha() and nxt.islower() and nxt.endswith(("ed", "s")) and len(nxt) > 3
        )
        # (not a possessor, "Ingest is Ana Duarte's responsibility": an owner is a value; not
        # after "on" / "in", "build on Xcode Cloud": a platform is one)
        if (gov in _NAME_PREPOSITIONS or gov in ("", ",", ";") or verb_next) and (
            name not in {x for x, _ in out}
        ):
            out.append((name, (begin, end)))
    return tuple(out)


_NAME_PREPOSITIONS = frozenset("of for about behind".split())
TIME_WORDS = frozenset("after before during since until following throughout".split())
_NAME_PART = re.compile(r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?(?:['\u2019]s)?")


def _name_runs(tokens: list[str]) -> list[tuple[str, tuple[int, int]]]:
    """Runs of two or more capitalised words ("Maren Holt", "Idris Okafor's"): full names."""
    out = []
    i = 0
    while i < len(tokens):
        j = i
        while j < len(tokens) and _NAME_PART.fullmatch(tokens[j]):
            j += 1
            if tokens[j - 1].lower().endswith(("'s", "\u2019s")):
                break
        if j - i >= 2 and tokens[i].lower() not in _NOT_ENTITY | PREPOSITIONS | SUBORDINATORS:
            out.append((" ".join(_plain(t) for t in tokens[i:j]), (i, j)))
        i = max(j, i + 1)
    return out


@lru_cache(maxsize=8192)
def identifiers(text: str) -> frozenset[str]:
    """Every identifier `text` holds, wherever it stands (lower-cased)."""
    tokens = list(tokens_of(text))
    found = {_plain(t) for t in tokens if _identifier(t)}
    return frozenset(found | {name for name, _ in _name_runs(tokens)})


def named_apart(a_text: str, b_text: str) -> bool:
    """Each fact names, in an entity's place, an identifier the other never holds: two
    entities ("… locks the churn-predictor-v8 model to …" / "… the churn-predictor-v7 model
    …"), however alike the rest. Not when one holds the other's as a value."""
    a = {x for x, _ in _placed(a_text)}
    b = {x for x, _ in _placed(b_text)}
    return bool(a - identifiers(b_text)) and bool(b - identifiers(a_text))


def mentions(e: Entity, text: str) -> bool:
    """Does `text` name every part of entity `e` somewhere ("Ingest is Ana's responsibility"
    names the entity of "Kenji is on point for the ingest service" only in part; "Acme" in
    "Customer Acme reported ..." whole)?"""
    if not e.known:
        return False
    lower = text.lower()
    # whole tokens: "search" is not named by "search-api" (a part of another identifier);
    # an identifier's parts may be named as words ("feature flag" for "feature-flag")
    whole = {stem(t.lower().removesuffix("'s").removesuffix("\u2019s")) for t in tokens_of(text)}
    whole |= {stem(w) for t in tokens_of(text) for w in t.lower().split("/") if w}
    parts_named = {stem(w) for w in re.findall(r"[a-z0-9]+", lower)}

    def named(p: str) -> bool:
        if " " in p:
            return p in lower
        parts = [x for x in re.split(r"[-_./]+", p) if x]
        return p in whole or (len(parts) > 1 and all(stem(x) in parts_named for x in parts))

    return all(named(p) for p in e.anchors | e.words)


def one_frame_two_names(a_text: str, b_text: str) -> bool:
    """Two facts said in one frame that differ, before their main verb, only in the name of
    what they are about: "Anything over 1 MB sent to [the SMS OTP sender] is refused" /
    "Anything over 12 MB sent to [the GraphQL gateway] is refused". Whatever the reading of
    their subjects, such facts are parallel, about two entities. Numbers are one slot of the
    frame (the values may differ); the differing words must come before a verb that both share
    after them ("… is refused"), and name a component (an identifier or a head noun such as
    "gateway"), so a changed value after the verb ("is written in Vue" / "in React") is not
    taken for a name."""
    a = [
        "#" if t[:1].isdigit() or t.lower() in NUMBER_WORDS else t.lower()
        for t in tokens_of(a_text)
    ]
    b = [
        "#" if t[:1].isdigit() or t.lower() in NUMBER_WORDS else t.lower()
        for t in tokens_of(b_text)
    ]
    p = 0
    while p < min(len(a), len(b)) and a[p] == b[p]:
        p += 1
    q = 0
    while q < min(len(a), len(b)) - p and a[-1 - q] == b[-1 - q]:
        q += 1
    mid_a, mid_b = a[p : len(a) - q], b[p : len(b) - q]
    content_a = {t for t in mid_a if t not in _NOT_ENTITY and t != "#"}
    content_b = {t for t in mid_b if t not in _NOT_ENTITY and t != "#"}
    if not content_a or not content_b or content_a & content_b:
        return False
    prefix, suffix = a[:p], a[len(a) - q :]
    if any(t in AUXILIARIES for t in prefix) or not any(t in AUXILIARIES for t in suffix):
        return False
    raw_a = [t for t in tokens_of(a_text)][p : len(a) - q]
    raw_b = [t for t in tokens_of(b_text)][p : len(b) - q]

    def names(raw: list[str]) -> bool:
        return any(
            _is_anchor(t, t.lower(), False) or t.lower() in HEADS
            for t in raw
            if t.lower() not in _NOT_ENTITY and not t[:1].isdigit()
        )

    return names(raw_a) or names(raw_b)


def _qualified(text: str) -> dict[tuple[str, ...], frozenset[str]]:
    """The noun phrases `text` qualifies, each with its qualifier (issue 27, seventh pass):
    a parenthesis right after a noun phrase ("the moisture-probe gateway (south field)") and
    "in X" after a noun phrase that a preposition governs or that opens the sentence ("to the
    origin shield in sin", "The origin shield in ams ..."; not "stores its data in Postgres",
    where "in" goes with the verb). The qualifier is part of the entity's name."""
    tokens = list(tokens_of(text))
    low = [_plain(t) for t in tokens]
    out: dict[tuple[str, ...], set[str]] = {}

    def head_before(i: int) -> tuple[tuple[str, ...], int]:
        """The content words right before position i (a noun phrase's end) and where that
        phrase starts (its determiner's position, if any)."""
        j = i
        while (
            j > 0
            and i - j < 4
            and tokens[j - 1] not in ",;:()\u2014"
            and low[j - 1] not in _NOT_ENTITY | PREPOSITIONS | AUXILIARIES
            and not _verb_next(tokens, j - 1)
        ):
            j -= 1
        return tuple(stem(w) for w in low[j:i]), j

    for i, t in enumerate(tokens):
        if t == "(":
            close = next((k for k in range(i + 1, min(len(tokens), i + 6)) if tokens[k] == ")"), 0)
            inner = {w for w in low[i + 1 : close] if w not in _NOT_ENTITY | PREPOSITIONS}
            head, _ = head_before(i)
            if close and inner and head:
                out.setdefault(head, set()).update(inner)
        elif low[i] == "in" and i + 1 < len(tokens):
            head, j = head_before(i)
            # "the": a known thing; "backed up to a bucket in Zurich" describes a value
            if not head or j == 0 or low[j - 1] != "the":
                continue
            governed = j - 1 == 0 or (j >= 2 and low[j - 2] in PREPOSITIONS)
            k = i + 1
            while k < len(tokens) and low[k] in DETERMINERS:
                k += 1
            if governed and k < len(tokens) and tokens[k][:1].isalnum():
                if not tokens[k][:1].isdigit():
                    out.setdefault(head, set()).add(low[k])
    return {h: frozenset(q) for h, q in out.items()}


def qualified_apart(a_text: str, b_text: str) -> bool:
    """One noun phrase qualified two ways ("the moisture-probe gateway (south field)" /
    "(north field)", "the origin shield in sin" / "in ams"): two entities, when neither fact
    names the other's qualifier anywhere."""
    qa, qb = _qualified(a_text), _qualified(b_text)
    if not qa or not qb:
        return False
    words_a = {_plain(t) for t in tokens_of(a_text)}
    words_b = {_plain(t) for t in tokens_of(b_text)}
    for head in qa.keys() & qb.keys():
        only_a, only_b = qa[head] - qb[head], qb[head] - qa[head]
        if only_a and only_b and not (only_a & words_b) and not (only_b & words_a):
            return True
    return False


def different(a: Entity, b: Entity, a_text: str = "", b_text: str = "") -> bool:
    """Two known entities that are not one: each names something the other does not ("the
    payments service" / "inventory-worker", "EU cron scheduler" / "US cron scheduler", "build
    1423" / "build 1424"), and neither fact names the other's entity anywhere ("Kenji is on
    point for the ingest service" / "Ingest is Ana's responsibility" are one entity said two
    ways). One naming more of the same ("Customer Acme" / "Acme") is one. Two facts of one
    frame with two names are two entities, however their subjects were read."""
    if (
        a_text
        and b_text
        and (one_frame_two_names(a_text, b_text) or qualified_apart(a_text, b_text))
    ):
        return True
    if not a.known or not b.known:
        return False
    mine, theirs = a.anchors | a.words, b.anchors | b.words
    if not (mine - theirs and theirs - mine):
        return False
    return not (mentions(a, b_text) or mentions(b, a_text))


def same(a: Entity, b: Entity, a_text: str = "", b_text: str = "") -> bool:
    """One entity: both read and not different, or one read and named by the other fact."""
    if different(a, b, a_text, b_text):
        return False
    if a.known and b.known:
        return True
    return (a.known and mentions(a, b_text)) or (b.known and mentions(b, a_text))


# Words that say nothing about which attribute a fact states ("runs", "has", "is").
_GENERIC = frozenset(
    """run runs ran is are was were be has have had use uses used keep keeps kept get gets go
    goes went make makes take takes set sets request requests call calls send sends sent
    handled handles""".split()
)


# One attribute, several words: how many copies of a component run.
SYNONYMS = {"pod": "replica", "instanc": "replica", "copi": "replica", "contain": "replica"}

# Families of attribute words (issue 27, fourth pass): one attribute said in other words
# ("Kenji is on point for ingest" / "Ingest is Ana's responsibility", "listens on 8080" /
# "is reachable at 8085"), and two attributes that share no word but are plainly apart ("the
# replica count of X" is no port of X, "Ines adopted a cat" no commute of Ines). Words, stemmed
# when used; a fact's family is any family one of its attribute words belongs to.
ATTRIBUTE_FAMILIES: dict[str, frozenset[str]] = {
    name: frozenset(words.split())
    for name, words in {
        # components
        "owner": """own owner owners owned ownership maintain maintains maintained maintainer
            responsible responsibility point charge belongs team steward paged pages on-call
            handed""",
        "port": "port ports listens listen listening exposed expose reachable reached bind binds",
        "timeout": "timeout timeouts times abandoned abandon waits gives deadline",
        "language": "written implemented code coded",
        "region": "region regions centre center datacenter zone hosted located operated",
        "replicas": "replica replicas pods pod instances instance copies containers scaled",
        "retention": """retain retains retained retention expire expires expired purged purge
            lifetime ttl logs deleted""",
        "duration": "duration long length lasts",
        # issue 27, fifth pass: how often a copy is made ("Snapshots of X are taken nightly" /
        # "the backup schedule of X is every 2 hours")
        "backup": "backup backups backed snapshot snapshots restore",
        # when someone is alerted: "An alert fires above 350 ms of p99 latency", "Above 200 ms
        # of p99 latency on X, the pager goes off", "the p99 alert of X"
        "alert": "alert alerts alerting pager latency p99 p95 p50",
        "release": "ship ships shipped release releases released rollout rollouts",
        "limit": """limit limits cap caps capped refused rejects rejected size payload payloads
            bodies uploads maximum""",
        # people
        "home": "lives live based home city resides",
        "role": "title position role engineer manager designer scientist lead",
        "commute": """commutes commute travels travel office bike cycles cycling ferry bus
            tram train drives walks scooter car foot""",
        "pet": "pet pets adopted adopt dog cat beagle greyhound tortoise parrot rabbit husky",
        "editor": "editor ide programming",
        "speaks": "language languages speaks speaking speaker native fluent",
        "hobby": "hobby hobbies weekends enjoys",
        "standup": "standup stand-up meets sync",
    }.items()
}
# Nouns that name an attribute, not a thing, at the end of a subject ("segment duration").
ATTRIBUTE_NOUNS = frozenset(
    """duration interval limit cutoff lifetime timeout version domain count size retention
    schedule frequency ttl owner editor port region cadence latency quota threshold
    window""".split()
)
# Units of measure (time, size, rate, share), each spelling: the unit of a number, never an
# attribute word; a counted noun ("8 threads", "12 worker nodes") names what is counted.
MEASURES = frozenset(UNIT_NAMES)
# Values whose shape names their attribute: a cloud region ("eu-central-1").
_REGION_VALUE = re.compile(r"[a-z]{2}(?:-[a-z]+)+-\d")


def attribute(
    text: str, values: frozenset[str], units: frozenset[str], skip: frozenset[str]
) -> frozenset[str]:
    """What a fact says about its entity: the stems of its content words outside the entity
    phrase, its values, cue words (`skip`) and generic verbs; plus a mark per unit of its
    numbers ("unit:s", "unit:byte") — "times out after 3 s" and "gives up after 5 seconds"
    state one attribute."""
    tokens = tokens_of(text)
    e = entity(text)
    out = {f"unit:{SYNONYMS.get(u, u)}" for u in units if u}
    entity_words = e.anchors | e.words
    for i, token in enumerate(tokens):
        if e.span[0] <= i < e.span[1]:
            continue
        low = token.lower().removesuffix("'s").removesuffix("\u2019s")
        if (
            not low.isalpha()
            or low in _NOT_ENTITY
            or low in PREPOSITIONS
            or low in PRONOUNS
            or low in _GENERIC
            or low in values
        ):
            continue
        if low in skip:
            continue
        # a unit of measure after its number ("30 seconds", "40 GB") is the number's unit
        # mark above, no word of the attribute: "The request timeout of X is 30 seconds" and
        # "X flushes every 5 seconds" share no attribute (issue 27, eighth pass)
        if low in MEASURES and i > 0 and tokens[i - 1][:1].isdigit():
            continue
        st = stem(low)
        if st in entity_words:
            continue
        out.add(SYNONYMS.get(st, st))
    return frozenset(out)


@lru_cache(maxsize=1)
def _family_stems() -> dict[str, frozenset[str]]:
    return {
        name: frozenset({stem(w) for w in words} | words)
        for name, words in ATTRIBUTE_FAMILIES.items()
    }


def families(words: frozenset[str], values: frozenset[str] = frozenset()) -> frozenset[str]:
    """The attribute families any of `words` (stems or lower-cased words) or of `values`
    belongs to."""
    found = {"region"} if any(_REGION_VALUE.fullmatch(v) for v in values) else set()
    for name, stems in _family_stems().items():
        if any(w.removeprefix("unit:") in stems for w in words):
            found.add(name)
    return frozenset(found)
