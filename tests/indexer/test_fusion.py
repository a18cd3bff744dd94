"""How the keyword and vector rankings are weighed against each other."""

from __future__ import annotations

from neuralgentics.memini.indexer.search import keyword_weight


def test_keyword_ranking_counts_fully_for_code_and_half_for_prose() -> None:
    for code in ("parse_config", "User.save()", "parseHTTPResponse", "ring buffer", "a::b x y"):
        assert keyword_weight(code) == 1.0, code
    assert keyword_weight("where do we retry failed payments") == 0.5
