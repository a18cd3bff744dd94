"""Second stage: re-order the fused top candidates with features that tell siblings apart.

The first stage (BM25 + MiniLM, fused) usually has the right tool in its top five but often
loses first place to a sibling on the same server whose description differs by a word
(``s3_list_buckets`` / ``s3_list_objects``, ``get_issue`` / ``list_issues``). Those siblings
differ in their *names* and in what *arguments* they take, which the averaged description
embedding and the bag of words blur. So for the first stage's best ``RERANK_DEPTH`` candidates
this module computes a few precise features and adds a learned linear correction to the fused
score, in the fused score's units. (The matcher's confidence still reads the first stage's
scores: the correction reorders close siblings, it is not evidence that the winner is right.)

The weights are fitted by :func:`fit` (pairwise logistic regression in numpy, the right tool
against each other candidate of the same intent, L2-regularised) on the training intents only;
``bench/intent.py --fit-rerank`` refits and prints them. They are stored below as constants.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from mcp.types import Tool

from neuralgentics.broker.intent.text import analyze, words
from neuralgentics.text import stemmer

# How many of the first stage's candidates are re-ordered. The right tool is in the first
# stage's top 10 for 97 % of the training intents; depths 5 to 20 measured the same in
# repeated cross-validation, and 10 keeps the per-intent work small.
RERANK_DEPTH = 10
# L2 strength of the fit, chosen by 5-fold cross-validation on the training intents only
# (0.03 to 3 all within a point of each other; 0.3 was best).
RERANK_L2 = 0.3

# The feature vector of one candidate, in this order (see :func:`features`).
FEATURES = (
    "name_missing",  # how many of the tool's own name words the intent lacks
    "name_cosine",  # intent vs the tool's name alone (minus the best of the pool)
    "plural_agreement",  # "issues" vs "issue": the intent's number agrees with the name's
    # A value in the intent (number, path, URL, email, key) that a parameter takes; its
    # complement (values no parameter takes) differs between candidates only by its sign.
    "value_fit",
    "needs_missing_id",  # the tool needs an id/number the intent does not give
    "verb_in_name",  # the intent's leading verb is one of the tool's name words
    "desc_coverage",  # share of the intent's words found in the tool's description/params
)

# Learned by fit() on intents.tsv + intents_train2.tsv (bench/intent.py --fit-rerank prints
# them); the correction added to the fused score is WEIGHTS . features. name_cosine and
# desc_coverage come out negative, which is not "the closer the worse": the fused score
# already counts name meaning and description words, and these trim how much it favours the
# wordier sibling.
WEIGHTS = np.array(
    [
        -0.0102,  # name_missing
        -0.0218,  # name_cosine
        +0.0240,  # plural_agreement
        +0.0521,  # value_fit
        -0.0385,  # needs_missing_id
        +0.0485,  # verb_in_name
        -0.0224,  # desc_coverage
    ],
    dtype=np.float32,
)
assert len(WEIGHTS) == len(FEATURES)


# Kinds of values an intent can carry, and the parameter-name words that take each. General
# shapes (a URL, an email, a path, an id, a #channel, quoted text), not names from a catalog.
_VALUE_PATTERNS = {
    "url": re.compile(r"\bhttps?://\S+|\blocalhost:\d+"),
    "email": re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.]+\b"),
    "path": re.compile(
        r"(?:^|\s)(?:~|\.{1,2})?/?[\w.-]+/[\w./-]*"
        r"|\b[\w-]+\.(?:py|js|ts|md|json|ya?ml|txt|csv|log|toml|cfg|sh|pdf|png|tar)\b"
    ),
    "channel": re.compile(r"(?:^|\s)#[a-z][\w-]*"),
    # Quoted, or everything after a colon ("comment on WEB-7: deployed to staging").
    "text": re.compile(r"[\"“'][^\"”']{2,}[\"”']|:\s+\S.{3,}$"),
    # A number, #123, a key like PAY-123, a hex id of 6+ characters, a prefixed id (cus_123).
    "id": re.compile(
        r"(?:^|[\s#])\d+\b|\b[A-Z][A-Z0-9]+-\d+\b|\b[0-9a-f]{6,40}\b|\b[a-z]+_[A-Za-z0-9]{2,}\b"
    ),
}
_PARAM_KINDS = {
    "url": frozenset("url uri link href".split()),
    "email": frozenset("email to attendees user cc".split()),
    "path": frozenset(
        "path paths file files dir directory key source destination filename prefix".split()
    ),
    "channel": frozenset(["channel"]),
    "text": frozenset(
        "text body message content query q summary title comment thought insight".split()
    ),
    "id": frozenset(
        "id number key sha ts revision name index count limit tail replicas amount".split()
    ),
}
_ID_PARAM = re.compile(r"(?:^|_)(?:id|number|key|sha|ts|revision|ref)$|Id$|Number$")


@dataclass(frozen=True)
class ToolFacts:
    """What the features need of one tool, computed once per catalog."""

    name_words: frozenset[str]  # stemmed name words that are not the server's own
    name_plural: Mapping[str, bool]  # stem -> is the name's word plural ("issues")
    value_kinds: frozenset[str]  # kinds of values its parameters take
    needs_id: bool  # a required parameter is an id/number/key
    text_terms: frozenset[str]  # stemmed words of its description and parameters


def _is_plural(word: str, stem: str) -> bool:
    return word.endswith("s") and not word.endswith("ss") and word != stem and len(word) > 3


def tool_facts(server: str, tool: Tool, shared_words: Iterable[str] = ()) -> ToolFacts:
    """``shared_words``: stems most of the server's tool names carry (``jira``, ``slack``)."""
    server_terms = set(analyze(server)) | set(shared_words)
    raw = words(tool.name)
    stems = stemmer().stemWords(raw) if raw else []
    name_words = frozenset(s for s in analyze(tool.name) if s not in server_terms)
    plural = {s: _is_plural(w, s) for w, s in zip(raw, stems, strict=True) if s in name_words}
    schema: Mapping[str, Any] = tool.input_schema or {}
    props = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    required = set(schema.get("required") or ())
    kinds: set[str] = set()
    for pname in props or {}:
        parts = set(words(pname))
        for kind, names in _PARAM_KINDS.items():
            if parts & names:
                kinds.add(kind)
    needs_id = any(_ID_PARAM.search(p) for p in required)
    text = (tool.description or "")[:400] + " " + " ".join(props or {})
    return ToolFacts(name_words, plural, frozenset(kinds), needs_id, frozenset(analyze(text)))


def shared_name_words(names: Sequence[str]) -> set[str]:
    """Stems in at least half the names of a server with 3+ tools: a prefix, not a meaning."""
    if len(names) < 3:
        return set()
    counts: dict[str, int] = {}
    for n in names:
        for s in set(analyze(n)):
            counts[s] = counts.get(s, 0) + 1
    return {s for s, c in counts.items() if c * 2 >= len(names)}


@dataclass(frozen=True)
class IntentFacts:
    terms: frozenset[str]
    plural: Mapping[str, bool]  # stem -> is the intent's word plural
    value_kinds: frozenset[str]
    verb: str | None  # the first analysed word, when the intent starts with a verb-like word


def intent_facts(intent: str, terms: Sequence[str]) -> IntentFacts:
    raw = words(intent)
    stems = stemmer().stemWords(raw) if raw else []
    plural: dict[str, bool] = {}
    for w, s in zip(raw, stems, strict=True):
        plural[s] = plural.get(s, False) or _is_plural(w, s)
    kinds = frozenset(k for k, rx in _VALUE_PATTERNS.items() if rx.search(intent))
    lead = analyze(" ".join(raw[:1])) if raw and raw[0] not in _QUESTION_WORDS else []
    return IntentFacts(frozenset(terms), plural, kinds, lead[0] if lead else None)


_QUESTION_WORDS = frozenset(
    ["what", "which", "who", "whom", "whose", "when", "where", "why", "how"]
    + ["is", "are", "do", "does", "did", "any"]
)


def features(q: IntentFacts, tool: ToolFacts, name_cos: float) -> np.ndarray:
    hit = tool.name_words & q.terms
    n = len(tool.name_words)
    agree = [
        1.0 if q.plural.get(s, False) == tool.name_plural.get(s, False) else -1.0
        for s in hit
        if s in q.plural and s in tool.name_plural
    ]
    fit = len(q.value_kinds & tool.value_kinds)
    return np.array(
        [
            float(n - len(hit)),
            name_cos,
            sum(agree) / len(agree) if agree else 0.0,
            float(fit),
            1.0 if tool.needs_id and "id" not in q.value_kinds else 0.0,
            1.0 if q.verb is not None and q.verb in tool.name_words else 0.0,
            len(q.terms & tool.text_terms) / len(q.terms) if q.terms else 0.0,
        ],
        dtype=np.float32,
    )


def fit(
    groups: Sequence[tuple[np.ndarray, np.ndarray, int | None]],
    l2: float = RERANK_L2,
    scale: float = 20.0,
) -> np.ndarray:
    """Weights w for score = fused + w . features, from (fused[k], features[k, F], gold index).

    Pairwise logistic loss of the gold candidate against each other one of its intent,
    averaged per intent (an intent with nine rivals weighs as much as one with two), plus
    ``l2 * |w|^2``: with a few hundred intents the prior "no correction" must cost something
    to leave. ``scale`` turns fused-score differences into
    logits (0.05 apart, about where close siblings sit, is one logit). Newton's method: the
    loss is convex and there are only a handful of weights.
    """
    diffs, base, weight = [], [], []
    for fused, feats, gold in groups:
        if gold is None:
            continue
        others = [j for j in range(len(fused)) if j != gold]
        for j in others:
            diffs.append(feats[gold] - feats[j])
            base.append(fused[gold] - fused[j])
            weight.append(1.0 / len(others))
    dim = len(FEATURES)
    if not diffs:
        return np.zeros(dim, dtype=np.float32)
    x = scale * np.asarray(diffs, dtype=np.float64)
    b = scale * np.asarray(base, dtype=np.float64)
    sw = np.asarray(weight, dtype=np.float64) / sum(1 for g in groups if g[2] is not None)
    # margin = scale * (fused gap + w . feature gap) = b + x @ w: w stays in fused-score units.
    v = np.zeros(dim)
    for _ in range(50):
        m = b + x @ v
        p = 1.0 / (1.0 + np.exp(np.clip(m, -50, 50)))  # -d/dm log(1 + e^-m)
        grad = -(sw * p) @ x + 2 * l2 * v
        hess = (x * (sw * p * (1 - p))[:, None]).T @ x + 2 * l2 * np.eye(dim)
        step = np.linalg.solve(hess, grad)
        v -= step
        if np.abs(step).max() < 1e-9:
            break
    return v.astype(np.float32)
