"""What the evidence allows a pair of facts (issue 27): supersede only what it says.

The learned scorer (scorer.py) says how much a new fact reads like an update of an older one;
these rules say what it may do with that, from what the two facts are about:

- about different entities (subject.py): nothing — no supersession, contradiction, likely
  update or restatement, however alike the sentences are;
- auto-supersede: one entity, one attribute, and a changed value (of one kind: a port for a
  port, seconds for seconds) or a change cue ("moved from X to Y", "no longer", "now");
- a contradiction: one entity, one attribute, values that differ;
- a likely update (reported, never acted on, never ranked on): one attribute, the entities
  not different (an entity that cannot be read is not known to differ).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from neuralgentics.memini.updates import subject
from neuralgentics.memini.updates.features import _same_stem, kind, value_changes
from neuralgentics.memini.updates.text import (
    ADDITIVE_WORDS,
    ATTRIBUTION_WORDS,
    CHANGE_WORDS,
    NUMBER_WORDS,
    STOPWORDS,
    UNIT_NAMES,
    Fact,
    read,
    stem,
)

# "from 8 to 12 seconds", "from eu-west-1 to us-east-2": the writer states the change.
_FROM_TO = re.compile(r"\bfrom\s+(?:the\s+|port\s+)?\S+\s+(?:\S+\s+)?to\s+\S+", re.I)
# The old value a change names ("from 8 to 12", "instead of Vue", "dropped paho-mqtt",
# "deprecated its Modal component"): the change is of a fact that holds it, no other.
_FROM_VALUE = re.compile(
    r"\bfrom\s+(?:the\s+|port\s+)?([\w.:/-]+)\s+(?:\S+\s+)?to\s+"
    r"|\b(?:instead|in\s+place)\s+of\s+(?:the\s+|its\s+|our\s+)?([\w.:/-]+)"
    r"|\b(?:replaced|deprecated|dropped|retired|removed|quit|sold|traded|gave\s+up|went\s+off"
    r"|moved\s+on\s+from)\s+(?:the\s+|its\s+|our\s+|an?\s+|his\s+|her\s+|their\s+)?([\w.:/-]+)"
    r"|\bused\s+to\s+be\s+([\w.:/-]+)|\bit\s+was\s+([\w.:/-]+)"
    r"|\bno\s+more\s+(?!than\b)(?:port\s+)?([\w.:/-]+)",
    re.I,
)
_CUE_WORDS = (
    CHANGE_WORDS
    | ADDITIVE_WORDS
    | frozenset("raised lowered increased decreased reduced scaled took over".split())
)


@dataclass(frozen=True)
class Evidence:
    different: bool  # about different entities: leave the pair alone
    same_entity: bool
    same_attribute: bool
    changed: bool  # a value of one kind (or one unit, or the schedule) changed
    cue: bool  # the new fact says something changed
    clash: bool  # one attribute said alike, values that cannot both hold (a number of one
    # unit, a port, host or path, a schedule)
    bare: bool  # the new fact states only its entity, a value and cue words
    confident: bool  # the attribute is read with confidence: a third or more of the two
    # facts' attribute words are shared ("times out after" / "now times out after"), not one
    # object word among many ("administers the clusters" / "upgraded the clusters")
    additive: bool  # "also", "another", "a second": the new fact adds one beside the old
    kinds_apart: bool  # the values that went and came are of different kinds (a weekday
    # went, a region came): two attributes said with one verb ("is deployed each Tuesday" /
    # "is deployed to ca-central-1"), not one attribute changed
    old_attribute_words: int  # how many words the older fact spends on its attribute
    entity: str  # for the reason shown to people
    attribute: str
    # both facts' entities were read (not one read and merely named by the other fact): the
    # weaker identity may hide nothing without a stated change ("Engineers change the PDF
    # renderer in Kotlin" names the renderer, yet says nothing that replaces its port)
    both_read: bool = True
    # the two attributes belong to different families of the lexicon (subject.py): "the
    # replica count of X was bumped to 20" is no port of X, "Ines adopted a cat" no commute
    # of Ines; nothing may be done with the pair
    families_apart: bool = False
    # something ties the two attributes: a shared attribute word, one family, the old value
    # named, a changed value of a kind other than a bare name, or an older fact that names no
    # attribute of its own; a name for a name with nothing else in common ("Aiko uses
    # IntelliJ for programming" / "Aiko moved to Nagoya") is not
    tied: bool = True
    # tied by the words (a shared attribute word, one family, the old value named) or by an
    # older fact that names no attribute at all, not by a value's kind alone: a stated change
    # may then act on the scorer's "likely" bar (detect.py)
    firmly_tied: bool = False
    # the change cue names the older fact's own value as the one that went ("moved from
    # pg-eu1 to pg-eu2", "instead of Vue"): only such a cue stands in for an attribute read
    # with confidence (issue 27, sixth pass); a bare "no more", "since", "after the" does not
    stated: bool = False
    # both subjects read well and naming one entity (a shared name, or shared words with no
    # other identifier in either sentence): positive evidence that the two are about one
    # entity, enough for a change cue to stand in for an attribute read with confidence
    agree: bool = False
    # one entity positively, the newer fact naming the older one's value beside a new value of
    # its kind, and the two sentences meaning one attribute (issue 27, eighth pass): a stated
    # change of that value, though no change word says so ("X's Shure Aonic 50 broke, so IT
    # issued Sennheiser HD 600" / "X wears Shure Aonic 50")
    named_change: bool = False
    # a person's full name went and no person came, or came where none went ("X's owner,
    # Kunigunde Osei" / "the supplier responds under tier Gold"): two attributes said with one
    # kind of word; never reported as a likely update (issue 27, tenth pass)
    persons_apart: bool = False

    @property
    def may_supersede(self) -> bool:
        if self.families_apart:
            return False
        if not (self.stated or (self.cue and self.agree)) and (
            self.kinds_apart or not self.confident or not self.both_read
        ):
            return False
        return self.same_entity and self.same_attribute and (self.changed or self.cue)

    @property
    def bare_change(self) -> bool:
        """One entity, a bare new fact with a changed value, and an older fact that names no
        attribute of its own beyond one word ("The admin UI is a Vue app."): read as the same
        attribute."""
        return (
            self.same_entity
            and self.both_read
            and self.bare
            and self.changed
            and not self.kinds_apart
            and not self.families_apart
            and self.tied
            and self.old_attribute_words <= 1
        )

    @property
    def cue_only(self) -> bool:
        """An explicit change cue about this entity, a value of one kind replaced, and an
        attribute said in other words ("Kenji is on point for ingest" / "Ingest is Ana's
        responsibility from this quarter"): may supersede when the scorer is sure. Not a bare
        "Aiko moved to Nagoya", which names no attribute at all."""
        if not (self.same_entity and self.cue and self.changed) or self.kinds_apart:
            return False
        # a stated change of one attribute replaces no fact of another: "Ines adopted a cat
        # called Miso" says nothing of "Every morning Ines comes in by tram"
        if self.families_apart or not self.tied:
            return False
        # the attribute read with confidence, or the cue naming the old value: a cue word
        # alone ties nothing ("has 8 more goes at it, no more" replaces no rate cap)
        if not (self.stated or self.agree):
            return False
        # a bare new fact ("The admin UI was rewritten in React.") may replace a fact that
        # names no attribute of its own either ("The admin UI is a Vue app."), not one that
        # does ("Aiko's first language is Georgian.")
        return not self.bare or self.old_attribute_words <= 1

    @property
    def may_contradict(self) -> bool:
        return self.same_entity and self.confident and self.clash and not self.families_apart

    @property
    def may_act(self) -> bool:
        """May this pair be superseded (when the scorer is sure) at all?"""
        return self.may_supersede or self.cue_only or self.bare_change

    @property
    def may_report(self) -> bool:
        """A likely update is reported only when one entity's one attribute is read with
        confidence on both sides and its values differ (values of one kind): anything less
        says nothing, so that a project of parallel facts reports almost none (issue 27: at
        most 1 add in 20)."""
        return (
            self.same_entity
            and self.both_read
            and self.same_attribute
            and self.confident
            and self.changed
            and not self.kinds_apart
            and not self.families_apart
            and not self.additive
            and not self.persons_apart
        )

    def reason(self) -> str:
        if self.different:
            return "different entities"
        who = f"same entity ({self.entity})" if self.same_entity else "entity unclear"
        if self.attribute:
            return f"{who}; same attribute ({self.attribute})"
        return f"{who}; a value replaced by one of its kind"


@lru_cache(maxsize=1)
def _plain_heads() -> frozenset[str]:  # noqa: N802
    """Component nouns ("app", "service") that belong to no attribute family."""
    heads = {stem(w) for w in subject.HEADS}
    return frozenset(h for h in heads if not subject.families(frozenset({h})))


def _units(fact: Fact) -> frozenset[str]:
    return frozenset(u for _, u in fact.numbers if u)


def _numbers(fact: Fact, attribute: frozenset[str], other: Fact) -> frozenset[tuple[str, str]]:
    """The fact's (number, unit) pairs, units said one way ("6 pods" and "8 replicas" count
    one thing), and a number without a unit given the other fact's unit when the fact names
    that unit in its attribute ("The replica count of X was bumped to 20" / "X has 6 pods")."""
    syn = subject.SYNONYMS
    theirs = {syn.get(u, u) for _, u in other.numbers if u}
    named = {syn.get(a, a) for a in attribute if not a.startswith("unit:")} & theirs
    # a version is a number after a name, dotted on one side at least ("Varnish 6" / "Varnish
    # 7.4", "Go 1.21" / "Go 1.23"; not "Errno 24" / "Errno 28", two numbered things)
    theirs_v = _name_numbers(other.text)
    dotted = {name for n, name in theirs_v.items() if "." in n}
    versions = {
        n: name for n, name in _name_numbers(fact.text).items() if "." in n or name in dotted
    }
    counted = _counted_nouns(fact.text)
    # the other's version of a name this fact names ("loans-api PHP version: 8.3" / "runs on
    # PHP 8.1"): a bare number here is that version
    held = {t.lower() for t in subject.tokens_of(fact.text)}
    named |= {f"v:{v}" for n, v in theirs_v.items() if v in held and "." in n}
    out = set()
    # "every week" is one week ("ships every week" / "every two weeks"; eighth pass)
    tokens = subject.tokens_of(fact.text)
    for i, t in enumerate(tokens[:-1]):
        unit = UNIT_NAMES.get(tokens[i + 1].lower())
        if t.lower() in ("every", "each", "per") and unit:
            out.add(("1", unit))
    for n, u in fact.numbers:
        # a number right after a name is that name's version ("Varnish 6" / "Varnish 7.4
        # during the refresh", "Go 1.21" / "Go 1.23"), whatever word follows it (eighth pass)
        if n in versions:
            out.add((n, "v:" + versions[n]))
            continue
        u = syn.get(counted.get(n, u), counted.get(n, u))
        if not u and len(named) == 1:
            u = next(iter(named))
        out.add((n, u))
    return frozenset(out)


@lru_cache(maxsize=16384)
def _counted_nouns(text: str) -> dict[str, str]:
    """What a number counts when a modifier stands between them ("12 worker threads",
    "18 GPU nodes"): the plural noun after the modifier, stemmed (eighth pass)."""
    tokens = subject.tokens_of(text)
    out = {}
    for i, t in enumerate(tokens[:-2]):
        if not t[:1].isdigit() or tokens[i + 1].lower() in UNIT_NAMES:
            continue
        noun = tokens[i + 2]
        low = noun.lower()
        if (
            noun.isalpha()
            and noun.islower()
            and low.endswith("s")
            and len(low) > 3
            and low not in STOPWORDS | subject.AUXILIARIES | subject.PREPOSITIONS
            and tokens[i + 1].isalpha()
            and not tokens[i + 1].lower().endswith(("ed", "ing"))
        ):
            out[t.rstrip(".,;:")] = stem(low)
    return out


_SECONDS = {
    "ms": 0.001,
    "s": 1,
    "min": 60,
    "h": 3600,
    "day": 86400,
    "week": 604800,
    "month": 2592000,
    "year": 31536000,
}


def _seconds(numbers: frozenset[tuple[str, str]]) -> frozenset[float]:
    """The lengths of time among (number, unit) pairs, in seconds."""
    out = set()
    for n, u in numbers:
        if u in _SECONDS:
            try:
                out.add(round(float(n) * _SECONDS[u], 3))
            except ValueError:
                continue
    return frozenset(out)


# How alike two facts' sentences must be, their entity's words taken out, to state one
# attribute of that entity (issue 27, eighth pass; MiniLM cosine, `meaning` below).
SAME_MEANING = 0.4

# The same for a person's habit changed with a change cue, values of no type (tenth pass).
PERSON_CHANGE_MEANING = 0.5

# A function that gives the cosine of two texts' embeddings (the service's embedder).
Meaning = Callable[[str, str], float]


def weigh(new: Fact, old: Fact, meaning: Meaning | None = None) -> Evidence:
    e_new, e_old = subject.entity(new.text), subject.entity(old.text)
    # two identifiers in an entity's place (subject.named_apart), unless the new fact names
    # the old one as the value that went ("moved from db-eu1 to db-eu2", "instead of X")
    named_apart = subject.named_apart(new.text, old.text) and not any(
        n in subject.identifiers(old.text) for n in _named(new.text)
    )
    if (
        named_apart
        or _siblings_apart(new, old)
        or _modifiers_apart(new.text, old.text)
        or _people_apart(new, old)
        or subject.different(e_new, e_old, new.text, old.text)
        or (
            not _agree(e_new, e_old, new.text, old.text)
            and _names_unshared(new.text, old.text, e_new, e_old)
        )
        or _identified_elsewhere(e_new, old.text, e_old, new.text)
        or _identified_elsewhere(e_old, new.text, e_new, old.text)
        # (not when both name one thing: the entity read, or both subjects, share a name)
        or (
            not _share_a_name(e_new, e_old, new.text, old.text)
            and not _one_subject(new.text, old.text)
            and _two_slots(new.text, old.text)
        )
    ):
        return Evidence(
            True, False, False, False, False, False, False, False, False, False, 0, "", ""
        )
    # one fact's entity read well and named, as the same whole phrase, by the other fact whose
    # own subject was not ("The disruption push sender sends a heartbeat every 240 s" /
    # "Every 120 s the watchdog expects to hear from the disruption push sender"): that phrase
    # is the other's entity too (issue 27, tenth pass)
    well_new = _read_well(e_new, new.text, old.text)
    well_old = _read_well(e_old, old.text, new.text)
    both_read = well_new and well_old
    crossed = well_new != well_old and (
        _names_phrase(e_new, new.text, old.text)
        if well_new
        else _names_phrase(e_old, old.text, new.text)
    )
    a_new = subject.attribute(new.text, new.values, _units(new), _CUE_WORDS)
    a_old = subject.attribute(old.text, old.values, _units(old), _CUE_WORDS)
    # what one says in its subject and the other in its predicate ("Identity lead: Mara" /
    # "Yusuf leads identity", "Royalty aggregation runs ..." / "... are aggregated weekly")
    wide_new = a_new | (e_new.words - e_old.words - e_old.anchors)
    wide_old = a_old | (e_old.words - e_new.words - e_new.anchors)
    # a label's plain words beyond the other's entity name its attribute too ("Salinity
    # dashboard refresh: 10 seconds" / "The salinity dashboard refreshes every 30 seconds")
    if new.label:
        wide_new |= {a for a in e_new.anchors - e_old.anchors - e_old.words if a.isalpha()}
    if old.label:
        wide_old |= {a for a in e_old.anchors - e_new.anchors - e_new.words if a.isalpha()}
    # when one fact's entity is named in the other outside the subject read there ("When a
    # call fails, the ap-south-1 lobby shard ..." / "The batch size of the ap-south-1 lobby
    # shard ..."), the words of that entity are the entity on both sides, not a shared
    # attribute (issue 27, sixth pass); a label ("Identity lead: Mara") keeps its words
    entity_words = _entity_named_across(new, old, e_new, e_old)
    if crossed:  # the entity read on one side is named on the other: its words there too
        entity_words = entity_words | e_new.anchors | e_new.words | e_old.anchors | e_old.words
    wide_new = wide_new - entity_words
    wide_old = wide_old - entity_words
    shared = {a for a in wide_new if any(_same_stem(a, b) for b in wide_old)}
    gone, came = value_changes(new, old)
    # the entity's own name is no value that went or came ("Every morning Ines comes in by
    # tram" / "Ines moved to Rabat": "Ines" starts one sentence and not the other); a name
    # only one side's entity holds may be the value ("Fivetran loads ..." / "Airbyte ...")
    own = _parts(e_new) & _parts(e_old)
    gone = [g for g in gone if not _own(g, own)]
    came = [c for c in came if not _own(c, own)]
    # numbers count through their units below ("2 MB" and "25 s" are two quantities)
    low_gone = {kind(g.lower()) for g in gone} - {"number"}
    low_came = {kind(c.lower()) for c in came} - {"number"}
    same_kind = bool(low_gone & low_came)
    kinds_gone = {kind(g.lower()) for g in gone}
    kinds_came = {kind(c.lower()) for c in came}
    kinds_apart = bool(kinds_gone and kinds_came and not kinds_gone & kinds_came)
    n_new, n_old = _numbers(new, a_new | wide_new, old), _numbers(old, a_old | wide_old, new)
    u_new = frozenset(u for _, u in n_new if u)
    u_old = frozenset(u for _, u in n_old if u)
    units = u_new & u_old
    unit_changed = any(
        {n for n, u in n_new if u == unit} != {n for n, u in n_old if u == unit} for unit in units
    )
    # a length of time said in other units ("24 hours" / "7 days"): one quantity that changed,
    # when the attribute is said alike (checked with `confident` below)
    time_changed = _seconds(n_new) != _seconds(n_old) and bool(_seconds(n_new) and _seconds(n_old))
    schedule = bool(new.frequencies and old.frequencies and new.frequencies != old.frequencies)
    numbers_moved = {n for n, _ in n_new} != {n for n, _ in n_old}
    units_apart = bool(u_new and u_old and not units)
    # numbers without a unit on either side ("The replica count ... is 6" / "... 7 replicas"
    # has one): compared as they are only when neither side says what it counts
    plain = not (u_new or u_old) or bool(units)
    # quantities of two units that are not both lengths of time ("15 seconds" / "20 GB"):
    # two attributes of the entity, whatever words the facts share (issue 27, seventh pass)
    # (a number inside a product's or a version's name is no quantity: "Zone 900 broke",
    # "On calls X wears a Logitech Zone 900 headset"; issue 27, eighth pass)
    q_new = frozenset(u for n, u in n_new if u and n not in _name_numbers(new.text))
    q_old = frozenset(u for n, u in n_old if u and n not in _name_numbers(old.text))
    quantities_apart = (
        bool(q_new and q_old and not q_new & q_old)
        and units_apart
        and not (_seconds(n_new) and _seconds(n_old))
    )
    changed = (
        same_kind
        or unit_changed
        or schedule
        or (numbers_moved and bool(n_new and n_old) and not units_apart and plain)
        # (a negation is no change of a quantity of another unit: "No write sits in the
        # buffer longer than 15 seconds" / "X may write at most 20 GB"; seventh pass)
        or (new.negated != old.negated and not quantities_apart)
    )
    # a fact that states only its entity and a value ("pricing-engine runs in us-east-2 now")
    # names its attribute by the value's kind
    bare = not {a for a in a_new if not a.startswith("unit:")}
    # (not for names: "Aiko moved to Nagoya" says nothing of "Aiko's first language")
    # or names the old value beside a change cue and brings a new one ("ingest dropped
    # paho-mqtt in favour of aiomqtt", "Bitrise is gone; the apps build on Xcode Cloud")
    cue = bool(new.change_cues) or bool(_FROM_TO.search(new.text))
    if cue and not _names_old_value(new.text, old):
        cue = False  # the change it states is of another fact ("upgraded the clusters from
        # Postgres 13 to 16" does not replace "administers the PostgreSQL clusters")
    anchors = e_new.anchors | e_old.anchors
    named_old = any(
        g.lower() in new.tokens or g.lower() in new.words for g in gone if g.lower() not in anchors
    )
    # the change names the older fact's value as the one that went ("ingest dropped
    # paho-mqtt in favour of aiomqtt" / "The ingest service uses paho-mqtt"): that value
    # changed, whatever else the two say; not a bare number ("from 8 to 12" may be of
    # another 8 of the entity's)
    stated = False
    if cue and _holds_named_value(new.text, old, numbers=False):
        named_old = True
        changed = True
        stated = True
    # a change cue beside the older fact's value, named as the one that went ("has since
    # left Montréal for Hobart" / "works remotely from Montréal"): a stated change of it
    if cue and named_old:
        stated = True
    # or keeps a value of the older fact beside the cue and brings a new one ("customs-docs
    # ditched wkhtmltopdf and renders with WeasyPrint" / "... builds its PDFs with
    # wkhtmltopdf"): the change is of that value's attribute
    kept = {v.lower() for v in old.values} & ({v.lower() for v in new.values} | new.tokens)
    if cue and came and any(not _own(v, own | anchors) and kind(v) != "number" for v in kept):
        stated = True
    # a shared unit alone ("48 hours ahead" / "every three hours") is one attribute only
    # beside a stated change: two plain facts need a word of their attribute in common
    worded = any(not a.startswith("unit:") for a in shared)
    words_new = {a for a in wide_new if not a.startswith("unit:")}
    words_old = {a for a in wide_old if not a.startswith("unit:")}
    common = {a for a in words_new if any(_same_stem(a, b) for b in words_old)}
    union = len(words_new) + len(words_old) - len(common)
    confident = bool(common) and len(common) / max(union, 1) >= 1 / 3
    if quantities_apart:
        confident = False
    if confident and time_changed and not changed:
        changed = True
    same_attribute = (
        (worded or (bool(shared) and cue))
        or (bare and bool((low_gone & low_came) - {"word"}))
        or (cue and named_old and bool(came))
    )
    # attribute families (subject.ATTRIBUTE_FAMILIES), cue words included ("relocated",
    # "handed over"), over what each fact says outside its own entity
    all_new = subject.attribute(new.text, new.values, frozenset(), frozenset())
    all_old = subject.attribute(old.text, old.values, frozenset(), frozenset())
    # (not from the entity's own name: "the eu-west-1 dispatch cluster" states no region,
    # "When a call fails, the ap-south-1 lobby shard ..." no region either; sixth pass)
    own_names = e_new.anchors | e_old.anchors | entity_words
    v_new = frozenset(v for v in new.values if v.lower() not in own_names)
    v_old = frozenset(v for v in old.values if v.lower() not in own_names)
    f_new = subject.families((all_new - entity_words) | wide_new, v_new)
    f_old = subject.families((all_old - entity_words) | wide_old, v_old)
    same_family = bool(f_new & f_old)
    # (a number of one unit changed says one attribute however it is worded: "Carts expire
    # after 7 days" / "Carts now live for 30 days")
    families_apart = bool(f_new and f_old and not same_family and not unit_changed)
    # a lower bound and an upper bound of one quantity ("keeps at least 20 connections warm" /
    # "opens no more than 256 connections") are two attributes (issue 27, tenth pass)
    if _bounds_apart(new.text, old.text):
        families_apart = True
    # (not for quantities of two units: "retries are limited to 5 attempts" / "the rate cap
    # is 12000 requests per minute" are two limits; tenth pass)
    if same_family and not families_apart and not quantities_apart:
        confident = True
        same_attribute = True
    # once the two are positively one entity and a value changed, the attribute may be read
    # from what the sentences mean rather than from shared words: the two texts without the
    # entity's words, compared by the embedder ("Ops flipped X to 45 seconds for the flush
    # interval" / "X flushes every 5 seconds"; "the thread count of X is 48 threads" /
    # "Concurrency for X is set to 8 threads per process") (issue 27, eighth pass)
    meant = False
    # a value of one type changed: a number of one unit, a schedule, a
    # port, host, path or identifier; or the newer fact names the older one's value beside a
    # new value of its kind ("X's Shure Aonic 50 broke, so IT issued Sennheiser HD 600" /
    # "X wears Shure Aonic 50"); not a bare word for a word, nor a number for a number of
    # another unit
    replaced_named = _replaces_named(new, old, n_new, n_old, own | anchors)
    typed = unit_changed or schedule or bool((low_gone & low_came) - {"word"}) or replaced_named
    if (
        meaning is not None
        and not confident
        and typed
        and not (families_apart or kinds_apart or quantities_apart or new.additive_cues)
        # two sources that disagree ("the sheet lists 12", "the config has 14") contradict
        # each other: no change is read from their meaning
        and not (new.attribution_cues or old.attribution_cues)
        and (crossed or _positively_one(e_new, e_old, new.text, old.text))
        # (each naming an identifier the other lacks, no identifier of the entity shared:
        # the subjects' likeness may be a frame's, "the API keys for X" / "for Y")
        and not _names_unshared(new.text, old.text, e_new, e_old)
        and (crossed or both_read)
    ):
        # (each text without its own entity's words: one text to embed per fact, cached
        # across adds, so an add embeds at most its own)
        bare_new, bare_old = _without(new.text, _parts(e_new)), _without(old.text, _parts(e_old))
        if bare_new and bare_old and meaning(bare_new, bare_old) >= SAME_MEANING:
            meant = True
            confident = True
            same_attribute = True
            changed = True
            # the old value named beside its replacement: a stated change of it
            if replaced_named:
                stated = True
    # a person's stated change of a habit, said in other words ("Honorata did spin class in
    # the spring; the lunchtime session is reformer pilates at present" / "Midday workouts
    # for Honorata are spin class"): one person named alike by both, a change cue, and the
    # two sentences meaning one thing at a higher bar than a typed value needs, since a
    # word for a word says nothing of its kind (issue 27, tenth pass)
    if (
        meaning is not None
        and cue
        and not (meant or stated)
        and not (families_apart or kinds_apart or new.additive_cues)
        and not (new.attribution_cues or old.attribution_cues)
        and _one_person(new.text, old.text)
        and subject.same(e_new, e_old, new.text, old.text)
    ):
        bare_new, bare_old = _without(new.text, _parts(e_new)), _without(old.text, _parts(e_old))
        if bare_new and bare_old and meaning(bare_new, bare_old) >= PERSON_CHANGE_MEANING:
            meant = stated = confident = same_attribute = changed = True
    # what the older fact says of its entity beyond a component noun ("an Angular app")
    # (a component noun names no attribute, unless a family holds it: "team")
    old_words = {a for a in a_old if not a.startswith("unit:")}
    old_words = {a for a in old_words if a not in _plain_heads()}
    tied = (
        same_family
        or meant
        or worded
        or named_old
        or bool((low_gone & low_came) - {"word"})
        # an older fact that names no attribute of its own ("Product search runs on
        # Elasticsearch 7", "The portal is an Angular app"): a stated change of its one value
        or not old_words
    )
    firmly_tied = same_family or meant or worded or named_old or not old_words
    shown = sorted({a.removeprefix("unit:") for a in shared} or (f_new & f_old))[:3]
    return Evidence(
        different=False,
        same_entity=crossed or subject.same(e_new, e_old, new.text, old.text),
        same_attribute=same_attribute,
        changed=changed,
        cue=cue,
        # "also", "another", "a second": the new fact adds one, it cannot contradict
        clash=not new.additive_cues
        and bool(a_new & a_old)
        and (unit_changed or bool(low_gone & low_came - {"word"}) or schedule),
        bare=bare,
        confident=(confident or (bare and bool((low_gone & low_came) - {"word"})))
        and not families_apart,
        additive=bool(new.additive_cues),
        kinds_apart=kinds_apart,
        old_attribute_words=len({a for a in a_old if not a.startswith("unit:")}),
        both_read=both_read or crossed,
        entity=(e_old if crossed and not well_new else e_new).text() or e_old.text(),
        attribute=", ".join(shown),
        families_apart=families_apart,
        tied=tied,
        firmly_tied=firmly_tied,
        stated=stated,
        agree=_agree(e_new, e_old, new.text, old.text),
        named_change=meant and replaced_named,
        persons_apart=_persons_apart(new.text, old.text, gone, came),
    )


# Words of a sentence's frame that never name a thing (for `_two_slots`).
# (eighth pass: and phrases of time and a few more prepositions: "runs Blender 3.6" / "was
# moved onto Blender 4.2 during the upgrade" fill no second place differently)
_FRAME_SKIP = (
    STOPWORDS
    | subject.DETERMINERS
    | subject.ADVERBS
    | subject.PREPOSITIONS
    | _CUE_WORDS
    | subject.TIME_WORDS
    | frozenset("onto upon toward towards through between among".split())
)


_SUFFIXED = re.compile(r"(.*?[a-z][-_.]?)(\d+)")
# "the chairlift 4 telemetry relay": a numbered thing inside a name (tenth pass)
_NUMBERED = re.compile(r"\bthe ([a-z]+) (\d{1,4}) (?=[a-z])")


# "the 06Z model cycle", "the 12Z run": a number with a letter before a noun (tenth pass)
_CODED = re.compile(r"\bthe (\d{1,4})([a-z]{1,2}) (?=[a-z])")


def _numbered(text: str) -> frozenset[str]:
    """Numbered things named inside a noun phrase, as one identifier ("chairlift4", "z-06")."""
    low = text.lower()
    named = {
        f"{w}{n}"
        for w, n in _NUMBERED.findall(low)
        if w not in STOPWORDS and w not in UNIT_NAMES and w not in subject.PREPOSITIONS
    }
    named |= {
        f"{letters}-{n}"
        for n, letters in _CODED.findall(low)
        if letters not in UNIT_NAMES and letters not in ("st", "nd", "rd", "th")
    }
    return frozenset(named)


def _siblings(a_text: str, b_text: str) -> set[tuple[str, str]]:
    """Pairs of identifiers of one shape that differ only in a version or number suffix
    ("wms-pickpath-v4" / "wms-pickpath-v3", "cc-2214" / "cc-2208"), one named by each fact
    and neither named by the other."""
    a_ids = subject.identifiers(a_text) | _numbered(a_text)
    b_ids = subject.identifiers(b_text) | _numbered(b_text)
    pairs = set()
    for x in a_ids - b_ids:
        mx = _SUFFIXED.fullmatch(x)
        if not mx:
            continue
        for y in b_ids - a_ids:
            my = _SUFFIXED.fullmatch(y)
            if my and my.group(1) == mx.group(1) and my.group(2) != mx.group(2):
                pairs.add((x, y))
    return pairs


def _siblings_apart(new: Fact, old: Fact) -> bool:
    """Two facts naming sibling identifiers (`_siblings`) are about two entities (issue 27,
    ninth pass: "OS updates reach wms-pickpath-v4 only during ..." / "... wms-pickpath-v3
    ...", "... reported that cycle count CC-2214 ..." / "... CC-2208 ..."), unless the
    identifier is the value that changed: nothing else differs between the two facts but
    change words ("The payments DB now lives on db-12" / "... lives on db-07"), or the new fact
    states a change and no other value changed ("The payments DB moved to db-12"). A fact that
    names both ("moved from v3 to v4") holds the other's identifier: no sibling pair."""
    pairs = _siblings(new.text, old.text)
    if not pairs:
        return False
    mine = {x for x, _ in pairs} | {y for _, y in pairs}
    gone, came = value_changes(new, old)
    others = [v for v in gone + came if v.lower() not in mine]
    if others:
        return True
    ignore = STOPWORDS | _CUE_WORDS | mine

    def words(text: str) -> set[str]:
        return {
            stem(t) for t in re.findall(r"[\w.:/-]+", text.lower()) if t.strip(".") not in ignore
        } - {""}

    rest_new = {w for w in words(new.text) if w.strip(".") not in mine}
    rest_old = {w for w in words(old.text) if w.strip(".") not in mine}
    if rest_new == rest_old:
        return False
    stated = bool(new.change_cues) or bool(_FROM_TO.search(new.text))
    return not stated


def _slot_tokens(text: str) -> list[str]:
    # a number said in words is a number ("Two build agents" / "Four build agents")
    return [
        "#"
        if t.lower() in NUMBER_WORDS
        else stem(t.lower().removesuffix("'s").removesuffix("\u2019s"))
        for t in subject.tokens_of(text)
        if any(c.isalnum() for c in t) and t.lower() not in _FRAME_SKIP
    ]


def _share_a_name(e_a: subject.Entity, e_b: subject.Entity, a_text: str, b_text: str) -> bool:
    if e_a.anchors & e_b.anchors:
        return True
    s_a, s_b = subject._subject(_main_clause(a_text)), subject._subject(_main_clause(b_text))
    return bool(s_a.anchors & s_b.anchors)


def _one_subject(a_text: str, b_text: str) -> bool:
    """Both sentences open with one subject, word for word, that holds no number, and name one
    thing with two versions ("kestrel supports Python 3.8 and newer" / "kestrel requires Python
    3.11 or later"): the version changed, whatever else differs (issue 27, tenth pass; not
    "Port 7312 is registered to X" / "Port 7311 ...", where the subject is a value)."""

    def opening(text: str) -> list[str]:
        tokens = list(subject.tokens_of(_main_clause(text)))
        begin, end, verb = subject._phrase(tokens, 0)
        return [t.lower() for t in tokens[begin:end]] if verb is not None else []

    a = opening(a_text)
    if not a or a != opening(b_text) or any(c.isdigit() for t in a for c in t):
        return False
    # and what changed is the version of one named thing ("Python 3.8" / "Python 3.11"), not
    # two things said in two verb frames ("renders templates with MJML" / "sends email
    # through Amazon SES")
    names_a, names_b = _name_numbers(a_text), _name_numbers(b_text)
    if not any(n not in names_b and name in names_b.values() for n, name in names_a.items()):
        return False
    # nor when they hold two sides of one contrast ("on web" / "on smart TVs")
    sides_a, sides_b = read(a_text).contrast_sides, read(b_text).contrast_sides
    groups = {g for g, _ in sides_a} & {g for g, _ in sides_b}
    return not any(
        {w for g2, w in sides_a if g2 == g} != {w for g2, w in sides_b if g2 == g} for g in groups
    )


def _two_slots(a_text: str, b_text: str) -> bool:
    """One sentence frame with two places filled differently ("Port 7312 is registered to
    matchmaker-staging ..." / "Port 7311 is registered to matchmaker-prod ...", "There is a
    cap of 300 requests per minute on the shift-billing worker." / "... 2400 ... on the
    courier app's push gateway."): one place is the entity, the other its value, and which is
    which cannot be told, so the two are not known to be one entity (issue 27, sixth pass).
    An update changes one place of a frame; the words around the changed places must hold
    most of both sentences, and one changed place must hold a word (not only numbers)."""
    a, b = _slot_tokens(a_text), _slot_tokens(b_text)
    if not a or not b:
        return False
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    same = sum(size for _, _, size in matcher.get_matching_blocks())
    if same * 2 < min(len(a), len(b)):
        return False  # two frames: the places cannot be lined up
    replaced = [
        (a[i1:i2], b[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag == "replace"
    ]
    if len(replaced) < 2:
        return False
    return any(
        any(t.isalpha() or kind(t) in ("identifier", "host") for t in side)
        for pair in replaced
        for side in pair
    )


def _identified_elsewhere(
    e: subject.Entity, other_text: str, e_other: subject.Entity, text: str
) -> bool:
    """An entity named by an identifier ("matchmaker-staging is capped at ...") is one only
    with a fact that holds that identifier: "There is a cap of 2400 requests per minute on
    the courier app's push gateway." never names it (issue 27, sixth pass)."""
    ids = e.anchors & _names_in(text)
    if not ids:
        return False
    # the other fact's own entity, named here, is positive evidence of its own
    mine = _names_in(text) | {t.lower() for t in subject.tokens_of(text)}
    if e_other.anchors and e_other.anchors <= mine:
        return False
    held = _names_in(other_text) | {t.lower() for t in subject.tokens_of(other_text)}
    return not ids & held


def _agree(e_a: subject.Entity, e_b: subject.Entity, a_text: str, b_text: str) -> bool:
    """Positive evidence of one entity: both sentences' subjects (the words before the verb,
    not a name found later in the sentence) name it alike, by a shared name or word."""
    s_a, s_b = subject._subject(_main_clause(a_text)), subject._subject(_main_clause(b_text))
    if not (s_a.known and s_b.known) or subject.different(s_a, s_b):
        return False
    return bool(s_a.anchors & s_b.anchors or s_a.words & s_b.words)


# Words that open a leading clause or phrase ("When a call fails, ...", "Above 6000 calls a
# minute, ...", "After the move, ..."): closed-class grammar words, not a vocabulary of
# attributes.
_LEADING = (
    subject.SUBORDINATORS
    | subject.PREPOSITIONS
    | frozenset("above below beyond past after before during until unlike like".split())
)


def _main_clause(text: str) -> str:
    """The sentence without a leading clause or phrase that ends in a comma: its subject is
    the main clause's ("When a call fails, the EMBERFALL_STORE_DB pool has ..." is about the
    pool, not "a call")."""
    tokens = subject.tokens_of(text)
    if not tokens or tokens[0].lower() not in _LEADING or "," not in tokens[:9]:
        return text
    lead = tokens[: tokens.index(",")]
    if any(t.lower() in subject.AUXILIARIES for t in lead):
        return text
    return text.split(",", 1)[1].strip() or text


def _read_well(e: subject.Entity, text: str, other_text: str = "") -> bool:
    """The entity was read with confidence: it holds a name of its own, or the sentence names
    no identifier elsewhere that could be the entity instead ("Above 6000 calls a minute,
    clients get HTTP 429 from the ap-south-1 lobby shard." reads "above" as its subject, and
    the shard late in the sentence is the entity: not read well)."""
    if not e.known:
        return False
    if e.anchors:
        return True
    # "A liveness ping leaves X once per 90 s", "A fresh encryption key is issued to X": a
    # subject said with "a"/"an" and no name is no thing the fact is about (a thing of its
    # own is named, or said with "the"); the entity is elsewhere (issue 27, tenth pass)
    tokens = subject.tokens_of(text)
    if (
        e.span[1] > e.span[0]
        and tokens[e.span[0]].lower() in ("a", "an")
        and _names_a_thing(tokens, e.span)
    ):
        return False
    # a name only this sentence holds, of an unmistakable shape (a digit, "_", ".", "/" or two
    # hyphens: "the ap-south-1 lobby shard", not "pre-rendered"), may be the entity instead
    others = _names_in(other_text) if other_text else frozenset()
    return not any(_strict(n) and not _region_value(n, text) for n in _names_in(text) - others)


def _region_value(name: str, text: str) -> bool:
    """A cloud region that names no component ("sits in the us-west-2 data centre"), unlike
    one before a component noun ("the eu-west-1 dispatch cluster"): a value (tenth pass)."""
    if not subject._REGION_VALUE.fullmatch(name):
        return False
    tokens = [subject._plain(t) for t in subject.tokens_of(text)]
    heads = subject.HEADS | subject.COMPONENT_HEADS
    for i, t in enumerate(tokens):
        if t == name and any(x in heads for x in tokens[i + 1 : i + 3]):
            return False
    return True


_LOWER_BOUND = re.compile(
    r"\bat least\b|\bminimum\b|\ba min(?:imum)? of\b|\bno (?:less|fewer) than\b"
    r"|\bnever (?:\w+ )?(?:below|under|less than|fewer than)\b|\bfloor\b|\bwarm\b"
)
_UPPER_BOUND = re.compile(
    r"\bat most\b|\bno more than\b|\bmaximum\b|\bmax\b|\bup to\b|\bcap(?:ped)?\b"
    r"|\bnever (?:\w+ )?(?:above|over|more than|exceeds?)\b|\btops? out\b|\bceiling\b"
)


def _bounds_apart(a_text: str, b_text: str) -> bool:
    """One fact states only a lower bound, the other only an upper bound."""

    def bounds(text: str) -> frozenset[str]:
        low = text.lower()
        found = set()
        if _LOWER_BOUND.search(low):
            found.add("lower")
        if _UPPER_BOUND.search(low):
            found.add("upper")
        return frozenset(found)

    a, b = bounds(a_text), bounds(b_text)
    return len(a) == len(b) == 1 and a != b


def _people_apart(new: Fact, old: Fact) -> bool:
    """Facts about two people (tenth pass): each names two people or more, sharing some, each
    naming one the other does not, with no change stated ("A gives B a lift" / "A gives C a
    lift": B's ride and C's ride); or the newer leads with a person the older does not name
    and holds nothing of the older's but its person ("Gwendolen moved away, so Ingvild rides
    in with Philippina" says nothing of "Ingvild sings tenor in the staff choir")."""
    p_new, p_old = _people(new.text), _people(old.text)
    if len(p_new) >= 2 and len(p_old) >= 2 and p_new & p_old:
        if p_new - p_old and p_old - p_new and not new.change_cues:
            return True
    runs = subject._name_runs(list(subject.tokens_of(new.text)))
    lead = runs[0][0] if runs and runs[0][1][0] == 0 else None
    if lead is None or lead in p_old or len(p_old) != 1 or not p_old <= p_new:
        return False
    person = next(iter(p_old))
    held = {v.lower() for v in old.values} - set(person.split())
    return not any(v in new.tokens or v in new.words for v in held)


def _one_person(a_text: str, b_text: str) -> bool:
    """Both facts name one person by full name, and no other person."""
    a, b = _people(a_text), _people(b_text)
    return len(a) == 1 and a == b


@lru_cache(maxsize=16384)
def _people(text: str) -> frozenset[str]:
    """The full names (runs of capitalised words) a text holds."""
    return frozenset(name for name, _ in subject._name_runs(list(subject.tokens_of(text))))


def _persons_apart(new_text: str, old_text: str, gone: list[str], came: list[str]) -> bool:
    """A changed value is a person's full name on one side only."""
    went = {g.lower() for g in gone} & {p for n in _people(old_text) for p in n.split()}
    arrived = {c.lower() for c in came} & {p for n in _people(new_text) for p in n.split()}
    return bool(gone and came) and bool(went) != bool(arrived)


def _modifiers_apart(a_text: str, b_text: str) -> bool:
    """One name and one component noun, with another word between them in each fact: "the
    GTFS-RT vehicle poller" / "the GTFS-RT alerts poller" are two pollers (issue 27, tenth
    pass)."""
    anchors = subject.identifiers(a_text) & subject.identifiers(b_text)
    if not anchors:
        return False
    heads = subject.HEADS | subject.COMPONENT_HEADS
    a = [subject._plain(t) for t in subject.tokens_of(a_text)]
    b = [subject._plain(t) for t in subject.tokens_of(b_text)]

    def between(tokens: list[str], name: str) -> dict[str, tuple[str, ...]]:
        if name not in tokens:
            return {}
        i = tokens.index(name)
        out = {}
        for k in range(i + 2, min(len(tokens), i + 5)):
            if tokens[k] in heads:
                out[tokens[k]] = tuple(tokens[i + 1 : k])
                break
        return out

    for name in anchors:
        mids_a, mids_b = between(a, name), between(b, name)
        for head in mids_a.keys() & mids_b.keys():
            if not set(mids_a[head]) & set(mids_b[head]):
                return True
    return False


def _names_a_thing(tokens: tuple[str, ...], span: tuple[int, int]) -> bool:
    """The sentence names a thing outside `span`: an identifier, a name, or a phrase with
    "the" that ends in a component noun ("the chemistry analyzer bridge (bay A)")."""
    runs = [r for _, r in subject._name_runs(list(tokens))]
    if any(not (span[0] <= b < span[1]) for b, _ in runs):
        return True
    for i, t in enumerate(tokens):
        if span[0] <= i < span[1]:
            continue
        if subject._identifier(t):
            return True
        if subject._plain(t) in subject.COMPONENT_HEADS:
            j = i - 1
            while j >= 0 and tokens[j][:1].isalnum() and tokens[j].lower() not in _DEFINITE:
                j -= 1
            if j >= 0 and tokens[j].lower() == "the" and not span[0] <= j < span[1]:
                return True
    return False


_DEFINITE = subject.DETERMINERS | subject.PREPOSITIONS


def _strict(name: str) -> bool:
    return any(c.isdigit() or c in "_./" for c in name) or name.count("-") >= 2


def _names_unshared(a_text: str, b_text: str, e_a: subject.Entity, e_b: subject.Entity) -> bool:
    """Each fact names an identifier (anywhere: "... from matchmaker-prod" / "... from
    dag_ingest_claims_hourly", "the eu-west-1 dispatch cluster" / "the eu-west-2 ...") the
    other never holds, and their entities share none: nothing says they are one entity, so
    they are kept apart (issue 27, sixth pass), unless the newer names the older's one as
    the value that went ("moved from pg-eu1 to pg-eu2")."""
    ids_a, ids_b = _names_in(a_text), _names_in(b_text)
    if not (ids_a - ids_b and ids_b - ids_a):
        return False
    if e_a.anchors & e_b.anchors & (ids_a | ids_b):
        return False
    return not any(n in ids_b for n in _named(a_text))


def _names_phrase(e: subject.Entity, text: str, other_text: str) -> bool:
    """Does `other_text` name the phrase of entity `e` (read in `text`) whole: the same
    words in the same order, not continuing a longer name before them ("the refunds Kafka
    consumer" does not name "the Kafka consumer"). The phrase must name a thing of its own:
    an anchor, or two content words or more ("the disruption push sender", not "the
    service")."""
    tokens = [subject._plain(t) for t in subject.tokens_of(text)]
    phrase = [t for t in tokens[e.span[0] : e.span[1]] if t not in subject.DETERMINERS]
    content = [t for t in phrase if t not in STOPWORDS]
    if not phrase or not (e.anchors or len(content) >= 2):
        return False
    other = [subject._plain(t) for t in subject.tokens_of(other_text)]
    n = len(phrase)
    for i in range(len(other) - n + 1):
        if other[i : i + n] != phrase:
            continue
        before = other[i - 1] if i else ""
        if before and before not in _BOUNDARY and before not in subject.DETERMINERS:
            continue
        # nor going on into a longer name ("the GTFS-RT vehicle poller" does not name the
        # "GTFS-RT" of "The GTFS-RT alerts poller sends ..."): what follows is a word of the
        # sentence's frame, or what follows the phrase where it was read
        after = other[i + n] if i + n < len(other) else ""
        theirs = tokens[e.span[1]] if e.span[1] < len(tokens) else ""
        if after and after != theirs and not _frame_word(after):
            continue
        return True
    return False


def _frame_word(token: str) -> bool:
    """A word that ends a noun phrase: punctuation, a function word, an auxiliary, an adverb,
    a schedule word or a number."""
    return (
        not token[:1].isalpha()
        or token in _BOUNDARY
        or token in subject.AUXILIARIES
        or token in subject.ADVERBS
        or token in subject.SCHEDULE
        or token in STOPWORDS
    )


# What may stand before a noun phrase that starts there (for `_names_phrase`).
_BOUNDARY = subject.PREPOSITIONS | subject.SUBORDINATORS | frozenset({",", ";", ":", "(", "\u2014"})


def _positively_one(e_a: subject.Entity, e_b: subject.Entity, a_text: str, b_text: str) -> bool:
    """Positive evidence that two facts are about one entity: their subjects agree
    (`_agree`), or one fact's entity is named by its anchors (a name, an identifier), all of
    them, in the other fact ("Concurrency for roster-publisher-blue ..." / "... the thread
    count of roster-publisher-blue ...")."""
    if _agree(e_a, e_b, a_text, b_text):
        return True
    for e, other in ((e_a, b_text), (e_b, a_text)):
        named = subject.Entity(e.anchors, frozenset(), e.span)
        if e.anchors and not e.anchors <= subject.QUALIFIERS and subject.mentions(named, other):
            return True
    return False


def _replaces_named(
    new: Fact,
    old: Fact,
    n_new: frozenset[tuple[str, str]],
    n_old: frozenset[tuple[str, str]],
    own: set[str] | frozenset[str],
) -> bool:
    """The newer fact repeats a value of the older one (not the entity's own name) and brings
    another of the same kind that the older lacks: "the thread count of X is 48 threads,
    superseding 8 threads" / "X is set to 8 threads"; "X's Shure Aonic 50 broke, so IT issued
    Sennheiser HD 600" / "X wears Shure Aonic 50"."""
    # numbers of one unit: one kept, another of that unit new
    for n, u in n_old:
        if u and (n, u) in n_new and any(u2 == u and (n2, u2) not in n_old for n2, u2 in n_new):
            return True
    held = {t.lower() for t in new.tokens} | {v.lower() for v in new.values}
    names = {v.lower() for v in old.values if not _own(v, own) and kind(v.lower()) != "number"}
    kept = {v for v in names if v in held}
    # the older value named whole ("Shure Aonic 50"), not one name of several it held
    if not kept or kept != names:
        return False
    had = {v.lower() for v in old.values} | {t.lower() for t in old.tokens}
    came = {
        v.lower()
        for v in new.values
        if v.lower() not in had and not _own(v, own) and kind(v.lower()) != "number"
    }
    return any(kind(c) == kind(k) for c in came for k in kept)


@lru_cache(maxsize=16384)
def cites(text: str) -> bool:
    """Does the fact cite a source for what it says: "according to", or a verb of saying or
    finding used as one ("The wiki says ...", "the console lists 9 nodes", "Felix counted 18
    nodes"; not "Theatre lists are frozen ...", where "lists" is a noun)?"""
    if "according to" in text.lower():
        return True
    tokens = subject.tokens_of(text)
    for i, t in enumerate(tokens[1:], 1):
        if t.lower() in ATTRIBUTION_WORDS and tokens[i - 1].lower() not in subject.DETERMINERS:
            nxt = tokens[i + 1].lower() if i + 1 < len(tokens) else ""
            if nxt and nxt not in subject.AUXILIARIES and nxt not in subject.PREPOSITIONS:
                return True
    return False


@lru_cache(maxsize=16384)
def _name_numbers(text: str) -> dict[str, str]:
    """Numbers that are part of a name, each with that name: right after a capitalised word
    inside the sentence ("Logitech Zone 900", "Sennheiser HD 600", "Java 21")."""
    tokens = subject.tokens_of(text)
    return {
        t.rstrip(".,;:"): tokens[i - 1].lower()
        for i, t in enumerate(tokens)
        if i > 1
        and t[:1].isdigit()
        and tokens[i - 1][:1].isupper()
        and tokens[i - 1].isalpha()
        and tokens[i - 1].lower() not in STOPWORDS
    }


def _without(text: str, parts: set[str] | frozenset[str]) -> str:
    """The text without the entity's words (anchors, words, a full name's parts, an
    identifier's pieces): what it says of the entity."""
    pieces = {x for p in parts for x in re.split(r"[\s_./-]+", p) if x}
    out = []
    for t in subject.tokens_of(text):
        low = t.lower().removesuffix("'s").removesuffix("\u2019s")
        if low in parts or stem(low) in parts or low in pieces:
            continue
        out.append(t)
    return " ".join(out)


def _parts(e: subject.Entity) -> set[str]:
    """An entity's anchors and words, a full name also by its parts ("kwabena iwasaki")."""
    return set(e.anchors | e.words) | {p for a in e.anchors for p in a.split()}


def _own(value: str, own: frozenset[str] | set[str]) -> bool:
    """Is a value the entity's own name ("Iwasaki's" of Kwabena Iwasaki)?"""
    low = value.lower().removesuffix("'s").removesuffix("\u2019s")
    return low in own or stem(low) in own


@lru_cache(maxsize=16384)
def _names_in(text: str) -> frozenset[str]:
    """Identifier-shaped tokens of a text, a cloud region included (it names a cluster as
    often as it is a value); not numbers, versions, dates or URLs."""
    out = set()
    for t in subject.tokens_of(text):
        core = t.lower().removesuffix("'s").removesuffix("\u2019s").strip(".,;:")
        # "Due-date", "Heads-up": a capitalised hyphenated word is English, not a name
        if t[:1].isupper() and t[1:].islower() and not any(c in core for c in "_./"):
            continue
        if subject._identifier(core) or subject._REGION_VALUE.fullmatch(core):
            out.add(core)
    return frozenset(out)


def _name_heads(a_text: str, b_text: str, anchors: frozenset[str]) -> frozenset[str]:
    """The noun right after a shared name in both sentences ("the EMBERFALL_STORE_DB pool"):
    part of the name, no attribute word the two share."""
    out = set()
    for text_a, text_b in ((a_text, b_text),):
        ta = [t.lower() for t in subject.tokens_of(text_a)]
        tb = [t.lower() for t in subject.tokens_of(text_b)]
        for anchor in anchors:
            if anchor in ta and anchor in tb:
                i, j = ta.index(anchor) + 1, tb.index(anchor) + 1
                if i < len(ta) and j < len(tb) and ta[i] == tb[j] and ta[i].isalpha():
                    out |= {ta[i], stem(ta[i])}
    return frozenset(out)


def _entity_named_across(
    new: Fact, old: Fact, e_new: subject.Entity, e_old: subject.Entity
) -> frozenset[str]:
    """The words of an entity whose anchor the other fact names without having read it as
    its own entity."""
    if new.label or old.label:
        return frozenset()
    out: set[str] = set(_name_heads(new.text, old.text, e_new.anchors & e_old.anchors))
    for mine, theirs, text in ((e_new, e_old, old.text), (e_old, e_new, new.text)):
        held = _names_in(text) | {t.lower() for t in subject.tokens_of(text)}
        if any(a in held and a not in theirs.anchors for a in mine.anchors):
            out |= mine.words | mine.anchors
    return frozenset(out)


def _named(text: str) -> list[str]:
    """The old values a change names ("from 8081 to 8085": 8081; "dropped paho-mqtt")."""
    named = [next(g for g in m.groups() if g) for m in _FROM_VALUE.finditer(text)]
    named = [n.strip(".,;:").lower() for n in named]
    # a function word is no value ("is replaced on a 120-day cycle" names no old value;
    # issue 27, seventh pass)
    function = STOPWORDS | subject.DETERMINERS | subject.PREPOSITIONS
    return [n for n in named if n and n not in function]


def _holds_named_value(text: str, old: Fact, numbers: bool = True) -> bool:
    """Does the older fact hold an old value the new one names?"""
    held = old.words | old.tokens | {v.lower() for v in old.values}
    named = [n for n in _named(text) if numbers or not re.fullmatch(r"[\d.,:]+", n)]
    return any(n in held for n in named)


def _names_old_value(text: str, old: Fact) -> bool:
    """Does the older fact hold the old value the new one names ("from 8081 to 8085": 8081)?
    True when the new one names none (a bare "now", "no longer")."""
    return not _named(text) or _holds_named_value(text, old)


@lru_cache(maxsize=16384)
def same_subject_and_attribute(a: str, b: str) -> bool:
    """Are two texts about one entity's one attribute (a restatement or an update of each
    other)? What recency may order (memini/ranking.py)."""
    ev = weigh(read(a), read(b))
    same_attribute = ev.same_attribute and ev.confident and not ev.kinds_apart
    return ev.same_entity and (same_attribute or ev.cue_only or ev.bare_change)
