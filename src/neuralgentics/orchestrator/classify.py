"""Task text → task type, by keyword rules plus MiniLM similarity to each type's examples.

The two signals are summed into one score per type (similarity in [−1, 1] plus a bounded
keyword bonus); a softmax over the scores gives the confidence. When the best two are close
the result is marked ambiguous and both are returned, so a caller can ask or allow either.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from neuralgentics.embeddings import Embedder
from neuralgentics.orchestrator.config import OrchestratorConfig
from neuralgentics.orchestrator.errors import InvalidInput

MAX_TASK_CHARS = 20_000
# A text is recognised as a task type when one of the type's keyword rules matches it or one of
# its examples is at least this close (cosine). Below it the classifier still ranks the types,
# but nothing in the matrix actually names the text ("When do our deploys go out?" scores 0.38
# against the nearest example; "add a --dry-run flag …" 0.6-1.0).
RECOGNISED_SIMILARITY = 0.45
_QUESTION_START = re.compile(
    r"^\s*(what|when|where|which|who|whom|whose|why|how|is|are|was|were|do|does|did|has|have|"
    r"can|could|should|would|will|may|might)\b",
    re.IGNORECASE,
)
# "Can you add …?" is a request, not a question.
_POLITE_REQUEST = re.compile(
    r"^\s*(can|could|would|will)\s+(you|we)\s+(please\s+)?(add|implement|create|build|make|fix|write|"
    r"refactor|update|change|remove|rename|move|run|review|test|document|find|look)\b",
    re.IGNORECASE,
)


def reads_as_question(text: str) -> bool:
    """A question the agent should answer, rather than a piece of work to hand out."""
    # `opencode run "…"` hands the message over in quotes
    text = text.strip().strip("\"'“”").strip()
    if _POLITE_REQUEST.search(text):
        return False
    return text.endswith("?") or bool(_QUESTION_START.search(text))


@dataclass
class TypeScore:
    task_type: str
    score: float
    probability: float
    similarity: float
    keyword_score: float
    matched_keywords: list[str] = field(default_factory=list)
    nearest_example: str | None = None
    nearest_similarity: float = 0.0


@dataclass
class Classification:
    task_type: str
    confidence: float
    ambiguous: bool
    # the best type first; two entries when ambiguous
    candidates: list[TypeScore]
    reasons: list[str]
    scores: list[TypeScore]  # every type, best first
    # some keyword rule or example of the best type names the text (RECOGNISED_SIMILARITY)
    recognised: bool = True
    question: bool = False

    @property
    def delegable(self) -> bool:
        """A piece of work of a known type: worth handing to the matrix's agent. A question or
        a text no type recognises is answered by whoever was asked (with context)."""
        return self.recognised and not self.question

    @property
    def top_types(self) -> list[str]:
        return [c.task_type for c in self.candidates]


@dataclass
class Weights:
    # keyword bonus per unit of matched weight, and its cap (in units of weight)
    keyword: float = 0.15
    keyword_cap: float = 2.0
    # how many nearest examples are averaged for a type's similarity
    top_examples: int = 3
    # softmax temperature over the combined scores
    temperature: float = 0.04
    # ambiguous when the best type's probability leads the second's by less than this
    ambiguity_margin: float = 0.5
    use_keywords: bool = True
    use_similarity: bool = True


def validate_task_text(text: object) -> str:
    if not isinstance(text, str):
        raise InvalidInput("task text must be a string", field="task")
    stripped = text.strip()
    if not stripped:
        raise InvalidInput("task text is empty", field="task")
    if len(stripped) > MAX_TASK_CHARS:
        raise InvalidInput(
            f"task text is {len(stripped)} characters; the limit is {MAX_TASK_CHARS}", field="task"
        )
    return stripped


class TaskClassifier:
    def __init__(
        self, config: OrchestratorConfig, *, embedder: Embedder, weights: Weights | None = None
    ) -> None:
        self.config = config
        self.weights = weights or Weights()
        self._embed = embedder.embed
        self._types = list(config.task_types)
        self._rules = {
            t: [(re.compile(rule.pattern, re.IGNORECASE), rule.weight) for rule in spec.keywords]
            for t, spec in config.task_types.items()
        }
        self._examples: list[tuple[str, str]] = [
            (t, ex) for t, spec in config.task_types.items() for ex in spec.examples
        ]
        self._example_vecs: np.ndarray | None = None
        self._lock = threading.Lock()

    def _example_matrix(self) -> np.ndarray:
        with self._lock:
            if self._example_vecs is None:
                self._example_vecs = self._embed([ex for _, ex in self._examples])
        return self._example_vecs

    def classify(self, text: str) -> Classification:
        return self.classify_many([text])[0]

    def classify_many(self, texts: Sequence[str]) -> list[Classification]:
        cleaned = [validate_task_text(t) for t in texts]
        w = self.weights
        sims = np.zeros((len(cleaned), len(self._examples)), dtype=np.float32)
        if w.use_similarity and self._examples:
            sims = self._embed(cleaned) @ self._example_matrix().T
        return [self._one(text, sims[i]) for i, text in enumerate(cleaned)]

    def _one(self, text: str, example_sims: np.ndarray) -> Classification:
        w = self.weights
        raw: list[TypeScore] = []
        for task_type in self._types:
            idx = [i for i, (t, _) in enumerate(self._examples) if t == task_type]
            similarity, nearest, nearest_sim = 0.0, None, 0.0
            if w.use_similarity and idx:
                type_sims = example_sims[idx]
                order = np.argsort(-type_sims)
                similarity = float(type_sims[order[: w.top_examples]].mean())
                nearest = self._examples[idx[int(order[0])]][1]
                nearest_sim = float(type_sims[order[0]])
            matched: list[str] = []
            kw = 0.0
            if w.use_keywords:
                for pattern, weight in self._rules[task_type]:
                    m = pattern.search(text)
                    if m:
                        matched.append(m.group(0).strip())
                        kw += weight
            kw = min(kw, w.keyword_cap)
            score = similarity + w.keyword * kw
            raw.append(
                TypeScore(task_type, score, 0.0, similarity, kw, matched, nearest, nearest_sim)
            )

        scores = np.array([s.score for s in raw], dtype=np.float64)
        probs = np.exp((scores - scores.max()) / w.temperature)
        probs /= probs.sum()
        for s, p in zip(raw, probs):
            s.probability = float(p)
        ranked = sorted(raw, key=lambda s: s.score, reverse=True)
        best, second = ranked[0], ranked[1] if len(ranked) > 1 else None
        ambiguous = (
            second is not None and best.probability - second.probability < w.ambiguity_margin
        )
        candidates = [best, second] if ambiguous and second is not None else [best]
        recognised = any(
            c.keyword_score > 0 or c.nearest_similarity >= RECOGNISED_SIMILARITY for c in candidates
        )
        return Classification(
            task_type=best.task_type,
            confidence=round(best.probability, 4),
            ambiguous=ambiguous,
            candidates=candidates,
            reasons=self._reasons(candidates),
            scores=ranked,
            recognised=recognised,
            question=reads_as_question(text),
        )

    def _reasons(self, candidates: list[TypeScore]) -> list[str]:
        reasons: list[str] = []
        for c in candidates:
            label = self.config.task_types[c.task_type].label
            if c.matched_keywords:
                words = ", ".join(f"'{k}'" for k in dict.fromkeys(c.matched_keywords))
                reasons.append(f"{c.task_type} ({label}): keywords {words}")
            if c.nearest_example is not None:
                reasons.append(
                    f"{c.task_type} ({label}): closest example '{c.nearest_example}' "
                    f"(cosine {c.nearest_similarity:.2f}; mean of best {self.weights.top_examples} {c.similarity:.2f})"
                )
        if len(candidates) > 1:
            a, b = candidates
            reasons.append(
                f"ambiguous: {a.task_type} {a.probability:.2f} vs {b.task_type} {b.probability:.2f}"
            )
        return reasons
