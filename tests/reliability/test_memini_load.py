"""memini-core under load: 8 concurrent clients mixing add/query/trust/relate against a real
`neuralgentics serve` on each store. No 5xx, no lost write, trust sums exact."""

from __future__ import annotations

import pytest

from reliability.conftest import LOAD_SECONDS, MIN_OPS
from reliability.loadmix import run_load, verify
from reliability.memini_proc import clean_env, running


@pytest.mark.parametrize("store_env", ["sqlite", "postgres"], indirect=True)
def test_eight_clients_lose_nothing_and_never_see_a_5xx(store_env, tmp_path) -> None:
    env = clean_env(tmp_path / "home", **store_env)
    with running(env, tmp_path / "serve.log") as memini:
        ledger = run_load([memini.url], LOAD_SECONDS, clients=8, min_ops=MIN_OPS)
        assert not ledger.failures, ledger.failures[:5]
        assert ledger.requests >= 8 * MIN_OPS
        assert (
            ledger.ops["add"]
            and ledger.ops["query"]
            and ledger.ops["trust"]
            and ledger.ops["relate"]
        )
        counts = verify(memini.url, ledger)
    print("load", "postgres" if store_env else "sqlite", ledger.summary(), counts)
