"""The catalog's lines for what is not a tool: resources, templates and prompts (compact), and
which servers are passthrough.

For servers in meta-tools mode these lines are how an agent learns what it may read or fetch
on demand (``resources/read`` of ``broker://SERVER/URI``, ``prompts/get`` of
``SERVER_PROMPT``); a server that exposes its resources or prompts gets one mention, since
``resources/list`` / ``prompts/list`` already show them. Within its budget the section
degrades like the tool catalog: every name, then URI groups with counts, then counts alone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import mcp.types as types

from neuralgentics.broker.namespace import URI_SCHEME, NameTable
from neuralgentics.token_counts import count_tokens

RESOURCES_HEAD = f"Resources (resources/read {URI_SCHEME}SERVER/URI; {{x}} is a template):"
PROMPTS_HEAD = "Prompts (prompts/get NAME):"
PASSTHROUGH_HEAD = "Passthrough (these servers' tools are your own tools, named SERVER_TOOL):"


@dataclass(frozen=True)
class ServerItems:
    """What one server offers the role, and how it is exposed."""

    resources: Sequence[types.Resource] = ()
    templates: Sequence[types.ResourceTemplate] = ()
    prompts: Sequence[types.Prompt] = ()
    exposed: frozenset[str] = frozenset()


def _group_uris(uris: Sequence[str], per_group: int | None) -> list[str]:
    """``scheme://a/b/{x.md, y.md}``: URIs sharing everything up to their last ``/`` folded;
    ``per_group`` names at most that many per group (None: all; 0: only the count)."""
    groups: dict[str, list[str]] = defaultdict(list)
    for uri in uris:
        head, sep, leaf = uri.rpartition("/")
        groups[head + sep if sep else ""].append(leaf if sep else uri)
    out = []
    for head, leaves in groups.items():
        if len(leaves) == 1 and per_group != 0:
            out.append(head + leaves[0])
            continue
        if per_group == 0:
            out.append(f"{head}… ({len(leaves)})")
            continue
        shown = leaves if per_group is None else leaves[:per_group]
        more = len(leaves) - len(shown)
        tail = f", …+{more}" if more else ""
        out.append(f"{head}{{{', '.join(shown)}{tail}}}")
    return out


def _prompt(p: types.Prompt, public: str) -> str:
    args = ", ".join(f"{a.name}{'' if a.required else '?'}" for a in p.arguments or ())
    return f"{public}({args})" if args else public


def _compose(items: Mapping[str, ServerItems], names: NameTable, level: int) -> str:
    resource_lines, prompt_lines, passthrough = [], [], []
    for server in sorted(items):
        it = items[server]
        if "tools" in it.exposed:
            passthrough.append(server)
        if it.resources or it.templates:
            if "resources" in it.exposed:
                resource_lines.append(f"- {server}: listed by resources/list")
            elif level == 2:
                n = len(it.resources) + len(it.templates)
                resource_lines.append(f"- {server}: {n} (resources/list does not show them)")
            else:
                uris = _group_uris([r.uri for r in it.resources], None if level == 0 else 0)
                uris += [t.uri_template for t in it.templates]
                resource_lines.append(f"- {server}: " + ", ".join(uris))
        if it.prompts:
            if "prompts" in it.exposed:
                prompt_lines.append(f"- {server}: listed by prompts/list")
            elif level == 2:
                prompt_lines.append(f"- {server}: {len(it.prompts)} prompts")
            else:
                shown = [
                    _prompt(p, public) if level == 0 else public
                    for p in it.prompts
                    if (public := names.public(server, p.name)) is not None
                ]
                prompt_lines.append(f"- {server}: " + ", ".join(shown))
    parts = []
    if passthrough:
        parts.append(f"{PASSTHROUGH_HEAD} {', '.join(passthrough)}")
    if resource_lines:
        parts += [RESOURCES_HEAD, *resource_lines]
    if prompt_lines:
        parts += [PROMPTS_HEAD, *prompt_lines]
    return "\n".join(parts)


def render_content(
    items: Mapping[str, ServerItems], prompt_names: NameTable, budget_tokens: int
) -> str:
    """The section's text within ``budget_tokens`` if any level fits (else the most compact)."""
    text = ""
    for level in (0, 1, 2):
        text = _compose(items, prompt_names, level)
        if count_tokens(text) <= budget_tokens:
            break
    return text
