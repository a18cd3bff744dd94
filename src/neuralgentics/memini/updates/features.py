"""Features of a (new fact, older candidate) pair: is it one subject with a changed value?

Each feature is a number the scorer weighs (see FEATURES for the order). They are built to
tell three cases apart, which the embedding cosine alone cannot (MiniLM puts an update and its
original anywhere between ~0.3 and ~0.9, and two true facts of one area up to ~0.8):
- an update: the subject is repeated, the value differs, often with a change cue ("moved to",
  "no longer", "upgraded") or naming the old value as gone;
- a related fact: another subject (the other side of a pair such as frontend/backend or
  staging/production), or the old value kept and something added ("also", "too");
- a contradiction: the same subject, another value, each from a source ("the wiki says").
"""

from __future__ import annotations

import re

import numpy as np

from neuralgentics.memini.updates.text import STOPWORDS, Fact, stem

FEATURES = (
    "bias",
    "cosine",  # MiniLM cosine of the two facts
    "subject_jaccard",  # shared subject stems / all subject stems (stems matched loosely)
    "subject_cover",  # share of the older fact's subject stems the new one repeats
    "value_replaced",  # the older fact has a value the new one lacks, and the new one a new value
    "kind_replaced",  # ... and the two are of one kind (path for path, host for host, name...)
    "old_values_gone",  # none of the older fact's values is left in the new one
    "old_value_kept",  # every value of the older fact is still in the new one
    "same_unit_changed",  # a number of one unit (minutes, GB, nodes) changed
    "units_differ",  # both state numbers, of different units: different quantities
    "schedule_changed",  # how often / which day changed (weekly -> nightly)
    "old_named_going",  # an old value named in the new fact beside a removal word
    "change_cue",  # the new fact says something changed ("now", "moved to"...)
    "cue_and_close",  # change cue x cosine: the cue is about this candidate when both hold
    "cue_and_subject",  # change cue x subject_cover
    "label_form",  # the new fact is "Label: value" and shares the label's words
    "additive_cue",  # "also", "too", "another", "each"... in the new fact
    "contrast",  # the two name different sides of a pair (frontend/backend, staging/prod...)
    "one_sided_qualifier",  # only the new fact names a side (sandbox, offline, minimum...)
    "sibling_ids",  # different identifiers of one family (catalog-svc / cart-svc)
    "polarity_flip",  # one is negated (off, disabled, no longer) and the other is not
    "attribution",  # both are a source's account ("the wiki says", "Kenji's notes claim")
)


def _same_stem(a: str, b: str) -> bool:
    if a == b:
        return True
    if a == "re" + b or b == "re" + a:  # "recalibrated" / "calibration"
        return len(min(a, b, key=len)) >= 4
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    # "edit" / "editor", "cach" / "caching": one stem extends the other by a suffix
    if not long_.startswith(short):
        return False
    return len(long_) - len(short) <= (1 if len(short) == 3 else 3) and len(short) >= 3


def _shared(new: frozenset[str], old: frozenset[str]) -> tuple[set[str], set[str]]:
    """(old stems found in new, new stems found in old), stems matched loosely."""
    exact = new & old
    old_hit = set(exact)
    new_hit = set(exact)
    for o in old - exact:
        for n in new - exact:
            if _same_stem(o, n):
                old_hit.add(o)
                new_hit.add(n)
    return old_hit, new_hit


def _parts(identifier: str) -> list[str]:
    return [p for p in re.split(r"[-_./:]+", identifier) if p]


def _siblings(new: Fact, old: Fact) -> bool:
    """Two identifiers of one family that differ at the front: catalog-svc and cart-svc,
    api.x.app and sandbox-api.x.app, stg_orders and int_orders name two things. Those that
    differ at the end (wl-renditions / wl-renditions-v2, api.x.com/v1 / api.x.com/2024-06)
    are one thing's versions, and count as a changed value."""
    for a in old.names - new.names:
        for b in new.names - old.names:
            pa, pb = _parts(a), _parts(b)
            if len(pa) >= 2 and len(pb) >= 2 and pa[-1] == pb[-1] and pa[0] != pb[0]:
                return True
    return False


def kind(value: str) -> str:
    """What sort of value a token is, to tell a path replaced by a path from a name that
    went and a port that came."""
    if "/" in value:
        return "path"
    if re.fullmatch(r"p\d{2,3}", value):
        return "metric"  # p50, p99: the name of a measure, not a value (issue 27, fifth pass)
    if re.fullmatch(r"\d+(?:[.,]\d+)*", value):
        return "number"
    if re.fullmatch(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+", value) and not value[0].isdigit():
        return "host"
    if value.isalpha():
        return "word"
    return "identifier"


def _with_names(fact: Fact, names: frozenset[str]) -> frozenset[str]:
    """The fact's values, plus words the other fact writes as names: "Fivetran loads ..."
    starts a sentence, so on its own "Fivetran" reads as an ordinary word."""
    return fact.values | (fact.words & names)


def shared_words(new: Fact, old: Fact) -> list[str]:
    """The older fact's words (as written) whose stems the new fact repeats."""
    old_hit, _ = _shared(new.subject, old.subject)
    shown = []
    for token in old.sequence:
        low = token.lower().removesuffix("'s").removesuffix("\u2019s")
        if low in STOPWORDS:
            continue
        parts = [p for p in re.split(r"[-_./:']+", low) if p]
        if stem(low) in old_hit or any(stem(p) in old_hit for p in parts):
            shown.append(token.removesuffix("'s").removesuffix("\u2019s"))
    return list(dict.fromkeys(shown))


def value_changes(new: Fact, old: Fact) -> tuple[list[str], list[str]]:
    """(values only the older fact states, values only the new one states), as written."""
    old_values = _with_names(old, new.names)
    new_values = _with_names(new, old.names)
    gone = {v for v in old_values if v not in new_values and v not in new.words}
    came = {v for v in new_values if v not in old_values and v not in old.words}
    if came and not gone:
        # the old value is named again ("8080 was freed", "the Jenkins box was retired"):
        # show the old values of that kind, those beside a cue word first
        kinds = {kind(v) for v in came}
        gone = {v for v in old_values if kind(v) in kinds and v not in came}
        seq = [t.lower().removesuffix("'s") for t in new.sequence]
        cued = [i for i, t in enumerate(seq) if t in new.removal_words or t in new.change_cues]
        # beside a cue, and not the sentence's opening subject ("CI moved to ...")
        at = {v: [i for i, t in enumerate(seq) if t == v and cued and i > cued[0]] for v in gone}
        near = {v for v in gone if any(abs(i - j) <= 3 for i in at[v] for j in cued)}
        gone = near or gone

    def as_written(fact: Fact, wanted: set[str]) -> list[str]:
        out = [t for t in fact.sequence if t.lower().removesuffix("'s") in wanted]
        return out or sorted(wanted)

    return as_written(old, gone), as_written(new, came)


def pair_features(new: Fact, old: Fact, cosine: float) -> np.ndarray:
    old_hit, new_hit = _shared(new.subject, old.subject)
    union = len(new.subject) + len(old.subject) - len(old_hit)
    jaccard = len(old_hit) / union if union > 0 else 0.0
    cover = len(old_hit) / len(old.subject) if old.subject else 0.0
    old_values = _with_names(old, new.names)
    new_values = _with_names(new, old.names)
    old_only = [v for v in old_values if v not in new_values and v not in new.words]
    new_only = [v for v in new_values if v not in old_values and v not in old.words]
    replaced = 1.0 if old_only and new_only else 0.0
    gone = 1.0 if old_values and len(old_only) == len(old_values) and new_only else 0.0
    kept = 1.0 if old_values and not old_only else 0.0
    old_units = {u for _, u in old.numbers if u}
    new_units = {u for _, u in new.numbers if u}
    same_unit = any(
        {n for n, uu in new.numbers if uu == u} != {n for n, uu in old.numbers if uu == u}
        for u in old_units & new_units
    )
    # "60 minutes" and "30 days", "8 nodes" and "96 GB": two quantities, not one that changed
    units_differ = bool(old_units and new_units and not old_units & new_units)
    schedule = bool(
        (old.frequencies or any(u in ("h", "day", "week", "month") for u in old_units))
        and (new.frequencies or any(u in ("h", "day", "week", "month") for u in new_units))
        and (old.frequencies != new.frequencies or same_unit)
    )
    # The writer names the old value to say it went: "Bitrise is gone", "Looker's contract
    # ended", "dropped paho-mqtt in favour of aiomqtt" — an old value, a removal word, and a
    # value the old fact did not have.
    named_going = bool(
        new.removal_words
        and new_only
        and any(v in new.tokens or v in new_values for v in old_values)
    )
    change = float(min(len(new.change_cues), 2))
    label = 1.0 if new.label and old_hit else 0.0
    new_sides: dict[int, set[str]] = {}
    old_sides: dict[int, set[str]] = {}
    for group, side in new.contrast_sides:
        new_sides.setdefault(group, set()).add(side)
    for group, side in old.contrast_sides:
        old_sides.setdefault(group, set()).add(side)
    contrast = any(g in old_sides and not sides & old_sides[g] for g, sides in new_sides.items())
    one_sided = any(g not in old_sides for g in new_sides) and not contrast
    polarity = 1.0 if new.negated != old.negated and old_hit else 0.0
    attribution = 1.0 if new.attribution_cues and old.attribution_cues else 0.0
    return np.array(
        [
            1.0,
            cosine,
            jaccard,
            cover,
            replaced,
            float(bool({kind(v) for v in old_only} & {kind(v) for v in new_only})),
            gone,
            kept,
            float(same_unit),
            float(units_differ),
            float(schedule),
            float(named_going),
            change,
            min(change, 1.0) * cosine,
            min(change, 1.0) * cover,
            label,
            float(min(new.additive_cues, 2)),
            float(contrast),
            float(one_sided),
            float(_siblings(new, old)),
            polarity,
            attribution,
        ],
        dtype=np.float64,
    )
