"""Broker faults on a real `neuralgentics broker serve`: a downstream that writes garbage to
stdout, one that floods stderr, SIGHUP during 16 in-flight calls. (Killed-mid-call, hanging
downstreams and the broker's own SIGKILL are covered in tests/broker; see docs/reliability.md.)"""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import yaml

from reliability import loopback
from reliability.broker_proc import descendants, owner, probe, serving, time_server, write_config

CODER = {"X-Neuralgentics-Role": "coder"}


def call(base: str, server: str, tool: str, timeout: float = 60, **arguments) -> httpx.Response:
    return loopback.post(
        base + "/call",
        headers=owner(base, **CODER),
        timeout=timeout,
        json={"server": server, "tool": tool, "arguments": arguments},
    )


def text(r: httpx.Response) -> str:
    return "".join(c.get("text", "") for c in r.json().get("content", []))


def test_garbage_on_stdout_and_a_flood_on_stderr_are_survived(tmp_path) -> None:
    config = write_config(
        tmp_path / "broker.yaml",
        {"probe": probe(call_timeout=10), "noisy": probe("--flood-stderr", call_timeout=20)},
    )
    with serving(config, tmp_path) as (base, proc):
        assert text(call(base, "probe", "echo", text="before")) == "before"
        r = call(base, "probe", "garbage", lines=5)
        # the garbage lines are dropped by the framing; the real answer still comes through
        assert r.status_code == 200 and text(r) == "after garbage", r.text
        for i in range(5):
            assert text(call(base, "probe", "echo", text=f"after {i}")) == f"after {i}"

        for i in range(20):  # a stderr pipe fills in milliseconds if nobody drains it
            assert text(call(base, "noisy", "echo", text=str(i))) == str(i)
        r = call(base, "noisy", "flood", mib=8)
        assert r.status_code == 200 and text(r) == "flooded 8 MiB"
        rss_kib = int(
            [ln for ln in open(f"/proc/{proc.pid}/status") if ln.startswith("VmRSS")][0].split()[1]
        )
        assert rss_kib < 1024 * 1024, f"broker holds {rss_kib} KiB after a stderr flood"
        assert proc.poll() is None
        print("stderr-flood", {"broker_rss_mib": rss_kib // 1024})


def test_sighup_during_16_in_flight_calls_loses_none(tmp_path) -> None:
    config = write_config(
        tmp_path / "broker.yaml", {"probe": probe(call_timeout=30), "time": time_server()}
    )
    with serving(config, tmp_path) as (base, proc):
        pid_before = text(call(base, "probe", "pid"))
        with ThreadPoolExecutor(16) as pool:
            futures = [pool.submit(call, base, "probe", "wait", 60, seconds=2) for _ in range(16)]
            deadline = time.monotonic() + 10
            while True:  # all 16 are inside the downstream before the signal
                inflight = [
                    s
                    for s in loopback.get(base + "/servers", headers=owner(base)).json()
                    if s["name"] == "probe"
                ][0]["inflight"]
                if inflight == 16 or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            assert inflight == 16
            data = yaml.safe_load(config.read_text())
            data["servers"]["extra"] = time_server()
            config.write_text(yaml.safe_dump(data))
            os.kill(proc.pid, signal.SIGHUP)
            answers = [f.result(timeout=60) for f in futures]
        assert [a.status_code for a in answers] == [200] * 16
        assert [text(a) for a in answers] == ["waited 2.0"] * 16
        assert "extra" in {
            s["name"] for s in loopback.get(base + "/servers", headers=owner(base)).json()
        }
        assert text(call(base, "probe", "pid")) == pid_before  # unchanged server kept its process
        assert proc.poll() is None and descendants(proc.pid)
