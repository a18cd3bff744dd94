"""What kind of action an intent asks for and a tool performs: read, create, update or delete.

A question ("what containers are running", "which files changed") wants a tool that reads,
not one that runs or deletes something; "close issue 17" wants one that changes state. Tools
say their kind with their leading verb (``list_containers``, ``slack_post_message``) or, in
MCP's own vocabulary, with annotations (``readOnlyHint``, ``destructiveHint``).
"""

from __future__ import annotations

from typing import Literal

from mcp.types import Tool

from neuralgentics.broker.catalog.names import split_identifier
from neuralgentics.broker.intent.text import words

Action = Literal["read", "create", "update", "delete"]

_FAMILIES: dict[Action, frozenset[str]] = {
    "read": frozenset(
        """get list read show describe search find query fetch view download retrieve count
        check inspect explain analyze lookup scan infer report recommend validate plan diff
        status tree logs log history top stats info browse see display print lookup
        compare tell look summarize summarise tail watch monitor evaluate""".split()
    ),
    "create": frozenset(
        """create add new make post send insert upload write push run start book invite reply
        append publish generate build install fork invoke trigger pull commit file spin
        schedule register draft save copy clone deploy launch submit put record remember
        init initialize echo email message dm ping notify""".split()
    ),
    "update": frozenset(
        """update edit modify set change rename move transition assign merge scale restart
        switch checkout toggle resolve finalize link share label approve mark apply patch
        replace fill type click select press hover drag resize navigate rerun enable disable
        tag stage""".split()
    ),
    "delete": frozenset(
        """delete remove close cancel drop stop kill uninstall reset unstage destroy purge
        erase wipe terminate archive revoke clear clean tear prune forget undo revert
        rollback discard""".split()
    ),
}
_VERB_FAMILY: dict[str, Action] = {w: fam for fam, ws in _FAMILIES.items() for w in ws}
# A sentence that opens with one of these asks a question: it wants to read.
_QUESTION = frozenset(
    "what which who whom whose where when why how is are was were does do did any anything".split()
)
# Openers that carry no action; skip them to reach the verb ("please", "can you", "I want to").
_FILLER = frozenset(
    """please pls can could would will you i we i'd id i'm im want wanna need like to let lets
    let's me us go ahead just quickly kindly now then and so ok okay hey help try gotta""".split()
)


def tool_action(tool: Tool) -> Action | None:
    ann = tool.annotations
    if ann is not None:
        if ann.read_only_hint:
            return "read"
        if ann.destructive_hint:
            # destructive covers delete and overwrite; the verb tells which, if it can.
            verb = _leading_verb(split_identifier(tool.name))
            return verb if verb in ("update", "delete") else "delete"
    by_name = _leading_verb(split_identifier(tool.name))
    if by_name is not None:
        return by_name
    desc = words(tool.description or "")[:1]
    return _VERB_FAMILY.get(desc[0]) if desc else None


def _leading_verb(parts: list[str]) -> Action | None:
    # The verb is usually first ("list_containers"), after a namespace when there is one
    # ("slack_post_message", "browser_click", "pods_list" puts it last).
    for w in parts[:3]:
        if w in _VERB_FAMILY:
            return _VERB_FAMILY[w]
    for w in parts[3:]:
        if w in _VERB_FAMILY:
            return _VERB_FAMILY[w]
    return None


def intent_action(intent: str) -> Action | None:
    ws = words(intent)
    if not ws:
        return None
    if ws[0] in _QUESTION:
        return "read"
    for w in ws[:4]:
        if w in _FILLER:
            continue
        return _VERB_FAMILY.get(w)
    return None


# "open" reads a file but creates an issue, a PR or a ticket: it has no family of its own.
assert "open" not in _VERB_FAMILY
