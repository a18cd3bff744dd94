"""The memini-core load mix: concurrent clients adding, querying, trusting and relating,
with a ledger of every acknowledged write so the end state can be checked exactly.

Used by tests/reliability (short runs) and bench/load.py (60 s runs).
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import httpx

from neuralgentics.memini.provenance import AGENT_EVENTS, band
from neuralgentics.memini.store.base import TrustChange, from_milli
from neuralgentics.memini.trust import DEFAULT_TRUST, EVENTS, EVENTS_MILLI
from reliability import loopback
from reliability.memini_proc import auth

HOT = 8  # memories every client adjusts trust on, so trust updates contend
WORDS = "cache retry index schema token router queue parser budget ledger socket vector".split()


@dataclass
class Ledger:
    """Everything the service acknowledged, and everything that went wrong."""

    added: dict[str, str] = field(default_factory=dict)  # id -> content
    trust_calls: Counter[str] = field(default_factory=Counter)  # id -> acknowledged events
    relations: dict[str, str] = field(default_factory=dict)  # relationship id -> source id
    statuses: Counter[int] = field(default_factory=Counter)
    ops: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # 5xx and transport errors, with bodies
    failure_starts: list[float] = field(default_factory=list)  # monotonic send time of each
    hot: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    elapsed: float = 0.0
    stop: threading.Event = field(default_factory=threading.Event)  # ends the run early

    def record(self, op: str, status: int, seconds: float) -> None:
        with self.lock:
            self.statuses[status] += 1
            self.ops[op] += 1
            self.latencies.append(seconds)

    @property
    def requests(self) -> int:
        return sum(self.statuses.values())

    def percentile(self, p: float) -> float:
        xs = sorted(self.latencies)
        return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else 0.0

    def summary(self) -> dict:
        return {
            "seconds": round(self.elapsed, 1),
            "requests": self.requests,
            "requests_per_s": round(self.requests / self.elapsed, 1) if self.elapsed else 0.0,
            "p50_ms": round(self.percentile(0.50) * 1000, 1),
            "p99_ms": round(self.percentile(0.99) * 1000, 1),
            "statuses": dict(sorted(self.statuses.items())),
            "ops": dict(sorted(self.ops.items())),
            "memories_added": len(self.added),
            "trust_events": sum(self.trust_calls.values()),
            "relationships": len(self.relations),
            "failures": len(self.failures),
        }


def _content(client: int, rng: random.Random) -> str:
    words = " ".join(rng.choice(WORDS) for _ in range(6))
    return f"client {client} note {uuid.uuid4().hex[:12]}: the {words} works this way"


class Worker:
    def __init__(
        self,
        n: int,
        urls: Sequence[str],
        ledger: Ledger,
        deadline: float,
        headers: dict[str, str] | None = None,
        tolerate_5xx: bool = False,
        min_ops: int = 0,
    ) -> None:
        self.n, self.ledger, self.deadline = n, ledger, deadline
        self.min_ops = min_ops
        self.rng = random.Random(n)
        self.tolerate_5xx = tolerate_5xx
        self.clients = [
            loopback.client(base_url=u, timeout=30, headers=headers or auth(u)) for u in urls
        ]
        self.mine: list[str] = []

    def _send(self, op: str, method: str, path: str, **kw) -> httpx.Response | None:
        client = self.rng.choice(self.clients)  # spread over every process (scale-out)
        sent, t0 = time.monotonic(), time.perf_counter()
        try:
            r = client.request(method, path, **kw)
        except httpx.TransportError as exc:
            with self.ledger.lock:
                self.ledger.failures.append(f"{op}: {exc.__class__.__name__}: {exc}")
                self.ledger.failure_starts.append(sent)
            return None
        self.ledger.record(op, r.status_code, time.perf_counter() - t0)
        if r.status_code >= 500:
            with self.ledger.lock:
                self.ledger.failures.append(f"{op} {path}: {r.status_code} {r.text[:300]}")
                self.ledger.failure_starts.append(sent)
            return None
        return r

    def add(self) -> None:
        content = _content(self.n, self.rng)
        r = self._send(
            "add",
            "POST",
            "/memory/add",
            json={"content": content, "project": "load", "tags": [f"c{self.n}"]},
        )
        if r is not None and r.status_code == 201:
            mid = r.json()["memory"]["id"]
            self.mine.append(mid)
            with self.ledger.lock:
                self.ledger.added[mid] = content
                if len(self.ledger.hot) < HOT:
                    self.ledger.hot.append(mid)

    def query(self) -> None:
        text = " ".join(self.rng.choice(WORDS) for _ in range(3))
        self._send(
            "query", "POST", "/memory/query", json={"query": text, "top_k": 5, "project": "load"}
        )

    def trust(self) -> None:
        with self.ledger.lock:
            hot = list(self.ledger.hot)
        if not hot:
            return self.add()
        mid = self.rng.choice(hot)
        event = self.rng.choice(list(EVENTS))
        r = self._send(
            "trust", "POST", f"/memory/{mid}/trust", json={"event": event, "actor": f"c{self.n}"}
        )
        if r is not None and r.status_code == 200:
            with self.ledger.lock:
                self.ledger.trust_calls[mid] += 1

    def relate(self) -> None:
        if len(self.mine) < 2:
            return self.add()
        a, b = self.rng.sample(self.mine, 2)
        r = self._send(
            "relate",
            "POST",
            "/memory/relationship",
            json={"source_id": a, "target_id": b, "relationship_type": "RELATED_TO"},
        )
        if r is not None and r.status_code == 201:
            with self.ledger.lock:
                self.ledger.relations[r.json()["id"]] = a

    def run(self) -> None:
        ops = [self.add] * 3 + [self.query] * 3 + [self.trust] * 3 + [self.relate]
        done = 0
        try:
            while (
                done < self.min_ops or time.monotonic() < self.deadline
            ) and not self.ledger.stop.is_set():
                self.rng.choice(ops)()
                done += 1
                if not self.tolerate_5xx and self.ledger.failures:
                    return
        finally:
            for c in self.clients:
                c.close()


def run_load(
    urls: Sequence[str],
    seconds: float,
    clients: int = 8,
    *,
    headers: dict[str, str] | None = None,
    tolerate_5xx: bool = False,
    ledger: Ledger | None = None,
    min_ops: int = 0,
) -> Ledger:
    """`clients` threads for `seconds`, each picking add/query/trust/relate at random, and
    each making at least `min_ops` requests (the first ones wait for the model to load: a short
    run on a busy machine still mixes every kind of request from every client)."""
    ledger = ledger or Ledger()
    t0 = time.monotonic()
    deadline = t0 + seconds
    workers = [
        Worker(i, urls, ledger, deadline, headers, tolerate_5xx, min_ops) for i in range(clients)
    ]
    threads = [threading.Thread(target=w.run, name=f"load-{i}") for i, w in enumerate(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 120)
    ledger.elapsed = time.monotonic() - t0
    return ledger


def _replay(history: list[dict]) -> float:
    """The score the events lead to, in exact thousandths (stores keep trust that way), each
    within its band (an agent's events: memini/provenance.py)."""
    milli = round(DEFAULT_TRUST * 1000)
    for e in history:
        floor, ceiling = band("agent" if e["event"] in AGENT_EVENTS else "user")
        change = TrustChange(e["memory_id"], e["event"], from_milli(EVENTS_MILLI[e["event"]]))
        milli = replace(change, floor_milli=floor, ceiling_milli=ceiling).bounded(milli)
        score = milli / 1000
        assert score == e["score_after"], (
            f"event {e['id']}: replay {score} != stored {e['score_after']}"
        )
    return milli / 1000


def verify(
    url: str, ledger: Ledger, headers: dict[str, str] | None = None, exact_rows: bool = True
) -> dict:
    """Check the service holds exactly what it acknowledged. Returns counts for the report."""
    with loopback.client(base_url=url, timeout=60, headers=headers or auth(url)) as c:
        stored: dict[str, dict] = {}
        offset = 0
        while True:
            page = c.get(
                "/memory",
                params={
                    "project": "load",
                    "include_superseded": True,
                    "limit": 1000,
                    "offset": offset,
                },
            ).json()
            stored.update({m["id"]: m for m in page["items"]})
            offset += len(page["items"])
            if not page["items"] or offset >= page["total"]:
                break
        missing = sorted(set(ledger.added) - set(stored))
        assert not missing, f"{len(missing)} acknowledged memories are gone, e.g. {missing[:3]}"
        wrong = [mid for mid, text in ledger.added.items() if stored[mid]["content"] != text]
        assert not wrong, f"content changed for {wrong[:3]}"
        if exact_rows:
            extra = sorted(set(stored) - set(ledger.added))
            assert not extra, f"{len(extra)} memories nobody was told about, e.g. {extra[:3]}"
        events = 0
        for mid in ledger.hot:
            detail = c.get(f"/memory/{mid}").json()
            every = [e for e in detail["trust_history"] if e["event"] in EVENTS]
            # update detection may link a newer look-alike as contradicting it: that event is
            # the service's, not a client's (the score below replays all of them)
            history = [e for e in every if not (e["note"] or "").endswith("(update detection)")]
            # after a crash a write may land whose reply was cut: more is fine, fewer is loss
            stored_ok = (
                len(history) == ledger.trust_calls[mid]
                if exact_rows
                else len(history) >= ledger.trust_calls[mid]
            )
            assert stored_ok, (
                f"{mid}: {ledger.trust_calls[mid]} trust events acknowledged, {len(history)} stored"
            )
            assert _replay(every) == detail["memory"]["trust_score"]
            events += len(history)
        edges: set[str] = set()
        for source in set(ledger.relations.values()):
            edges.update(r["id"] for r in c.get(f"/memory/{source}").json()["relationships"])
        lost = set(ledger.relations) - edges
        assert not lost, f"{len(lost)} acknowledged relationships are gone"
        # Every stored memory is findable by meaning: no row without its vector (superseded
        # ones too: update detection may have hidden a look-alike from default queries).
        for mid in list(ledger.added)[:: max(1, len(ledger.added) // 20)]:
            hits = c.post(
                "/memory/query",
                json={
                    "query": ledger.added[mid],
                    "top_k": 100,
                    "project": "load",
                    "include_superseded": True,
                },
            ).json()["hits"]
            mine = [h for h in hits if h["memory"]["id"] == mid]
            # similarity 1.0: the vector is indexed (trusted look-alikes may still rank above it)
            assert mine and (mine[0]["why"]["similarity"] or 0) > 0.999, (
                f"{mid} is stored but its vector is not searchable: {mine[:1]} / top {[h['why'] for h in hits[:2]]}"
            )
    return {
        "memories": len(stored),
        "trust_events_checked": events,
        "relationships": len(ledger.relations),
    }
