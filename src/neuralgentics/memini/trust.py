"""The trust engine: named events move a memory's trust score, clamped to [0, 1].

Positive sizes are the seed's. Negative ones are ours: a user's rejection weighs more than
a confirmation (one "no" should undo more than one "yes" — wrong memories are costlier than
missing ones), and being contradicted by a newer memory costs as much as a confirmation gains.
"""

from __future__ import annotations

from neuralgentics.memini.errors import InvalidInput
from neuralgentics.memini.store.base import TrustChange

DEFAULT_TRUST = 0.5
EVENTS: dict[str, float] = {
    "agent_used": +0.05,
    "user_confirmed": +0.10,
    "user_rejected": -0.15,
    "contradicted": -0.10,
}


def trust_change(
    memory_id: str, event: str, *, actor: str | None = None, note: str | None = None
) -> TrustChange:
    if event not in EVENTS:
        raise InvalidInput(
            f"unknown trust event {event!r}; expected one of {', '.join(EVENTS)}", field="event"
        )
    return TrustChange(memory_id, event, EVENTS[event], actor, note)
