"""Relative dates in a memory (issue 30 item 5): "last week", "yesterday", "in two days" mean
nothing without the moment they were said. The stored text is never rewritten (it is the
user's, and a resolved date could be wrong: "last week" said on a Monday); the moment is the
memory's `created_at`, and wherever a memory is shown to a reader — the memory JSON's
`said_on`, the context package, the plugin's search results — a memory that holds a relative
date says "said on YYYY-MM-DD" beside it, so the reader can resolve it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

_NUMBER = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|several|couple of)"
_UNIT = r"(?:minutes?|hours?|days?|weeks?|months?|years?|quarters?)"
_DAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend)"
_PERIOD = rf"(?:week|month|year|quarter|sprint|{_DAY})"
RELATIVE = re.compile(
    r"\b(?:"
    r"yesterday|today|tonight|tomorrow|the day (?:before|after) (?:yesterday|tomorrow)"
    rf"|(?:last|next|this|coming|past) {_PERIOD}"
    rf"|in {_NUMBER} {_UNIT}|{_NUMBER} {_UNIT} (?:ago|from now|later|earlier)"
    r"|(?:earlier|later) (?:today|this (?:week|month|year))|recently|lately|just now|right now"
    r")\b",
    re.IGNORECASE,
)


def relative_phrases(text: str) -> list[str]:
    """The relative date expressions in `text`, as written, in order."""
    return [m.group(0) for m in RELATIVE.finditer(text)]


def said_on(content: str, created_at: datetime) -> str | None:
    """The UTC date the memory was said, when its text holds a relative date; else None."""
    if not RELATIVE.search(content):
        return None
    moment = created_at if created_at.tzinfo else created_at.replace(tzinfo=UTC)
    return moment.astimezone(UTC).date().isoformat()
