"""The trust engine: named events move a memory's trust score, clamped to [0, 1].

Positive sizes are the original API's (docs/memini.md). Negative ones are ours: a user's rejection weighs more than
a confirmation (one "no" should undo more than one "yes" — wrong memories are costlier than
missing ones), and being contradicted by a newer memory costs as much as a confirmation gains.
"""

from __future__ import annotations

from neuralgentics.memini.errors import InvalidInput
from neuralgentics.memini.store.base import TrustChange, from_milli

DEFAULT_TRUST = 0.5
# In thousandths, the unit the stores compute in (exact: no float drift over many events).
EVENTS_MILLI: dict[str, int] = {
    "agent_used": +50,
    "user_confirmed": +100,
    "user_rejected": -150,
    "contradicted": -100,
}
EVENTS: dict[str, float] = {name: from_milli(m) for name, m in EVENTS_MILLI.items()}


def trust_change(
    memory_id: str, event: str, *, actor: str | None = None, note: str | None = None
) -> TrustChange:
    if event not in EVENTS:
        raise InvalidInput(
            f"unknown trust event {event!r}; expected one of {', '.join(EVENTS)}", field="event"
        )
    return TrustChange(memory_id, event, EVENTS[event], actor, note)
