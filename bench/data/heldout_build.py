"""The machinery the held-out generators share (gen_heldout3.py ... gen_heldout7.py).

Each generator keeps its own tables (entities, attributes and their phrasings, events, people,
mixed projects, update templates, hand-written pairs) and passes them here, with its split name
(`heldout3`, ...) and its id prefix (`h3`, ...). Tables are passed at call time, never stored, so
a generator's module globals stay the one source (the tests patch them): heldout3 passes them
one by one, heldout4 and heldout5 (the same layout) as a `Part` read from their globals() at
each call; heldout6 and heldout7 (12 people, 10 updates per mixed project) call the row builders themselves. Where the generators differ (heldout3's template wrap and five restatements, its
events' names), the difference is a parameter. Deterministic: no randomness but gen_streams'
sha256 helpers; every file is byte-identical to what the generators wrote before they shared
this module.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_streams import (  # noqa: E402
    DATA,
    cap,
    finish,
    h,
    kind_event_rows,
    order,
    pick,
    restatement_of,
    update_of,
    write_files,
)

Projects = dict[str, tuple[str, list[tuple[str, str]]]]

Update = Callable[[str, str, str, str], str]  # (entity, noun, old, new) -> text
PersonUpdate = Callable[[str, str, str], str]  # (person, old, new) -> text


# Sentence-initial form; identifiers (dots, dashes, underscores, slashes, capitals after the
# first letter) are written as they are.
up = cap


def event_name(text: str) -> str:
    """ "Build #3107 of ..." -> "Build #3107": the first token holding a digit, with the word
    before it."""
    words = text.rstrip(".").replace(",", "").split(" ")
    i = next(i for i, w in enumerate(words) if any(c.isdigit() for c in w))
    return " ".join(words[max(0, i - 1) : i + 1])


# -- rows ----------------------------------------------------------------------------------------


def fact_rows(
    split: str,
    table: dict[str, dict],
    entities: list[str],
    attrs: list[str],
    tag: str,
    *,
    first_question: bool = False,
) -> list[dict]:
    """One fact per entity and attribute: a value and a phrasing picked by hash, and a question
    picked by hash (or, with `first_question`, the attribute's first)."""
    rows = []
    for ei, ent in enumerate(entities):
        for attribute in attrs:
            spec = table[attribute]
            value = spec["values"][(ei + h(split, tag, attribute)) % len(spec["values"])]
            text = pick(spec["phrases"], split, tag, ent, attribute)(ent, value)
            if first_question:
                question = spec["questions"][0](ent)
            else:
                question = pick(spec["questions"], split, tag, ent, attribute, "q")(ent)
            rows.append(
                {
                    "kind": "fact",
                    "entity": ent,
                    "attribute": attribute,
                    "value": value,
                    "text": text,
                    "questions": [question],
                }
            )
    return rows


def event_rows(split: str, events: dict[str, dict], tag: str) -> list[dict]:
    """One event per name of every event kind."""
    return kind_event_rows(events, split, tag)


def person_facts(
    split: str, table: dict[str, dict], people: list[str], attrs: list[str], tag: str
) -> list[dict]:
    """One fact per person and attribute; the question is the attribute's first."""
    return fact_rows(split, table, people, attrs, tag, first_question=True)


def person_update(
    split: str, table: dict[str, dict], templates: dict[str, PersonUpdate], r: dict, tag: str
) -> dict:
    """A real update of the person fact `r`: the same person and attribute, another value. The
    old fact's question moves to the update."""
    values = [v for v in table[r["attribute"]]["values"] if v != r["value"]]
    new = pick(values, split, tag, r["entity"], r["attribute"], "new")
    return update_of(r, new, templates[r["attribute"]](r["entity"], r["value"], new))


def person_rows(
    split: str, people: list[str], table: dict[str, dict], templates: dict[str, PersonUpdate]
) -> list[dict]:
    """Every person's facts, then one update each of the first people (one per template)."""
    facts = person_facts(split, table, people, list(table), "people")
    stream = order(facts, split, "pp")
    later = []
    for person, attribute in zip(people, templates, strict=False):
        (r,) = [f for f in facts if f["entity"] == person and f["attribute"] == attribute]
        later.append(person_update(split, table, templates, r, "people"))
    return stream + order(later, split, "pp", "later")


def mixed_rows(
    split: str,
    project: str,
    projects: Iterable[str],
    facts: list[dict],
    events: list[dict],
    table: dict[str, dict],
    noun: dict[str, tuple[str, Callable[[str], str]]],
    updates: list[Update],
    restate: dict[str, Callable[[str, str], str]],
    *,
    restated: int,
    wrap: bool,
    people: list[dict] | None = None,
    person_updated: str = "",
    person_table: dict[str, dict] | None = None,
    person_templates: dict[str, PersonUpdate] | None = None,
    changed_n: int = 6,
) -> list[dict]:
    """A project's stream: its facts, people and events in hash order, then `changed_n` (6) real
    updates (templates from `updates`, by the project's offset, else a plain new value), `restated`
    restatements, and, with `people`, an update of the person attribute `person_updated` and a
    restatement of another of the person's facts.

    `wrap`: the template index runs modulo len(updates) + 1, the last slot a plain value
    (heldout3); without it every index past the templates is a plain value (heldout4/5)."""
    tag = f"mixed/{project}"
    people = people or []
    stream = order(facts + people + events, split, tag, "stream")
    chosen = order(facts, split, tag, "chosen")
    changed, again = chosen[:changed_n], chosen[changed_n : changed_n + restated]
    later: list[dict] = []
    if people:
        assert person_table is not None and person_templates is not None
        (moved,) = [r for r in people if r["attribute"] == person_updated]
        again.append(pick([r for r in people if r is not moved], split, tag, "restated person"))
        later.append(person_update(split, person_table, person_templates, moved, tag))
    offset = {p: i * changed_n for i, p in enumerate(projects)}[project]
    for i, r in enumerate(changed):
        spec = table[r["attribute"]]
        values = [v for v in spec["values"] if v != r["value"]]
        new = pick(values, split, tag, r["entity"], r["attribute"], "new")
        name, fmt = noun[r["attribute"]]
        k = (offset + i) % (len(updates) + 1) if wrap else offset + i
        if k >= len(updates):  # a plain new value in a fact phrasing, no cue at all
            text = pick(spec["phrases"], split, tag, r["entity"], "plain")(r["entity"], new)
        else:
            text = updates[k](r["entity"], name, fmt(r["value"]), fmt(new))
        later.append(update_of(r, new, text))
    for r in again:
        later.append(restatement_of(r, restate[r["attribute"]](r["entity"], r["value"])))
    return stream + order(later, split, tag, "later")


# -- hand-written update pairs (memory_updates.jsonl's schema) -----------------------------------


def context_for(
    split: str, projects: Projects, project: str, topic: str, item_id: str
) -> list[str]:
    """2-5 of the project's background facts, by hash, none about the item's topic and none
    that is the item's own old or new fact."""
    head = topic.split(".")[0]
    pool = [t for k, t in projects[project][1] if k.split(".")[0] != head]
    pool = order(pool, split, "ctx", item_id)
    return pool[: 2 + h(split, "ctxn", item_id) % 4]


def pair_rows(
    split: str,
    prefix: str,
    projects: Projects,
    update_items: list[tuple[str, str, str, str, str, str]],
    non_update_items: list[tuple[str, str, str, str, str, str]],
    contradiction_items: list[tuple[str, str, str, str, str]],
) -> list[dict]:
    """The pairs file: ids `<upd|non|con>-<prefix>-<project>-NN`, contexts by hash."""
    rows: list[dict] = []
    seen: dict[tuple[str, str], int] = {}

    def next_id(kind: str, project: str) -> str:
        n = seen[kind, project] = seen.get((kind, project), 0) + 1
        return f"{kind}-{prefix}-{project}-{n:02d}"

    def base(kind: str, item_id: str, project: str, topic: str) -> dict:
        return {
            "id": item_id,
            "set": "memory_updates",
            "kind": kind,
            "split": split,
            "project": project,
            "project_about": projects[project][0],
            "topic": topic,
        }

    def context(project: str, topic: str, item_id: str) -> list[str]:
        return context_for(split, projects, project, topic, item_id)

    for project, topic, style, old, new, question in update_items:
        item_id = next_id("upd", project)
        row = base("update", item_id, project, topic)
        row |= {"style": style, "context": context(project, topic, item_id)}
        row |= {"old": old, "new": new, "question": question, "answer": "new"}
        rows.append(row)
    for project, topic, old, new, q_old, q_new in non_update_items:
        item_id = next_id("non", project)
        row = base("non_update", item_id, project, topic)
        row |= {"context": context(project, topic, item_id), "old": old, "new": new}
        row["questions"] = [
            {"question": q_old, "answer": "old"},
            {"question": q_new, "answer": "new"},
        ]
        rows.append(row)
    for project, topic, old, new, question in contradiction_items:
        item_id = next_id("con", project)
        row = base("contradiction", item_id, project, topic)
        row |= {"context": context(project, topic, item_id), "old": old, "new": new}
        row |= {"question": question, "answer": "both"}
        rows.append(row)
    return rows


# -- a part with people in its mixed projects (heldout4, heldout5) --------------------------------


@dataclass(frozen=True)
class Part:
    """The tables of a generator whose mixed projects have components and one person each,
    under the names the generator gives them (`entities` is its ENTITIES, ...)."""

    prefix: str  # of the pair ids: "h4" gives upd-h4-<project>-01
    split: str
    entities: list[str]
    attrs: dict[str, dict]
    events: dict[str, dict]
    people: list[str]
    person_attrs: dict[str, dict]
    person_updates: dict[str, PersonUpdate]
    mixed_projects: dict[str, tuple[list[str], str]]
    mixed_attrs: list[str]
    mixed_person_attrs: list[str]
    mixed_person_update: dict[str, str]  # project -> which attribute of its person changes
    mixed_events: dict[str, list[tuple[str, str]]]
    noun: dict[str, tuple[str, Callable[[str], str]]]
    updates: list[Update]
    restate: dict[str, Callable[[str, str], str]]
    projects: Projects
    update_items: list[tuple[str, str, str, str, str, str]]
    non_update_items: list[tuple[str, str, str, str, str, str]]
    contradiction_items: list[tuple[str, str, str, str, str]]

    @classmethod
    def of(cls, tables: dict, prefix: str) -> Part:
        """The part of a generator's `globals()`, read when called (a patched table counts)."""
        names = [f.name for f in fields(cls) if f.name != "prefix"]
        return cls(prefix, **{n: tables[n.upper()] for n in names})


def person_mixed_rows(p: Part, project: str) -> list[dict]:
    """A mixed project of `p`: its components' facts, its person's facts, its events (named by
    event_name), 6 updates and 4 restatements of component facts, an update and a
    restatement of the person."""
    tag = f"mixed/{project}"
    components, person = p.mixed_projects[project]
    events = [
        {"kind": "event", "entity": event_name(text), "attribute": "event", "text": text}
        | {"questions": [q]}
        for text, q in p.mixed_events[project]
    ]
    return mixed_rows(
        p.split,
        project,
        p.mixed_projects,
        fact_rows(p.split, p.attrs, components, p.mixed_attrs, tag),
        events,
        p.attrs,
        p.noun,
        p.updates,
        p.restate,
        restated=4,
        wrap=False,
        people=person_facts(p.split, p.person_attrs, [person], p.mixed_person_attrs, tag),
        person_updated=p.mixed_person_update[project],
        person_table=p.person_attrs,
        person_templates=p.person_updates,
    )


def build(p: Part) -> dict[str, list[dict]]:
    """The five files of `p`."""
    items = (p.update_items, p.non_update_items, p.contradiction_items)
    return files(
        p.split,
        order(fact_rows(p.split, p.attrs, p.entities, list(p.attrs), "parallel"), p.split, "par"),
        order(event_rows(p.split, p.events, "events"), p.split, "ev"),
        person_rows(p.split, p.people, p.person_attrs, p.person_updates),
        [(m, person_mixed_rows(p, m)) for m in p.mixed_projects],
        pair_rows(p.split, p.prefix, p.projects, *items),
    )


def part_names(p: Part) -> list[str]:
    """Every entity, person, project and event name of `p`."""
    out = [*p.entities, *p.people, *p.projects, *p.mixed_projects]
    for components, person in p.mixed_projects.values():
        out += [*components, person, person.split(" ")[0]]
    out += [n for spec in p.events.values() for n in spec["names"]]
    out += [event_name(t) for evs in p.mixed_events.values() for t, _ in evs]
    out += [n.split(" ")[0] for n in p.people]  # a first name alone is a shared name too
    return out


# -- parts with one update per person (heldout6, heldout7) --------------------------------------
# Their tables, read from the generator's globals() when called (a patched table counts):
# SPLIT, PREFIX, ENTITIES, ATTRS, EVENTS, PEOPLE, PERSON_ATTRS, PERSON_CHANGES (one (attribute,
# wording) per person), MIXED_PROJECTS, MIXED_ATTRS, MIXED_PERSON_ATTRS, MIXED_PERSON_CHANGE
# (project -> (attribute, wording)), MIXED_EVENTS, MIXED_UPDATES_EACH, MIXED_RESTATED, NOUN,
# UPDATES, RESTATE, PROJECTS, UPDATE_ITEMS, NON_UPDATE_ITEMS, CONTRADICTION_ITEMS.


def changed_people_rows(g: dict) -> list[dict]:
    """Every person's facts in hash order, then one real update of each person (PERSON_CHANGES
    in PEOPLE's order); the person's other facts stay true and keep their questions."""
    split, table = g["SPLIT"], g["PERSON_ATTRS"]
    facts = person_facts(split, table, g["PEOPLE"], list(table), "people")
    later = []
    for person, (attribute, wording) in zip(g["PEOPLE"], g["PERSON_CHANGES"], strict=True):
        (r,) = [f for f in facts if f["entity"] == person and f["attribute"] == attribute]
        later.append(person_update(split, table, {attribute: wording}, r, "people"))
    return order(facts, split, "pp") + order(later, split, "pp", "later")


def changed_mixed_rows(g: dict, project: str) -> list[dict]:
    """A mixed project: its components' facts, its person's facts, its events, then
    MIXED_UPDATES_EACH updates and MIXED_RESTATED restatements of component facts, an update
    and a restatement of the person."""
    split, tag = g["SPLIT"], f"mixed/{project}"
    components, person = g["MIXED_PROJECTS"][project]
    events = [
        {"kind": "event", "entity": event_name(text), "attribute": "event", "text": text}
        | {"questions": [q]}
        for text, q in g["MIXED_EVENTS"][project]
    ]
    attribute, wording = g["MIXED_PERSON_CHANGE"][project]
    return mixed_rows(
        split,
        project,
        g["MIXED_PROJECTS"],
        fact_rows(split, g["ATTRS"], components, g["MIXED_ATTRS"], tag),
        events,
        g["ATTRS"],
        g["NOUN"],
        g["UPDATES"],
        g["RESTATE"],
        restated=g["MIXED_RESTATED"],
        wrap=False,
        people=person_facts(split, g["PERSON_ATTRS"], [person], g["MIXED_PERSON_ATTRS"], tag),
        person_updated=attribute,
        person_table=g["PERSON_ATTRS"],
        person_templates={attribute: wording},
        changed_n=g["MIXED_UPDATES_EACH"],
    )


def changed_build(g: dict) -> dict[str, list[dict]]:
    """The five files of such a part."""
    split = g["SPLIT"]
    items = (g["UPDATE_ITEMS"], g["NON_UPDATE_ITEMS"], g["CONTRADICTION_ITEMS"])
    return files(
        split,
        order(
            fact_rows(split, g["ATTRS"], g["ENTITIES"], list(g["ATTRS"]), "parallel"), split, "par"
        ),
        order(event_rows(split, g["EVENTS"], "events"), split, "ev"),
        changed_people_rows(g),
        [(m, changed_mixed_rows(g, m)) for m in g["MIXED_PROJECTS"]],
        pair_rows(split, g["PREFIX"], g["PROJECTS"], *items),
    )


def changed_names(g: dict, named: list[str]) -> list[str]:
    """Every entity, person, project and event name of such a part, and the people it names
    as values (`named`), each also by first name."""
    out = [*g["ENTITIES"], *g["PEOPLE"], *g["PROJECTS"], *g["MIXED_PROJECTS"]]
    for components, person in g["MIXED_PROJECTS"].values():
        out += [*components, person, person.split(" ")[0]]
    out += [n for spec in g["EVENTS"].values() for n in spec["names"]]
    out += [event_name(t) for evs in g["MIXED_EVENTS"].values() for t, _ in evs]
    out += [n.split(" ")[0] for n in g["PEOPLE"]]  # a first name alone is a shared name too
    return [*out, *named, *(m.split(" ")[0] for m in named)]


def changed_leaks(g: dict, names: list[str]) -> list[str]:
    """What such a part shares with any other part: a name of it in another part's text; an
    attribute kind (the `attribute` of a stream line) another part has; a fact, context or
    question sentence another part has."""
    split = g["SPLIT"]
    out = name_leaks(split, names)
    rows = other_rows(split)
    theirs = {r["attribute"] for r in rows if "attribute" in r} - {"event"}
    out |= {f"attribute {a!r}" for a in [*g["ATTRS"], *g["PERSON_ATTRS"]] if a in theirs}
    mine = sentences([r for part in changed_build(g).values() for r in part])
    out |= {f"sentence {t!r}" for t in mine & sentences(rows)}
    return sorted(out)


# -- the files and the overlap checks ------------------------------------------------------------


def files(
    split: str,
    parallel: list[dict],
    events: list[dict],
    people: list[dict],
    mixed: list[tuple[str, list[dict]]],
    pairs: list[dict],
) -> dict[str, list[dict]]:
    """The five files of a held-out part, by name (without `.jsonl`)."""
    return {
        f"streams_parallel_{split}": finish("parallel", split, [("p", parallel)]),
        f"streams_events_{split}": finish("events", split, [("e", events)]),
        f"streams_people_{split}": finish("people", split, [("h", people)]),
        f"streams_mixed_{split}": finish("mixed", split, mixed),
        f"memory_updates_{split}": pairs,
    }


def other_text(split: str) -> str:
    """Every other part's files (every .jsonl here without `split` in its name), lower-cased."""
    others = []
    for path in sorted(DATA.glob("*.jsonl")):
        if split not in path.name:
            others.append(path.read_text(encoding="utf-8").lower())
    return "\n".join(others)


def name_leaks(split: str, names: Iterable[str]) -> set[str]:
    """The names that occur in any other part's text."""
    corpus = other_text(split)
    return {n for n in names if n.lower() in corpus}


def other_rows(split: str) -> list[dict]:
    """Every line of every other part (every .jsonl here without `split` in its name)."""
    rows = []
    for path in sorted(DATA.glob("*.jsonl")):
        if split not in path.name:
            rows += [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x]
    return rows


def sentences(rows: list[dict]) -> set[str]:
    """The facts and questions of lines in any of the files' schemas."""
    out: set[str] = set()
    for r in rows:
        out.update(v for k, v in r.items() if k in ("text", "old", "new", "question", "fact"))
        out.update(r.get("context", []))
        out.update(q if isinstance(q, str) else q["question"] for q in r.get("questions", []))
    return out


def main(
    doc: str,
    split: str,
    build: Callable[[], dict[str, list[dict]]],
    leaks: Callable[[], list[str]],
    shares: str = "shares names with another part",
) -> int:
    """The command line of a held-out generator: write the files, or with --check fail when
    one is stale; fail when the part shares anything with another part."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when a file is stale")
    args = parser.parse_args()
    stale = write_files(build(), check=args.check, unit="lines")
    shared = leaks()
    if shared:
        print(f"{split} {shares}: " + ", ".join(shared))
    if stale:
        print(f"stale (run python bench/data/gen_{split}.py): " + ", ".join(stale))
    return 1 if stale or shared else 0
