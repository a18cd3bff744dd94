"""The intent matcher as the broker's fronts use it: ``find_tool``, ``mcp_router_call`` with an
``intent``, and POST /match all go through these functions.

They take the broker duck-typed (``await broker.tools_by_server(role)``,
``broker.summaries(role)``, ``broker.may_call(role, server, tool)``, ``broker.intents``) so this
module does not reach into the broker's internals, and a matcher is rebuilt only when the role's
tools change. ``Intents`` (the matcher pool with its embedder, and where skills come from) is
built by whoever composes the broker (``neuralgentics.app.broker``).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import anyio
from mcp.types import CallToolResult, TextContent, Tool

from neuralgentics import errors
from neuralgentics.broker.catalog.names import group_names
from neuralgentics.broker.intent.defaults import DEFAULT_THRESHOLD, DEFAULT_TOP_K
from neuralgentics.broker.intent.embedcache import EmbeddingCache
from neuralgentics.broker.intent.fit import misfit
from neuralgentics.broker.skillcatalog.records import SkillRecord, skill_records, skills_for_role
from neuralgentics.embeddings import Embedder

if TYPE_CHECKING:
    # imported where a matcher is built (numpy, bm25s): not at a broker's start
    from neuralgentics.broker.intent.matcher import IntentMatcher, MatchResult

log = logging.getLogger(__name__)

MAX_TOP_K = 20
# How many candidates an unsure mcp_router_call(intent=…) answer lists (issue 18 item 8), and
# how many of them get a line of their own with why they matched. A numbered line costs ~18.5
# tokens; a name folded into its server's group ("github: get_issue, list_{issues,pulls}") ~4.
# Chosen on the tuning set by expected tokens (the list in every later request that carries
# it, a miss a new request, ~7,500 tokens in the OpenCode session bench): 25 candidates, the
# first 3 on lines, cost p50 153 tokens over the unsure tuning intents (10 lines cost 185) and
# hold the right tool for 0.989 of them (10 lines: 0.943). Names alone would cost less still;
# the first three keep their reasons so the agent sees the ranking's strongest evidence.
UNSURE_CANDIDATES = 25
UNSURE_DETAILED = 3

FIND_TOOL = Tool(
    name="find_tool",
    description="Rank your tools and skills for a task told in a sentence.",
    input_schema={
        "type": "object",
        "properties": {"intent": {"type": "string"}, "top_k": {"type": "integer"}},
        "required": ["intent"],
    },
)

# Added to mcp_router_call's input schema: an intent instead of server + tool.
ROUTER_INTENT_PROPERTY: dict[str, Any] = {"intent": {"type": "string"}}


class BrokerLike(Protocol):
    intents: Intents

    async def tools_by_server(self, role: str | None) -> dict[str, list[Tool]]: ...

    def summaries(self, role: str | None = None) -> dict[str, str]: ...

    def may_call(self, role: str | None, server: str, tool: str) -> bool: ...


class IntentError(errors.InvalidInput, ValueError):
    """Bad find_tool / match input; the message names the argument."""


def _fingerprint(
    tools_by_server: Mapping[str, Sequence[Tool]],
    summaries: Mapping[str, str],
    skills: Sequence[SkillRecord],
) -> str:
    h = hashlib.sha256()
    for server in sorted(tools_by_server):
        h.update(f"\0s{server}\0{summaries.get(server, '')}".encode())
        for t in tools_by_server[server]:
            h.update(f"\0t{t.name}\0{t.description or ''}\0".encode())
            h.update(json.dumps(t.input_schema, sort_keys=True, default=str).encode())
    for s in skills:
        h.update(f"\0k{s.id}\0{s.name}\0{s.description}\0{hash(s.body)}".encode())
    return h.hexdigest()


class MatcherPool:
    """One matcher per distinct catalog (e.g. per role), rebuilt when the tools change.

    Building is cheap after the first time: tool embeddings are cached by their text.
    """

    def __init__(
        self,
        embedder: Embedder,
        *,
        cache: EmbeddingCache | None = None,
        query_embedder: Embedder | None = None,
        max_matchers: int = 16,
        threshold: float = DEFAULT_THRESHOLD,
    ) -> None:
        self.embedder = embedder
        self.query_embedder = query_embedder
        # shared by every matcher: a tool seen by one role is not embedded again for another
        self.cache = cache if cache is not None else EmbeddingCache()
        self._matchers: OrderedDict[str, IntentMatcher] = OrderedDict()
        self._fingerprints: OrderedDict[tuple[Any, ...], tuple[list[Tool], str]] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_matchers
        self.threshold = threshold

    def _key(
        self,
        tools_by_server: Mapping[str, Sequence[Tool]],
        summaries: Mapping[str, str],
        skills: Sequence[SkillRecord],
    ) -> str:
        # Hashing every schema costs milliseconds per call; the broker hands back the same Tool
        # objects until a server's list changes, so remember the hash by object identity. The
        # entry holds the objects themselves, so their ids cannot be reused while it lives.
        ident = (
            tuple(
                (server, tuple(map(id, tools_by_server[server])))
                for server in sorted(tools_by_server)
            ),
            tuple(sorted(summaries.items())),
            tuple(skills),
        )
        with self._lock:
            hit = self._fingerprints.get(ident)
            if hit is not None:
                return hit[1]
        key = _fingerprint(tools_by_server, summaries, skills)
        held = [t for tools in tools_by_server.values() for t in tools]
        with self._lock:
            self._fingerprints[ident] = (held, key)
            while len(self._fingerprints) > 4 * self._max:
                self._fingerprints.popitem(last=False)
        return key

    def get(
        self,
        tools_by_server: Mapping[str, Sequence[Tool]],
        summaries: Mapping[str, str] | None = None,
        skills: Sequence[SkillRecord] = (),
    ) -> IntentMatcher:
        summaries = summaries or {}
        key = self._key(tools_by_server, summaries, skills)
        with self._lock:
            matcher = self._matchers.get(key)
            if matcher is not None:
                self._matchers.move_to_end(key)
                return matcher
        from neuralgentics.broker.intent.matcher import IntentMatcher

        matcher = IntentMatcher(
            tools_by_server,
            summaries,
            skills,
            threshold=self.threshold,
            embedder=self.embedder,
            cache=self.cache,
            query_embedder=self.query_embedder,
        )
        with self._lock:
            self._matchers[key] = matcher
            while len(self._matchers) > self._max:
                self._matchers.popitem(last=False)
        return matcher


@dataclass
class Intents:
    """What intent matching needs beyond the broker itself: the matchers (with the embedder
    and the vector cache) and the skills to offer beside tools. Built by the composer."""

    pool: MatcherPool
    skills: Callable[[], Sequence[SkillRecord]] = field(default=lambda: ())

    def skill_records(self) -> Sequence[SkillRecord]:
        try:
            return self.skills()
        except Exception as exc:  # noqa: BLE001 - a broken skills dir must not break tool matching
            log.warning("skills left out of intent matching: %s", exc)
            return ()


def _check(intent: Any, top_k: Any) -> tuple[str, int]:
    if not isinstance(intent, str) or not intent.strip():
        raise IntentError(
            "'intent' is required: the task in a sentence, e.g. 'list open pull requests'"
        )
    if top_k is None:
        top_k = DEFAULT_TOP_K
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise IntentError(f"'top_k' must be an integer from 1 to {MAX_TOP_K} (got {top_k!r})")
    return intent, top_k


async def match_for_role(
    broker: BrokerLike,
    role: str | None,
    intent: Any,
    top_k: Any = None,
    *,
    skills: Sequence[SkillRecord] | None = None,
    pool: MatcherPool | None = None,
) -> MatchResult:
    """Rank the tools ``role`` may call for ``intent`` (the library call behind every front).

    The matching runs in a worker thread: embedding the intent (and, the first time, the
    tools) is model work that must not stall the broker's event loop and its other calls.
    """
    intent, top_k = _check(intent, top_k)
    return await _match(broker, role, intent, top_k, skills, pool)


async def _match(
    broker: BrokerLike,
    role: str | None,
    intent: str,
    top_k: int,
    skills: Sequence[SkillRecord] | None = None,
    pool: MatcherPool | None = None,
) -> MatchResult:
    matcher = await _matcher_for(broker, role, skills, pool)

    def allowed(server: str, tool: str) -> bool:
        return broker.may_call(role, server, tool)

    return await anyio.to_thread.run_sync(
        functools.partial(matcher.match, intent, allowed=allowed, top_k=top_k)
    )


async def _matcher_for(
    broker: BrokerLike,
    role: str | None,
    skills: Sequence[SkillRecord] | None,
    pool: MatcherPool | None,
) -> IntentMatcher:
    tools_by_server = await broker.tools_by_server(role)
    summaries = {n: s for n, s in broker.summaries(role).items() if n in tools_by_server}
    intents = broker.intents
    records = await anyio.to_thread.run_sync(intents.skill_records) if skills is None else skills
    # a role is never offered a skill meant for other agents (as in the catalog)
    visible = skills_for_role(skill_records(records), role)
    return (pool or intents.pool).get(tools_by_server, summaries, visible)


async def warm_for_role(
    broker: BrokerLike, role: str | None, *, pool: MatcherPool | None = None
) -> None:
    """Build and embed the role's matcher ahead of its first ``find_tool`` (e.g. in a
    background task once the broker has listed its servers)."""
    matcher = await _matcher_for(broker, role, None, pool)
    await anyio.to_thread.run_sync(matcher.warm)


def result_text(result: MatchResult) -> str:
    """The find_tool answer: compact JSON the agent can act on."""
    payload: dict[str, Any] = {
        "intent": result.intent,
        "confidence": round(result.confidence, 3),
        "confident": result.confident,
        "candidates": [
            {"server": c.server, "tool": c.tool, "score": round(c.score, 3), "why": c.why}
            for c in result.candidates
        ],
    }
    if result.skills:
        payload["skills"] = [
            {"id": s.id, "name": s.name, "score": round(s.score, 3)} for s in result.skills
        ]
    if not result.candidates:
        payload["note"] = "no tool your role may call matches; get_tool_list shows what there is"
    elif not result.confident:
        payload["note"] = "low confidence: check describe_tool for the candidates before calling"
    return json.dumps(payload, ensure_ascii=False)


async def find_tool(broker: BrokerLike, role: str | None, arguments: Mapping[str, Any]) -> str:
    """Handler of the ``find_tool`` meta-tool: returns the text of its CallToolResult."""
    unknown = set(arguments) - {"intent", "top_k", "role"}
    if unknown:
        raise IntentError(
            f"find_tool: unknown argument(s) {', '.join(sorted(unknown))}; it takes intent and top_k"
        )
    result = await match_for_role(broker, role, arguments.get("intent"), arguments.get("top_k"))
    return result_text(result)


@dataclass(frozen=True)
class Resolution:
    """What ``mcp_router_call`` with an ``intent`` should do: call ``server``/``tool``, or, when
    not confident, return ``message`` to the agent so it chooses among the candidates."""

    server: str | None
    tool: str | None
    result: MatchResult
    message: str | None

    @property
    def resolved(self) -> bool:
        return self.server is not None


def candidate_lines(
    result: MatchResult, k: int | None = None, detailed: int = UNSURE_DETAILED
) -> str:
    """The candidates an unsure answer shows the agent: the first ``detailed`` numbered, one
    line each (name + why), then the rest up to ``k`` (all by default) as names grouped by
    server in rank order of each server's best (``Also: jira: jira_{search,get_issue}; …``).
    bench/intent.py counts their tokens per ``k``."""
    shown = result.candidates if k is None else result.candidates[:k]
    lines = [f"{i}. {c.server}/{c.tool} — {c.why}" for i, c in enumerate(shown[:detailed], 1)]
    by_server: dict[str, list[str]] = {}
    for c in shown[detailed:]:
        by_server.setdefault(c.server, []).append(c.tool)
    if by_server:
        groups = "; ".join(f"{s}: {', '.join(group_names(t))}" for s, t in by_server.items())
        lines.append(f"Also: {groups}")
    return "\n".join(lines)


async def resolve_intent(
    broker: BrokerLike, role: str | None, intent: Any, arguments: Any = None
) -> Resolution:
    # Past find_tool's MAX_TOP_K: the unsure list folds most of its names into groups.
    intent, _ = _check(intent, None)
    result = await _match(broker, role, intent, max(DEFAULT_TOP_K, UNSURE_CANDIDATES))
    best = result.best
    # A tool that deletes or stops something runs from an intent only when the intent names it.
    destructive = best is not None and best.action == "delete" and result.confidence < 1.0
    # ... and any tool only when the arguments the agent sent are ones it takes
    unfit: str | None = None
    if best is not None and result.confident and not destructive:
        tool = next(
            (
                t
                for t in (await broker.tools_by_server(role)).get(best.server, [])
                if t.name == best.tool
            ),
            None,
        )
        unfit = misfit(tool, arguments) if tool is not None else None
        if unfit is None:
            return Resolution(best.server, best.tool, result, None)
    if best is None:
        message = (
            f"No tool your role may call matches {result.intent!r}. "
            "get_tool_list shows what you may use."
        )
    else:
        options = candidate_lines(result, UNSURE_CANDIDATES)
        if unfit is not None:
            why_not = f"the arguments do not fit {best.server}/{best.tool}: {unfit}"
        elif destructive and result.confident:
            why_not = f"{best.server}/{best.tool} deletes or stops something and was not named"
        elif result.confidence >= result.threshold and len(result.candidates) > 1:
            # confident enough, but the runner-up is too close to call without asking
            runner_up = result.candidates[1]
            why_not = (
                f"{best.server}/{best.tool} leads {runner_up.server}/{runner_up.tool} by "
                f"{result.margin or 0.0:.2f} < {result.min_margin:.2f}"
            )
        else:
            why_not = f"confidence {result.confidence:.2f} < {result.threshold:.2f}"
        message = (
            f"Not sure which tool fits {result.intent!r} ({why_not}); nothing was called. "
            "Choose one and call mcp_router_call with its server and tool "
            f"(describe_tool shows its arguments):\n{options}"
        )
    return Resolution(None, None, result, message)


def with_intent_tools(meta_tools: Sequence[Tool]) -> list[Tool]:
    """The broker's meta-tools plus ``find_tool``, with ``mcp_router_call`` also taking an
    ``intent`` (server and tool then become optional)."""
    out: list[Tool] = []
    for tool in meta_tools:
        already = "intent" in ((tool.input_schema or {}).get("properties") or {})
        if tool.name == "mcp_router_call" and not already:  # idempotent: wrapping twice is once
            schema = copy.deepcopy(tool.input_schema)
            schema.setdefault("properties", {}).update(ROUTER_INTENT_PROPERTY)
            schema.pop("required", None)
            description = (tool.description or "").rstrip()
            tool = tool.model_copy(
                update={
                    "input_schema": schema,
                    "description": f"{description} Or an intent instead of server and tool.".strip(),
                }
            )
        out.append(tool)
    if not any(t.name == FIND_TOOL.name for t in out):
        out.append(FIND_TOOL)
    return out


async def call_by_intent(
    broker: Any,
    *,
    role: str | None,
    intent: Any,
    arguments: Any = None,
    **call_kwargs: Any,
) -> CallToolResult:
    """``mcp_router_call`` with an ``intent``: call the matched tool when confident; otherwise
    call nothing and return the candidates for the agent to choose from (``isError``, so the
    model reads it as "not done" and retries with server and tool).

    ``call_kwargs`` go to ``broker.call`` unchanged (session_id, front, progress).
    """
    resolution = await resolve_intent(broker, role, intent, arguments)
    audit = functools.partial(
        broker.audit_refused,
        kind="intent",
        role=role,
        session_id=call_kwargs.get("session_id"),
        front=call_kwargs.get("front", ""),
        credential=call_kwargs.get("credential"),
        connection=call_kwargs.get("connection"),
    )
    confidence = round(resolution.result.confidence, 3)
    if not resolution.resolved:
        top = ", ".join(
            f"{c.server}/{c.tool} ({c.score:.2f})" for c in resolution.result.candidates[:3]
        )
        why = (resolution.message or "").split("; nothing was called", 1)[0]
        await audit(
            outcome="unresolved",
            server="-",
            tool="-",
            arguments={"intent": intent, "arguments": arguments, "confidence": confidence},
            error=f"{why[:300]}; candidates: {top or 'none'}",
        )
        return CallToolResult(
            content=[TextContent(type="text", text=resolution.message or "")],
            is_error=True,
            structured_content={
                "resolved": False,
                "candidates": [
                    {"server": c.server, "tool": c.tool, "score": round(c.score, 3)}
                    for c in resolution.result.candidates
                ],
            },
        )
    # how the call was chosen; the call itself is audited by Broker.call as any other
    await audit(
        outcome="dispatched",
        server=resolution.server,
        tool=resolution.tool,
        arguments={"intent": intent, "arguments": arguments, "confidence": confidence},
        error=None,
    )
    result = await broker.call(
        role=role,
        server=resolution.server,
        tool=resolution.tool,
        arguments=arguments,
        **call_kwargs,
    )
    meta = dict(result.meta or {})
    meta["neuralgentics/resolved"] = {
        "server": resolution.server,
        "tool": resolution.tool,
        "confidence": round(resolution.result.confidence, 3),
    }
    return result.model_copy(update={"meta": meta})
