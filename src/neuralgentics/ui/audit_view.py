"""The broker's audit trail as the dashboard shows it: filtered, newest first, with facets
for the filter menus and a latency histogram over every matching record (not just the page).

Records are read with the broker's own sink (`broker.audit.open_sink`), from the broker
config memini-core sees (`$NEURALGENTICS_CONFIG_DIR/broker.yaml`), exactly as
`neuralgentics broker audit` reads them.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from neuralgentics.broker import AuditRecord, load_config, open_sink
from neuralgentics.config import Settings

# The newest records kept in memory per request; older ones only count towards totals.
MAX_SCANNED = 100_000
# What the broker writes (broker/service.py), offered in the filter even before it happens.
KNOWN_OUTCOMES = frozenset({"ok", "denied", "error", "tool_error", "timeout", "cancelled"})
# Upper bounds (ms) of the latency histogram's bins: roughly log-spaced, 1-2-5 steps.
BOUNDS_MS: tuple[float, ...] = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)


@dataclass
class AuditFilter:
    role: str | None = None
    server: str | None = None
    outcome: str | None = None
    tool: str | None = None

    def matches(self, r: AuditRecord) -> bool:
        # An empty role filter value "-" selects records without a role.
        if self.role is not None and (r.role or "-") != self.role:
            return False
        if self.server is not None and r.server != self.server:
            return False
        if self.outcome is not None and r.outcome != self.outcome:
            return False
        return self.tool is None or self.tool.lower() in r.tool.lower()


@dataclass
class AuditView:
    source: str
    total: int
    matched: int
    records: list[dict[str, Any]]
    facets: dict[str, list[str]]
    histogram: list[dict[str, Any]]
    outcomes: dict[str, int] = field(default_factory=dict)
    error: str | None = None


def histogram(latencies: list[float]) -> list[dict[str, Any]]:
    """Counts per bin; each bin is (previous bound, bound], the last one open-ended."""
    counts = [0] * (len(BOUNDS_MS) + 1)
    for ms in latencies:
        i = next((k for k, b in enumerate(BOUNDS_MS) if ms <= b), len(BOUNDS_MS))
        counts[i] += 1
    bins = []
    low = 0.0
    for i, n in enumerate(counts):
        high = BOUNDS_MS[i] if i < len(BOUNDS_MS) else None
        bins.append({"from_ms": low, "to_ms": high, "count": n})
        low = high if high is not None else low
    return bins


def broker_config_path(settings: Settings) -> Path:
    """The broker config the served memini-core sees (the broker's default file)."""
    return settings.config_dir / "broker.yaml"


def read_audit(flt: AuditFilter, settings: Settings, limit: int = 200) -> AuditView:
    cfg = load_config(broker_config_path(settings), missing_ok=True)
    sink = open_sink(cfg.audit, settings)
    source = str(getattr(sink, "path", cfg.audit.sink))
    total = 0
    roles: set[str] = set()
    servers: set[str] = set()
    outcomes: Counter[str] = Counter()
    seen_outcomes: set[str] = set()
    latencies: list[float] = []
    newest: deque[AuditRecord] = deque(maxlen=min(limit, MAX_SCANNED))
    try:
        for rec in sink.read():
            total += 1
            roles.add(rec.role or "-")
            servers.add(rec.server)
            seen_outcomes.add(rec.outcome)
            if not flt.matches(rec):
                continue
            outcomes[rec.outcome] += 1
            latencies.append(float(rec.latency_ms or 0.0))
            newest.append(rec)
    finally:
        sink.close()
    return AuditView(
        source=source,
        total=total,
        matched=len(latencies),
        records=[asdict(r) for r in reversed(newest)],
        facets={
            "role": sorted(roles),
            "server": sorted(servers),
            "outcome": sorted(KNOWN_OUTCOMES | seen_outcomes),
        },
        histogram=histogram(latencies),
        outcomes=dict(outcomes),
    )
