"""32 MCP clients over streamable HTTP calling three downstream servers through the broker.

Used by tests/reliability/test_broker_load.py (short) and bench/load.py (60 s)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import anyio
import httpx2
import mcp.types as types
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from reliability.broker_proc import EVERYTHING, owner, probe, time_server


def three_servers() -> tuple[dict, list[tuple[str, str, dict]]]:
    """(servers config, the calls the load makes): time, probe and server-everything (or a 2nd probe)."""
    servers = {"time": time_server(), "probe": probe()}
    calls = [
        ("time", "get_current_time", {"timezone": "UTC"}),
        ("probe", "echo", {"text": "hello"}),
    ]
    if EVERYTHING.exists():
        servers["everything"] = {
            "command": str(EVERYTHING),
            "args": ["stdio"],
            "summary": "everything",
        }
        calls.append(("everything", "echo", {"message": "hello"}))
    else:
        servers["probe2"] = probe()
        calls.append(("probe2", "echo", {"text": "hello"}))
    return servers, calls


@dataclass
class BrokerLedger:
    calls: int = 0
    errors: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    per_server: dict[str, int] = field(default_factory=dict)
    elapsed: float = 0.0

    def percentile(self, p: float) -> float:
        xs = sorted(self.latencies)
        return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else 0.0

    def summary(self) -> dict:
        return {
            "seconds": round(self.elapsed, 1),
            "calls": self.calls,
            "calls_per_s": round(self.calls / self.elapsed, 1) if self.elapsed else 0.0,
            "p50_ms": round(self.percentile(0.5) * 1000, 1),
            "p99_ms": round(self.percentile(0.99) * 1000, 1),
            "errors": len(self.errors),
            "per_server": self.per_server,
        }


async def _caller(
    n: int, base: str, calls, deadline: float, ledger: BrokerLedger, min_calls: int
) -> None:
    rng = random.Random(n)
    async with (
        httpx2.AsyncClient(
            headers=owner(base, **{"X-Neuralgentics-Role": "coder"}), timeout=60
        ) as http,
        streamable_http_client(base + "/mcp", http_client=http) as (r, w),
        ClientSession(r, w) as session,
    ):
        await session.initialize()
        made = 0
        # every caller calls, however long the 32 initializes took: all sessions are in use
        while made < min_calls or time.monotonic() < deadline:
            made += 1
            server, tool, args = rng.choice(calls)
            t0 = time.perf_counter()
            try:
                result = await session.call_tool(
                    "mcp_router_call", {"server": server, "tool": tool, "arguments": args}
                )
            except Exception as exc:  # noqa: BLE001 - every failure is counted and reported
                ledger.errors.append(f"{server}/{tool}: {exc!r}")
                continue
            ledger.latencies.append(time.perf_counter() - t0)
            ledger.calls += 1
            ledger.per_server[server] = ledger.per_server.get(server, 0) + 1
            body = "".join(c.text for c in result.content if isinstance(c, types.TextContent))
            if result.is_error or not body:
                ledger.errors.append(f"{server}/{tool}: isError {body[:200]}")


async def run_broker_load(
    base: str, calls, seconds: float, callers: int = 32, min_calls: int = 2
) -> BrokerLedger:
    """`callers` MCP sessions calling for `seconds`, each at least `min_calls` times."""
    ledger = BrokerLedger()
    t0 = time.monotonic()
    async with anyio.create_task_group() as tg:
        for n in range(callers):
            tg.start_soon(_caller, n, base, calls, t0 + seconds, ledger, min_calls)
    ledger.elapsed = time.monotonic() - t0
    return ledger
