"""What the matcher indexes for each tool and skill: weighted terms and one text to embed."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mcp.types import Tool

from neuralgentics.broker.catalog.summary import first_sentence
from neuralgentics.broker.intent.text import analyze, readable_name
from neuralgentics.broker.skillcatalog.records import SkillRecord

# Field weights, applied by repeating terms (BM25 term frequency saturates, so this is a
# gentle BM25F). A tool's name is chosen with care and says what it does; its server tells
# which service; the description explains; parameters hint at the objects it handles.
NAME_WEIGHT = 3
SERVER_WEIGHT = 2
DESCRIPTION_WEIGHT = 1
PARAM_WEIGHT = 1
SUMMARY_WEIGHT = 1
# Descriptions can run to pages (usage notes, examples); the head carries the meaning.
MAX_DESCRIPTION_CHARS = 1200
MAX_PARAM_DESCRIPTION_CHARS = 160


@dataclass(frozen=True)
class Document:
    kind: str  # "tool" | "skill"
    key: tuple[str, str]  # (server, tool) or ("skill", id)
    terms: tuple[str, ...]
    # Several phrasings of what the tool does; its vector is their mean (one dot product per
    # query), which ranks better than any single phrasing.
    embed_texts: tuple[str, ...]
    name_terms: frozenset[str]
    # The name alone, with its service when it lacks it ("github list issues"): embedded on its
    # own for the re-ranker, where siblings differ.
    name_text: str = ""


def _params(schema: Mapping[str, Any] | None, depth: int = 0) -> Iterator[tuple[str, str]]:
    """(name, description + enum values) of each parameter, one nesting level deep."""
    if not isinstance(schema, Mapping):
        return
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return
    for name, spec in props.items():
        spec = spec if isinstance(spec, Mapping) else {}
        desc = str(spec.get("description") or "")[:MAX_PARAM_DESCRIPTION_CHARS]
        enum = spec.get("enum")
        if isinstance(enum, list):
            desc += " " + " ".join(str(e) for e in enum[:20])
        yield str(name), desc
        if depth < 1:
            yield from _params(spec, depth + 1)
            items = spec.get("items")
            if isinstance(items, Mapping):
                yield from _params(items, depth + 1)


def tool_document(server: str, tool: Tool, summary: str = "") -> Document:
    name_terms = analyze(tool.name)
    server_terms = analyze(server)
    description = (tool.description or "")[:MAX_DESCRIPTION_CHARS]
    title = tool.title or ""
    params = list(_params(tool.input_schema))
    terms: list[str] = []
    terms += (name_terms + analyze(title)) * NAME_WEIGHT
    terms += server_terms * SERVER_WEIGHT
    terms += analyze(description) * DESCRIPTION_WEIGHT
    for pname, pdesc in params:
        terms += (analyze(pname) + analyze(pdesc)) * PARAM_WEIGHT
    terms += analyze(summary) * SUMMARY_WEIGHT
    # The compact name too ("sequentialthinking", "gitstatus"): people type names glued.
    terms.append(tool.name.lower())

    readable = readable_name(tool.name)
    head = first_sentence(description, 60) if description else ""
    param_names = ", ".join(readable_name(p) for p, _ in params[:8])
    server_words = readable_name(server)
    # The name with its service when the name does not carry it ("list issues" on github).
    carries_server = set(server_words.split()) & set(readable.split())
    qualified = readable if carries_server else f"{server_words} {readable}"
    full = f"{readable} ({server_words}): {head}"
    if param_names:
        full += f" Parameters: {param_names}."
    views = [full]
    if head:
        views.append(head)
        views.append(f"{head} ({summary or server_words})")
        # The name leading its sentence: what siblings on one server differ in comes first.
        views.append(f"{qualified}: {head}")
    return Document(
        kind="tool",
        key=(server, tool.name),
        terms=tuple(terms),
        embed_texts=tuple(views),
        name_terms=frozenset(name_terms),
        name_text=qualified,
    )


def skill_document(skill: SkillRecord) -> Document:
    name_terms = analyze(skill.name) + analyze(skill.id)
    body_head = skill.body[:MAX_DESCRIPTION_CHARS]
    terms = name_terms * NAME_WEIGHT + analyze(skill.description) * 2 + analyze(body_head)
    views = [f"{skill.name}: {first_sentence(skill.description or body_head, 60)}"]
    if skill.description:
        views.append(first_sentence(skill.description, 60))
    if body_head.strip():
        views.append(first_sentence(body_head, 60))
    return Document(
        kind="skill",
        key=("skill", skill.id),
        terms=tuple(terms),
        embed_texts=tuple(views),
        name_terms=frozenset(name_terms),
    )
