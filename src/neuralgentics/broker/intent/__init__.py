"""Intent matcher: a sentence and a role -> the server/tool to call (and skills to use).

- :class:`IntentMatcher` (hybrid BM25 + MiniLM, fused; exact tool names win)
- :class:`MatchResult` / :class:`ToolMatch` / :class:`SkillMatch`
"""

from neuralgentics.broker.intent.matcher import (
    DEFAULT_THRESHOLD,
    DEFAULT_TOP_K,
    IntentMatcher,
    MatchResult,
    SkillMatch,
    ToolMatch,
)

__all__ = [
    "DEFAULT_THRESHOLD",
    "DEFAULT_TOP_K",
    "IntentMatcher",
    "MatchResult",
    "SkillMatch",
    "ToolMatch",
]
