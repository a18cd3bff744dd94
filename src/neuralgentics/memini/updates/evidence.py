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
from dataclasses import dataclass
from functools import lru_cache

from neuralgentics.memini.updates import subject
from neuralgentics.memini.updates.features import _same_stem, kind, value_changes
from neuralgentics.memini.updates.text import ADDITIVE_WORDS, CHANGE_WORDS, Fact, read

# "from 8 to 12 seconds", "from eu-west-1 to us-east-2": the writer states the change.
_FROM_TO = re.compile(r"\bfrom\s+(?:the\s+|port\s+)?\S+\s+(?:\S+\s+)?to\s+\S+", re.I)
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
    old_attribute_words: int  # how many words the older fact spends on its attribute
    entity: str  # for the reason shown to people
    attribute: str

    @property
    def may_supersede(self) -> bool:
        return self.same_entity and self.same_attribute and (self.changed or self.cue)

    @property
    def bare_change(self) -> bool:
        """One entity, a bare new fact with a changed value, and an older fact that names no
        attribute of its own beyond one word ("The admin UI is a Vue app."): read as the same
        attribute."""
        return self.same_entity and self.bare and self.changed and self.old_attribute_words <= 1

    @property
    def cue_only(self) -> bool:
        """An explicit change cue about this entity, a value of one kind replaced, and an
        attribute said in other words ("Kenji is on point for ingest" / "Ingest is Ana's
        responsibility from this quarter"): may supersede when the scorer is sure. Not a bare
        "Aiko moved to Nagoya", which names no attribute at all."""
        if not (self.same_entity and self.cue and self.changed):
            return False
        # a bare new fact ("The admin UI was rewritten in React.") may replace a fact that
        # names no attribute of its own either ("The admin UI is a Vue app."), not one that
        # does ("Aiko's first language is Georgian.")
        return not self.bare or self.old_attribute_words <= 1

    @property
    def may_contradict(self) -> bool:
        return self.same_entity and self.clash

    @property
    def may_report(self) -> bool:
        return not self.different and (self.same_attribute or self.cue_only or self.bare_change)

    def reason(self) -> str:
        if self.different:
            return "different entities"
        who = f"same entity ({self.entity})" if self.same_entity else "entity unclear"
        if self.attribute:
            return f"{who}; same attribute ({self.attribute})"
        return f"{who}; a value replaced by one of its kind"


def _units(fact: Fact) -> frozenset[str]:
    return frozenset(u for _, u in fact.numbers if u)


def weigh(new: Fact, old: Fact) -> Evidence:
    e_new, e_old = subject.entity(new.text), subject.entity(old.text)
    if subject.different(e_new, e_old, new.text, old.text):
        return Evidence(True, False, False, False, False, False, False, 0, "", "")
    a_new = subject.attribute(new.text, new.values, _units(new), _CUE_WORDS)
    a_old = subject.attribute(old.text, old.values, _units(old), _CUE_WORDS)
    # what one says in its subject and the other in its predicate ("Identity lead: Mara" /
    # "Yusuf leads identity", "Royalty aggregation runs ..." / "... are aggregated weekly")
    wide_new = a_new | (e_new.words - e_old.words - e_old.anchors)
    wide_old = a_old | (e_old.words - e_new.words - e_new.anchors)
    shared = {a for a in wide_new if any(_same_stem(a, b) for b in wide_old)}
    gone, came = value_changes(new, old)
    # numbers count through their units below ("2 MB" and "25 s" are two quantities)
    low_gone = {kind(g.lower()) for g in gone} - {"number"}
    low_came = {kind(c.lower()) for c in came} - {"number"}
    same_kind = bool(low_gone & low_came)
    units = _units(new) & _units(old)
    unit_changed = any(
        {n for n, u in new.numbers if u == unit} != {n for n, u in old.numbers if u == unit}
        for unit in units
    )
    schedule = bool(new.frequencies and old.frequencies and new.frequencies != old.frequencies)
    numbers_moved = {n for n, _ in new.numbers} != {n for n, _ in old.numbers}
    units_apart = bool(_units(new) and _units(old) and not units)
    # numbers without a unit on either side ("The replica count ... is 6" / "... 7 replicas"
    # has one): compared as they are only when neither side says what it counts
    plain = not (_units(new) or _units(old)) or bool(units)
    changed = (
        same_kind
        or unit_changed
        or schedule
        or (numbers_moved and bool(new.numbers and old.numbers) and not units_apart and plain)
        or new.negated != old.negated
    )
    # a fact that states only its entity and a value ("pricing-engine runs in us-east-2 now")
    # names its attribute by the value's kind
    bare = not {a for a in a_new if not a.startswith("unit:")}
    # (not for names: "Aiko moved to Nagoya" says nothing of "Aiko's first language")
    # or names the old value beside a change cue and brings a new one ("ingest dropped
    # paho-mqtt in favour of aiomqtt", "Bitrise is gone; the apps build on Xcode Cloud")
    cue = bool(new.change_cues) or bool(_FROM_TO.search(new.text))
    anchors = e_new.anchors | e_old.anchors
    named_old = any(
        g.lower() in new.tokens or g.lower() in new.words for g in gone if g.lower() not in anchors
    )
    same_attribute = (
        bool(shared)
        or (bare and bool((low_gone & low_came) - {"word"}))
        or (cue and named_old and bool(came))
    )
    shown = sorted({a.removeprefix("unit:") for a in shared})[:3]
    return Evidence(
        different=False,
        same_entity=subject.same(e_new, e_old, new.text, old.text),
        same_attribute=same_attribute,
        changed=changed,
        cue=cue,
        clash=bool(a_new & a_old)
        and (unit_changed or bool(low_gone & low_came - {"word"}) or schedule),
        bare=bare,
        old_attribute_words=len({a for a in a_old if not a.startswith("unit:")}),
        entity=e_new.text() or e_old.text(),
        attribute=", ".join(shown),
    )


@lru_cache(maxsize=16384)
def same_subject_and_attribute(a: str, b: str) -> bool:
    """Are two texts about one entity's one attribute (a restatement or an update of each
    other)? What recency may order (memini/ranking.py)."""
    ev = weigh(read(a), read(b))
    return ev.same_entity and (ev.same_attribute or ev.cue_only or ev.bare_change)
