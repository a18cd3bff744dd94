"""The broker under load: 32 MCP clients over streamable HTTP calling three downstream servers.
No error, and no process or file descriptor left behind (counted before and after)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from reliability import loopback
from reliability.broker_proc import descendants, open_fds, owner, serving, write_config
from reliability.brokerload import run_broker_load, three_servers
from reliability.conftest import LOAD_SECONDS


def _warm(base: str, calls) -> None:
    """One call to each server, all at once: every downstream is started before the counts."""

    def call(server: str, tool: str, args: dict) -> httpx.Response:
        return loopback.post(
            base + "/call",
            headers=owner(base, **{"X-Neuralgentics-Role": "coder"}),
            timeout=60,
            json={"server": server, "tool": tool, "arguments": args},
        )

    with ThreadPoolExecutor(len(calls)) as pool:
        for r in pool.map(lambda c: call(*c), calls):
            assert r.status_code == 200, r.text


def _settled_fds(pid: int, before: int) -> int:
    # sockets of the closed sessions take a moment to be released by the event loop
    deadline = time.monotonic() + 10
    while (n := open_fds(pid)) > before and time.monotonic() < deadline:
        time.sleep(0.2)
    return n


async def test_32_callers_over_streamable_http_no_error_no_leak(tmp_path) -> None:
    servers, calls = three_servers()
    config = write_config(tmp_path / "broker.yaml", servers)
    with serving(config, tmp_path) as (base, proc):
        _warm(base, calls)
        kids_before, fds_before = descendants(proc.pid), open_fds(proc.pid)
        ledger = await run_broker_load(base, calls, LOAD_SECONDS, callers=32, min_calls=2)
        assert not ledger.errors, ledger.errors[:5]
        assert ledger.calls >= 32 * 2 and len(ledger.per_server) == 3, ledger.per_server
        fds_after = _settled_fds(proc.pid, fds_before)
        kids_after = descendants(proc.pid)
        assert kids_after == kids_before, "downstream processes were started or left behind"
        assert fds_after <= fds_before, f"{fds_after - fds_before} file descriptors leaked"
        print(
            "broker-load",
            ledger.summary(),
            {"fds": (fds_before, fds_after), "processes": (len(kids_before), len(kids_after))},
        )
