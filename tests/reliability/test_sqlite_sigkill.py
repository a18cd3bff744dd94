"""SQLite: `neuralgentics serve` killed with SIGKILL in the middle of writes. On restart the
database passes integrity_check and every write the service acknowledged is there."""

from __future__ import annotations

import signal
import sqlite3
import threading
import time

from reliability.loadmix import Ledger, run_load, verify
from reliability.memini_proc import clean_env, running, start, stop


def test_sigkill_mid_write_loses_no_acknowledged_write(tmp_path) -> None:
    env = clean_env(tmp_path / "home")
    log = tmp_path / "serve.log"
    memini = start(env, log)
    ledger = Ledger()
    try:
        load = threading.Thread(
            target=run_load,
            args=([memini.url], 60),
            kwargs={"clients": 6, "tolerate_5xx": True, "ledger": ledger},
        )
        load.start()
        # kill once writes are flowing: at least 40 acknowledged adds, bounded in time
        deadline = time.monotonic() + 60
        while len(ledger.added) < 40 and time.monotonic() < deadline:
            time.sleep(0.05)
        stop(memini.proc, signal.SIGKILL)
        assert memini.proc.returncode == -signal.SIGKILL
        ledger.stop.set()
        load.join(60)
    finally:
        stop(memini.proc)
    acknowledged = len(ledger.added)
    assert acknowledged >= 40, f"only {acknowledged} writes before the kill"
    assert not [f for f in ledger.failures if " 5" in f[:40]], "a 5xx before the kill"

    db = tmp_path / "home" / "memini.db"
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    with running(env, log) as again:
        # rows written but not acknowledged (the kill cut the reply) may exist; none may be missing
        counts = verify(again.url, ledger, exact_rows=False)
    print(
        "sigkill",
        {"acknowledged": acknowledged, **counts, "trust": sum(ledger.trust_calls.values())},
    )
