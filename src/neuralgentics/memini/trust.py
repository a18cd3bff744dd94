"""The trust engine: named events move a memory's trust score, clamped to [0, 1].

Positive sizes are the original API's (docs/memini.md). Negative ones are ours: a user's rejection weighs more than
a confirmation (one "no" should undo more than one "yes" — wrong memories are costlier than
missing ones), and being contradicted by a newer memory costs as much as a confirmation gains.

Who may record which event, and the band an agent's events stay within, are the provenance
rules (memini/provenance.py): an agent's feedback is half a user's, and never lifts a memory
above 0.6 nor pushes it below 0.3.
"""

from __future__ import annotations

from neuralgentics.memini import provenance
from neuralgentics.memini.errors import InvalidInput
from neuralgentics.memini.provenance import USER, Actor
from neuralgentics.memini.store.base import TrustChange, from_milli

DEFAULT_TRUST = 0.5
# In thousandths, the unit the stores compute in (exact: no float drift over many events).
EVENTS_MILLI: dict[str, int] = {
    "agent_used": +50,
    "agent_confirmed": +50,
    "agent_rejected": -50,
    "user_confirmed": +100,
    "user_rejected": -150,
    "contradicted": -100,
}
EVENTS: dict[str, float] = {name: from_milli(m) for name, m in EVENTS_MILLI.items()}


def trust_change(
    memory_id: str,
    event: str,
    *,
    actor: str | None = None,
    note: str | None = None,
    by: Actor = USER,
    origin: str | None = None,
) -> TrustChange:
    """The change `by` makes with `event`. `origin`: recorded instead of `by.kind` (update
    detection is the system's even when an agent's write set it off; it then keeps the agent's
    band, so an agent cannot push a memory below the floor by contradicting it again and
    again)."""
    if event not in EVENTS:
        raise InvalidInput(
            f"unknown trust event {event!r}; expected one of {', '.join(EVENTS)}", field="event"
        )
    agentish = by.kind == "agent" or event in provenance.AGENT_EVENTS
    floor, ceiling = provenance.band("agent" if agentish else "user")
    return TrustChange(
        memory_id,
        event,
        EVENTS[event],
        by.label(actor),
        note,
        origin=origin or by.kind,
        session=by.session,
        floor_milli=floor,
        ceiling_milli=ceiling,
        release=event == "user_confirmed" and by.kind == "user",
    )
