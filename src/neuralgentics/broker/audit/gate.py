"""Flood gate: a caller cannot push earlier audit records out by sending refusals in a loop.

Rotation keeps ``keep`` files of ``max_bytes``; a caller who could write records at no cost
could rotate the history away (docs/reliability.md: 40 huge denied calls did it in 3 s).
Records are bounded in size (``record.py``), and here the records a caller can force without
any real work — ``denied`` and ``invalid`` (malformed, unknown server or tool) — are limited
per credential by a token bucket: ``burst`` at once, then ``per_second``. Past that a call
is still answered (with the same refusal), and it is *counted*: one ``summary`` record per
credential says how many were suppressed, of which outcomes, servers and tools, from when to
when. Every request is accounted for; the history stays.

Calls that reach a server (ok, tool errors, timeouts) are never suppressed: they are the
trail the audit exists for.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from neuralgentics.broker.audit.record import AuditRecord, cut
from neuralgentics.text import plural

GATED_OUTCOMES = frozenset({"denied", "invalid"})
# While a flood goes on, a summary is written at least this often (seconds).
SUMMARY_EVERY = 10.0
_TOP = 5  # servers/tools named in a summary
_MAX_TARGETS = 1000  # distinct server/tool pairs counted per summary


@dataclass
class _Bucket:
    tokens: float
    stamp: float
    suppressed: Counter[str] = field(default_factory=Counter)
    targets: Counter[str] = field(default_factory=Counter)
    first: str | None = None
    first_at: float = 0.0
    last: str | None = None
    role: str | None = None
    front: str = ""


class FloodGate:
    def __init__(
        self,
        burst: int = 100,
        per_second: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.burst = burst
        self.per_second = per_second
        self.clock = clock
        self._buckets: dict[str, _Bucket] = {}

    def admit(self, rec: AuditRecord) -> list[AuditRecord]:
        """The records to write for ``rec``: ``[rec]``, ``[summary, rec]``, ``[summary]`` or ``[]``."""
        key = rec.credential or rec.front or "-"
        if rec.outcome not in GATED_OUTCOMES:
            pending = self._buckets.get(key) if self._buckets else None
            if (
                pending is not None
                and pending.suppressed
                and self.clock() - pending.first_at >= SUMMARY_EVERY
            ):
                return [*self._summary(key, pending), rec]
            return [rec]
        now = self.clock()
        b = self._buckets.get(key)
        if b is None:
            if len(self._buckets) > 10_000:  # credentials are few; never let the map grow
                self._buckets.clear()
            b = self._buckets[key] = _Bucket(tokens=float(self.burst), stamp=now)
        b.tokens = min(float(self.burst), b.tokens + (now - b.stamp) * self.per_second)
        b.stamp = now
        out: list[AuditRecord] = []
        if b.tokens >= 1.0:
            b.tokens -= 1.0
            out.append(rec)
        else:
            if not b.suppressed:
                b.first, b.first_at = rec.time, now
            b.suppressed[rec.outcome] += 1
            target = f"{cut(rec.server, 40)}/{cut(rec.tool, 40)}"
            if target in b.targets or len(b.targets) < _MAX_TARGETS:
                b.targets[target] += 1
            b.last, b.role, b.front = rec.time, rec.role, rec.front
        # At most one summary per SUMMARY_EVERY while a flood goes on (and one at shutdown).
        if b.suppressed and now - b.first_at >= SUMMARY_EVERY:
            out = self._summary(key, b) + out
        return out

    def flush(self) -> list[AuditRecord]:
        """Summaries of everything suppressed so far (at shutdown)."""
        out: list[AuditRecord] = []
        for key, b in self._buckets.items():
            out += self._summary(key, b)
        return out

    @staticmethod
    def _summary(key: str, b: _Bucket) -> list[AuditRecord]:
        if not b.suppressed:
            return []
        total = sum(b.suppressed.values())
        rec = AuditRecord(
            role=b.role,
            server="*",
            tool="*",
            outcome="suppressed",
            kind="summary",
            credential=key,
            front=b.front,
            args={
                "suppressed": total,
                "by_outcome": dict(b.suppressed),
                "top_targets": dict(b.targets.most_common(_TOP)),
                "first": b.first,
                "last": b.last,
            },
            error=f"{plural(total, 'refused request')} over the flood limit "
            f"{'was' if total == 1 else 'were'} answered but not recorded one by one",
        )
        b.suppressed.clear()
        b.targets.clear()
        b.first = b.last = None
        return [rec]
