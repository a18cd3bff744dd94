"""Audit flood: how much history a caller can push out with refused calls, gate on vs off.

    .venv/bin/python bench/audit_flood.py [--calls 20000] [--name-bytes 4000000]

In one process, one `Broker` (JSONL audit, the default 50 MB x 5 files) takes `--calls` calls
that are refused without any work — a role calling a tool it may not, an unknown server, a
tool name of `--name-bytes` — as fast as they come, twice:

  gate off   the flood gate's budget set beyond the flood (every refusal recorded one by one)
  gate on    the default budget (100 at once, then 10 per second per credential)

Printed per run: records and bytes written, calls/s, the largest line, and the ratio of bytes
written gate-off / gate-on. Then: "seconds to push a 250 MB history out" at the measured rate
— the issue's figure before any fix was 3 s (40 calls with a 4 MB tool name rotated 290 MB).
No downstream server is started: every call is refused before it would be.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from neuralgentics.broker.config import AuditConfig, BrokerConfig, RoleConfig, ServerConfig
from neuralgentics.broker.errors import BrokerError
from neuralgentics.broker.service import Broker
from neuralgentics.config import Settings

HISTORY_BYTES = 50_000_000 * 5  # the default max_bytes x keep


async def flood(calls: int, name_bytes: int, burst: int, per_second: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "audit.jsonl"
        config = BrokerConfig(
            servers={"time": ServerConfig(command=sys.executable, args=["-m", "mcp_server_time"])},
            roles={"reviewer": RoleConfig(allow=["time/get_current_time"])},
            audit=AuditConfig(path=str(path), flood_burst=burst, flood_per_second=per_second),
        )
        big = "t" * name_bytes
        shapes = [
            ("time", "convert_time"),
            ("nope", "nothing"),
            ("time", big),
            ("s" * 100_000, "x"),
        ]
        async with Broker.open(config=config, settings=Settings()) as broker:
            t0 = time.perf_counter()
            for i in range(calls):
                server, tool = shapes[i % len(shapes)]
                try:
                    await broker.call(
                        role="reviewer",
                        server=server,
                        tool=tool,
                        arguments={"i": i},
                        front="rest",
                        credential="token:hostile",
                    )
                except BrokerError:
                    pass
            seconds = time.perf_counter() - t0
        lines = path.read_bytes().splitlines()
    written = sum(len(x) + 1 for x in lines)
    return {
        "records": len(lines),
        "bytes": written,
        "seconds": seconds,
        "calls_per_s": calls / seconds,
        "largest_line": max(len(x) for x in lines),
        "bytes_per_call": written / calls,
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--calls", type=int, default=20_000)
    ap.add_argument("--name-bytes", type=int, default=4_000_000)
    a = ap.parse_args()
    off = asyncio.run(flood(a.calls, a.name_bytes, burst=10**9, per_second=1e9))
    on = asyncio.run(flood(a.calls, a.name_bytes, burst=100, per_second=10.0))
    for label, r in (("gate off", off), ("gate on", on)):
        rate = r["bytes"] / r["seconds"]
        # bytes/s the flood adds while it goes on; the gate's steady state is per_second records
        push_out = (
            HISTORY_BYTES / rate
            if label == "gate off"
            else HISTORY_BYTES / (10.0 * r["largest_line"])
        )
        print(
            f"{label:<9} {a.calls} refused calls in {r['seconds']:.1f} s ({r['calls_per_s']:.0f}/s): "
            f"{r['records']} records, {r['bytes'] / 1e6:.2f} MB, {r['bytes_per_call']:.0f} B/call, "
            f"largest line {r['largest_line']} B; a 250 MB history lasts {push_out:,.0f} s of this flood"
        )
    print(f"ratio bytes written gate-off / gate-on: {off['bytes'] / on['bytes']:.0f}x")


if __name__ == "__main__":
    main()
