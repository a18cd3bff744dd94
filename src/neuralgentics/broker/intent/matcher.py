"""Natural-language intent -> ranked (server, tool) among what a role may call, plus skills.

Two views of every tool, fused:

- lexical: BM25 over the tool's name (split), description, parameters, server name and
  summary (see :mod:`documents` for the field weights), which finds identifiers and rare words;
- semantic: cosine between MiniLM embeddings of the intent and of the tool text, which finds
  meaning when the words differ ("what changed since my last commit" -> git_diff_unstaged).

Each is scaled to [0, 1] by its best candidate and they are added with weights; a tool named
exactly in the intent (``git_status``, ``github_create_issue``, ``github/create_issue``) goes
to the top, and naming a server favours its tools. A second stage (:mod:`rerank`) re-orders
the best ten with learned features that tell sibling tools apart (name words, the values the
intent carries vs the parameters each tool takes). The confidence is how much the winner
stands out from the runners-up (a softmax over the first stage's scores) times how related
the intent is to it at all; below the threshold, or with the runner-up within
DISPATCH_MARGIN of the winner after re-ranking, a caller must ask the agent to choose.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import bm25s
import numpy as np
from mcp.types import Tool

from neuralgentics.broker.intent.actions import intent_action, tool_action
from neuralgentics.broker.intent.defaults import DEFAULT_THRESHOLD, DEFAULT_TOP_K
from neuralgentics.broker.intent.documents import Document, skill_document, tool_document
from neuralgentics.broker.intent.embedcache import Embedder, EmbeddingCache
from neuralgentics.broker.intent.rerank import (
    RERANK_DEPTH,
    WEIGHTS,
    features,
    intent_facts,
    shared_name_words,
    tool_facts,
)
from neuralgentics.broker.intent.text import analyze, identifiers, spell_out, words
from neuralgentics.broker.skillcatalog.records import skill_records

Mode = Literal["hybrid", "bm25", "embedding"]
Allowed = Callable[[str, str], bool]

# Auto-dispatch also needs the winner ahead of the runner-up by this much in the final
# (re-ranked) score. The confidence reads the first stage; the margin reads the order the
# re-ranker settled on, so two close siblings after re-ranking are not called blind. Chosen on
# the tuning set (issue 18 item 8): at 0.7 it dispatches 0.551 -> 0.536 of the intents and
# raises their precision 0.954 -> 0.971 (5 wrong calls -> 3); held-out figures in
# docs/benchmarks-catalog-intent.md.
DISPATCH_MARGIN = 0.1
# Weight of the semantic view in the fused score (lexical gets the rest). Chosen on the bench
# (bench/intent.py prints the sweep); the two views are close to complementary there.
SEMANTIC_WEIGHT = 0.65
# A tool named exactly in the intent wins over anything similar.
EXACT_NAME_BOOST = 1.0
# Naming the server ("on slack", "in github") favours its tools without overriding meaning.
SERVER_MENTION_BOOST = 0.2
# Softmax temperature over fused scores for the confidence; and the cosine below which an
# intent is taken as unrelated to the best tool whatever the ranking says.
CONFIDENCE_TEMPERATURE = 0.07
UNRELATED_COSINE = 0.15
RELATED_COSINE = 0.45
SKILL_MIN_SCORE = 0.35
# The intent's kind of action (read/create/update/delete) agreeing with the tool's favours it;
# a question routed to a tool that changes things is held back.
ACTION_MATCH_BOOST = 0.1
READ_MISMATCH_PENALTY = 0.1
QUERY_CACHE_SIZE = 1024
# Verbs that ask to see something without saying what: left out of the BM25 query (the action
# kind already uses them) so "show the last commits" does not favour a tool named git_show.
GENERIC_VERBS = frozenset(analyze("show get give tell see display view print look"))
BM25_K1 = 1.2
BM25_B = 0.75


@dataclass(frozen=True)
class ToolMatch:
    server: str
    tool: str
    score: float
    lexical: float
    semantic: float
    why: str
    # read | create | update | delete (from the tool's annotations or leading verb), or None.
    action: str | None = None


@dataclass(frozen=True)
class SkillMatch:
    id: str
    name: str
    score: float
    why: str


@dataclass(frozen=True)
class MatchResult:
    intent: str
    candidates: list[ToolMatch]
    skills: list[SkillMatch]
    confidence: float
    threshold: float
    mode: str = "hybrid"
    considered: int = 0
    # Final score of the winner minus the runner-up's (None: no runner-up, or not hybrid).
    margin: float | None = None
    min_margin: float = 0.0

    @property
    def confident(self) -> bool:
        return (
            bool(self.candidates)
            and self.confidence >= self.threshold
            and (self.margin is None or self.margin >= self.min_margin)
        )

    @property
    def best(self) -> ToolMatch | None:
        return self.candidates[0] if self.candidates else None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["confident"] = self.confident
        data["confidence"] = round(self.confidence, 4)
        if self.margin is not None:
            data["margin"] = round(self.margin, 4)
        for c in data["candidates"]:
            for k in ("score", "lexical", "semantic"):
                c[k] = round(c[k], 4)
        for s in data["skills"]:
            s["score"] = round(s["score"], 4)
        return data


@dataclass
class _Index:
    """BM25 and vectors over a fixed list of documents; vectors computed on first use."""

    docs: list[Document]
    bm25: bm25s.BM25 | None = None
    vectors: np.ndarray | None = None
    name_vectors: np.ndarray | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.docs:
            self.bm25 = bm25s.BM25(k1=BM25_K1, b=BM25_B)
            self.bm25.index([list(d.terms) or ["\0"] for d in self.docs], show_progress=False)

    def lexical(self, terms: list[str]) -> np.ndarray:
        if self.bm25 is None or not terms:
            return np.zeros(len(self.docs), dtype=np.float32)
        return np.asarray(self.bm25.get_scores(terms), dtype=np.float32)

    def ensure_vectors(self, embedder: Embedder, cache: EmbeddingCache) -> np.ndarray:
        with self.lock:
            if self.vectors is None:
                texts = [t for d in self.docs for t in d.embed_texts]
                flat = cache.embed(texts, embedder)
                vectors = np.zeros(
                    (len(self.docs), flat.shape[1] if len(flat) else 384), dtype=np.float32
                )
                row = 0
                for i, d in enumerate(self.docs):
                    k = len(d.embed_texts)
                    # The mean of the views' vectors: its dot product is the views' mean cosine.
                    vectors[i] = flat[row : row + k].mean(axis=0)
                    row += k
                self.vectors = vectors
            return self.vectors

    def ensure_name_vectors(self, embedder: Embedder, cache: EmbeddingCache) -> np.ndarray:
        with self.lock:
            if self.name_vectors is None:
                self.name_vectors = cache.embed([d.name_text for d in self.docs], embedder)
            return self.name_vectors


def _scaled(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Scale to [0, 1] by the best allowed candidate (zero stays zero: no evidence is none)."""
    top = float(x[mask].max()) if mask.any() else 0.0
    if top <= 0:
        return np.zeros_like(x)
    return np.clip(x / top, 0.0, None)


class IntentMatcher:
    """Build once per catalog (cheap: embeddings are cached by text), query many times."""

    def __init__(
        self,
        tools_by_server: Mapping[str, Sequence[Tool] | None],
        summaries: Mapping[str, str] | None = None,
        skills: Sequence[Any] = (),
        *,
        embedder: Embedder,
        cache: EmbeddingCache | None = None,
        threshold: float = DEFAULT_THRESHOLD,
        dispatch_margin: float = DISPATCH_MARGIN,
        semantic_weight: float = SEMANTIC_WEIGHT,
        query_embedder: Embedder | None = None,
        rerank_weights: np.ndarray | None = None,
    ) -> None:
        if not 0.0 <= semantic_weight <= 1.0:
            raise ValueError(f"semantic_weight must be within [0, 1] (got {semantic_weight})")
        summaries = summaries or {}
        self.threshold = threshold
        self.dispatch_margin = dispatch_margin
        self.semantic_weight = semantic_weight
        self.embedder = embedder
        # Intents may go through a faster model than tools (int8 ONNX: the same network, its
        # vectors within ~0.98 cosine of fp32; `Settings.intent_query_backend`).
        self.query_embedder = query_embedder or embedder
        # in memory only unless the composer hands in a persisted one
        self._cache = cache if cache is not None else EmbeddingCache()
        docs = [
            tool_document(server, tool, summaries.get(server, ""))
            for server in sorted(tools_by_server)
            for tool in tools_by_server[server] or []
        ]
        self._tools = _Index(docs)
        self._keys: list[tuple[str, str]] = [d.key for d in docs]
        self._servers = np.array([k[0] for k in self._keys], dtype=object)
        self._actions = np.array(
            [
                tool_action(t) or ""
                for server in sorted(tools_by_server)
                for t in tools_by_server[server] or []
            ],
            dtype=object,
        )
        self._rerank_weights = np.asarray(
            WEIGHTS if rerank_weights is None else rerank_weights, dtype=np.float32
        )
        self._facts = []
        for server in sorted(tools_by_server):
            listed = tools_by_server[server] or []
            shared = shared_name_words([t.name for t in listed])  # once per server
            self._facts += [tool_facts(server, t, shared) for t in listed]
        # Set only inside rerank_example (fitting, never concurrent with serving): collects a
        # hybrid match's (pool, first-stage scores, features) before the correction.
        self._probe: list[tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None
        self._server_terms = {s: frozenset(analyze(s)) for s in tools_by_server}
        self._server_only_terms = {
            s: st - {w for d in docs if d.key[0] == s for w in d.name_terms}
            for s, st in self._server_terms.items()
        }
        # Exact names: raw tool name, and the OpenCode/MCP spellings server_tool, server/tool,
        # server.tool, server__tool; mapped to the document index.
        self._exact: dict[str, list[int]] = {}
        for i, (server, tool) in enumerate(self._keys):
            for spelling in {
                tool,
                f"{server}_{tool}",
                f"{server}/{tool}",
                f"{server}.{tool}",
                f"{server}__{tool}",
            }:
                self._exact.setdefault(spelling.lower(), []).append(i)
        self._skills_list = skill_records(skills)
        self._skills = _Index([skill_document(s) for s in self._skills_list])
        self._query_vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._qlock = threading.Lock()

    @property
    def tool_count(self) -> int:
        return len(self._keys)

    def warm(self) -> None:
        """Embed every tool and skill now (model load included) instead of on the first query."""
        self._tools.ensure_vectors(self.embedder, self._cache)
        if self._rerank_weights.any():
            self._tools.ensure_name_vectors(self.embedder, self._cache)
        self._skills.ensure_vectors(self.embedder, self._cache)
        self._query_vector("warm up")

    def _query_vector(self, intent: str) -> np.ndarray:
        with self._qlock:
            vec = self._query_vectors.get(intent)
            if vec is not None:
                self._query_vectors.move_to_end(intent)
                return vec
        # Abbreviations spelled out ("dm" -> "direct message"): MiniLM reads words, not jargon.
        vec = np.asarray(self.query_embedder.embed([spell_out(intent)])[0], dtype=np.float32)
        with self._qlock:
            self._query_vectors[intent] = vec
            while len(self._query_vectors) > QUERY_CACHE_SIZE:
                self._query_vectors.popitem(last=False)
        return vec

    def _exact_hits(self, intent: str) -> set[int]:
        hits: set[int] = set()
        for ident in identifiers(intent):
            for i in self._exact.get(ident, ()):
                tool = self._keys[i][1]
                # A one-word name that is also plain English ("fetch", "search") is not a
                # name-drop; only identifiers with parts, or the server-qualified form, are.
                if ident != tool.lower() or len(words(tool)) > 1:
                    hits.add(i)
        return hits

    def match(
        self,
        intent: str,
        *,
        allowed: Allowed | None = None,
        top_k: int = DEFAULT_TOP_K,
        mode: Mode = "hybrid",
    ) -> MatchResult:
        """Ranked tools (and skills) for ``intent`` among those ``allowed(server, tool)`` permits."""
        intent = " ".join(str(intent).split())
        if not intent:
            raise ValueError("intent must be a non-empty sentence")
        if top_k < 1:
            raise ValueError(f"top_k must be at least 1 (got {top_k})")
        if mode not in ("hybrid", "bm25", "embedding"):
            raise ValueError(f"mode must be hybrid, bm25 or embedding (got {mode!r})")
        n = len(self._keys)
        mask = np.ones(n, dtype=bool)
        if allowed is not None:
            mask = np.fromiter((allowed(s, t) for s, t in self._keys), dtype=bool, count=n)
        terms = analyze(intent)
        qvec = (
            self._query_vector(intent)
            if mode != "bm25" and (mask.any() or self._skills.docs)
            else None
        )

        candidates: list[ToolMatch] = []
        confidence = 0.0
        margin: float | None = None
        if mask.any():
            mentioned = self._mentioned_servers(intent, terms) if mode == "hybrid" else set()
            # A named server counts once, through SERVER_MENTION_BOOST: left in the BM25 query
            # it would also lift every tool that merely names the service in its description.
            # Unless its tools carry the word in their names ("time" in get_current_time):
            # then it says what the tool does, not only where it lives.
            named = (
                set().union(*(self._server_only_terms[s] for s in mentioned))
                if mentioned
                else set()
            )
            lex_terms = [t for t in terms if t not in named and t not in GENERIC_VERBS] or terms
            lex = self._tools.lexical(lex_terms)
            sem = (
                self._tools.ensure_vectors(self.embedder, self._cache) @ qvec
                if qvec is not None
                else np.zeros(n, dtype=np.float32)
            )
            lex_s, sem_s = _scaled(lex, mask), _scaled(sem, mask)
            if mode == "bm25":
                fused = lex_s.copy()
            elif mode == "embedding":
                fused = sem.astype(np.float32).copy()
            else:
                w = self.semantic_weight
                fused = w * sem_s + (1.0 - w) * lex_s
            exact = self._exact_hits(intent) if mode == "hybrid" else set()
            first_stage = fused
            if mode == "hybrid":
                for i in exact:
                    fused[i] += EXACT_NAME_BOOST
                if mentioned:
                    fused += SERVER_MENTION_BOOST * np.isin(self._servers, list(mentioned))
                action = intent_action(intent)
                if action is not None and n:
                    fused += ACTION_MATCH_BOOST * (self._actions == action)
                    if action == "read":
                        fused -= READ_MISMATCH_PENALTY * np.isin(
                            self._actions, ["create", "update", "delete"]
                        )
                first_stage = fused.copy()
                if qvec is not None and (self._rerank_weights.any() or self._probe is not None):
                    pool, feats = self.rerank_features(intent, terms, qvec, fused, mask)
                    if self._probe is not None:
                        self._probe.append((pool, fused[pool].copy(), feats))
                    fused[pool] += feats @ self._rerank_weights
            fused = np.where(mask, fused, -np.inf)
            k = min(top_k, int(mask.sum()))
            order = np.argpartition(-fused, k - 1)[:k] if k < n else np.arange(n)
            order = order[np.argsort(-fused[order], kind="stable")][:k]
            for i in order:
                server, tool = self._keys[i]
                candidates.append(
                    ToolMatch(
                        server=server,
                        tool=tool,
                        score=float(fused[i]),
                        lexical=float(lex[i]),
                        semantic=float(sem[i]),
                        why=self._why(
                            i, lex_terms, lex_s[i], sem[i], i in exact, server in mentioned
                        ),
                        action=self._actions[i] or None,
                    )
                )
            # The confidence reads the first stage's scores (the winner's among them), not the
            # re-ranked ones: the correction reorders close siblings, and letting it also widen
            # their margin made wrong answers confident more often (held-out precision at the
            # threshold fell ~3 points).
            winner = int(order[0]) if len(order) else 0
            if mode == "hybrid" and int(mask.sum()) > 1:
                # the runner-up over every allowed tool, not only the top_k returned
                best_two = np.partition(-fused[np.isfinite(fused)], 1)[:2]
                margin = float(best_two[1] - best_two[0])
            confidence = self._confidence(
                np.where(mask, first_stage, -np.inf),
                winner,
                candidates,
                bool(exact & set(order.tolist())),
                mode,
            )
        skills = self._match_skills(terms, qvec, mode)
        return MatchResult(
            intent=intent,
            candidates=candidates,
            skills=skills,
            confidence=confidence,
            threshold=self.threshold,
            mode=mode,
            considered=int(mask.sum()),
            margin=margin,
            min_margin=self.dispatch_margin,
        )

    def rerank_example(
        self, intent: str, server: str, tool: str
    ) -> tuple[np.ndarray, np.ndarray, int | None]:
        """One training example for :func:`rerank.fit`: the first stage's scores and the
        features of the pool for ``intent``, and where ``server/tool`` is in it (None: absent)."""
        self._probe = []
        try:
            self.match(intent, top_k=1)
            pool, scores, feats = self._probe[0]
        finally:
            self._probe = None
        keys = [self._keys[i] for i in pool]
        return scores, feats, keys.index((server, tool)) if (server, tool) in keys else None

    def rerank_features(
        self,
        intent: str,
        terms: list[str],
        qvec: np.ndarray,
        fused: np.ndarray,
        mask: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The first stage's best RERANK_DEPTH allowed candidates and their features."""
        masked = np.where(mask, fused, -np.inf)
        k = min(RERANK_DEPTH, int(mask.sum()))
        pool = np.argpartition(-masked, k - 1)[:k] if k < len(masked) else np.arange(k)
        pool = pool[np.argsort(-masked[pool], kind="stable")]
        name_cos = self._tools.ensure_name_vectors(self.embedder, self._cache)[pool] @ qvec
        # Relative to the pool's best: what matters is which sibling's name is closest.
        name_cos = name_cos - name_cos.max()
        q = intent_facts(intent, terms)
        feats = np.stack(
            [features(q, self._facts[i], float(c)) for i, c in zip(pool, name_cos, strict=True)]
        )
        return pool, feats

    def _mentioned_servers(self, intent: str, terms: list[str]) -> set[str]:
        """Servers the intent names ("on slack", "in github", "k8s")."""
        term_set = set(terms)
        lowered = set(intent.lower().split())
        return {
            s
            for s, st in self._server_terms.items()
            if (st and st <= term_set) or s.lower() in lowered
        }

    def _confidence(
        self,
        fused: np.ndarray,
        winner: int,
        candidates: list[ToolMatch],
        exact: bool,
        mode: str,
    ) -> float:
        if not candidates:
            return 0.0
        if exact and candidates[0].score >= EXACT_NAME_BOOST:
            return 1.0
        # How much the winner stands out from the field (the best ten, the winner among them).
        top = np.sort(fused[np.isfinite(fused)])[::-1][:10]
        best = float(top[0])
        z = np.exp((top - best) / CONFIDENCE_TEMPERATURE)
        own = float(np.exp((fused[winner] - best) / CONFIDENCE_TEMPERATURE))
        if fused[winner] < top[-1]:
            z = np.append(z, own)  # a winner from below the first stage's ten still counts once
        margin = own / float(z.sum())
        if mode == "bm25":
            return margin if candidates[0].lexical > 0 else 0.0
        # How related the intent is to the winner at all, from the cosine.
        cos = candidates[0].semantic
        related = min(1.0, max(0.0, (cos - UNRELATED_COSINE) / (RELATED_COSINE - UNRELATED_COSINE)))
        return margin * related

    def _why(
        self, i: int, terms: list[str], lex: float, cos: float, exact: bool, mentioned: bool
    ) -> str:
        reasons: list[str] = []
        if exact:
            reasons.append(f"names the tool {self._keys[i][1]}")
        shared = sorted(set(terms) & set(self._tools.docs[i].terms))
        if shared:
            reasons.append("words: " + ", ".join(shared[:6]))
        if mentioned:
            reasons.append(f"mentions server {self._keys[i][0]}")
        reasons.append(f"meaning {cos:.2f}")
        return "; ".join(reasons)

    def _match_skills(
        self, terms: list[str], qvec: np.ndarray | None, mode: str
    ) -> list[SkillMatch]:
        docs = self._skills.docs
        if not docs:
            return []
        mask = np.ones(len(docs), dtype=bool)
        lex = _scaled(self._skills.lexical(terms), mask)
        if qvec is not None:
            sem = self._skills.ensure_vectors(self.embedder, self._cache) @ qvec
        else:
            sem = np.zeros(len(docs), dtype=np.float32)
        # Absolute cosine (not rescaled): a skill must be about the intent, not merely the
        # closest of a handful.
        score = (
            sem
            if mode == "embedding"
            else (lex * 0.5 if mode == "bm25" else 0.5 * sem + 0.5 * lex * np.clip(sem * 2, 0, 1))
        )
        out = []
        for i in np.argsort(-score)[:3]:
            if score[i] < SKILL_MIN_SCORE:
                break
            rec = self._skills_list[i]
            out.append(
                SkillMatch(
                    id=rec.id, name=rec.name, score=float(score[i]), why=f"meaning {sem[i]:.2f}"
                )
            )
        return out


__all__ = ["IntentMatcher", "MatchResult", "SkillMatch", "ToolMatch"]
