"""Intent matcher: a sentence and a role -> the server/tool to call (and skills to use).

- :class:`IntentMatcher` (hybrid BM25 + MiniLM, fused; exact tool names win)
- :class:`MatchResult` / :class:`ToolMatch` / :class:`SkillMatch`
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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


def __getattr__(name: str) -> Any:
    # The matcher (numpy, bm25s: ~0.1 s) is loaded when first used, not by every module of the
    # package: `broker stdio` imports the intent tools at start but matches only on find_tool.
    if name in __all__:
        from neuralgentics.broker.intent import matcher

        return getattr(matcher, name)
    raise AttributeError(name)
