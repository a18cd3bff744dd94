"""How the keyword and vector rankings are weighed against each other."""

from __future__ import annotations

from neuralgentics.memini.indexer.search import (
    Fusion,
    fuse,
    is_code_like,
    keyword_weight,
    symbol_overlap,
)


def test_code_like_queries_are_told_from_prose() -> None:
    for code in ("parse_config", "User.save()", "parseHTTPResponse", "ring buffer", "a::b x y"):
        assert is_code_like(code) and keyword_weight(code) == 1.0, code
    assert not is_code_like("where do we retry failed payments")
    assert keyword_weight("where do we retry failed payments") == 0.5


def test_a_chunk_both_rankings_like_beats_one_only_a_single_ranking_likes() -> None:
    keyword = [("only-words", 9.0), ("both", 8.5), ("tail-k", 1.0)]
    vector = [("only-meaning", 0.71), ("both", 0.70), ("tail-v", 0.20)]
    fused = fuse("return the stored invoice total", keyword, vector, fusion=Fusion(symbol_boost=0))
    assert max(fused, key=fused.get) == "both"
    # a chunk one list never returned counts as that list's weakest, not as unknown
    assert fused["only-words"] > fused["tail-k"] and fused["only-meaning"] > fused["tail-v"]


def test_a_symbol_named_by_the_query_rises() -> None:
    keyword = [("other", 5.0), ("named", 4.9), ("tail-k", 1.0)]
    vector = [("other", 0.60), ("named", 0.59), ("tail-v", 0.20)]
    symbols = {"other": "Billing.refresh", "named": "Billing.invoice_total"}
    plain = fuse("invoice total of an order", keyword, vector, symbols, Fusion(symbol_boost=0))
    boosted = fuse("invoice total of an order", keyword, vector, symbols)
    assert max(plain, key=plain.get) == "other" and max(boosted, key=boosted.get) == "named"
    assert symbol_overlap("Graph.number_of_nodes", {"number", "nodes"}) == 2 / 3
    assert symbol_overlap(None, {"x"}) == 0.0


def test_one_empty_ranking_keeps_the_other_ranking_order() -> None:
    keyword = [("a", 3.0), ("b", 2.0), ("c", 1.0)]
    fused = fuse("some prose words here", keyword, [], fusion=Fusion(symbol_boost=0))
    assert sorted(fused, key=lambda c: -fused[c]) == ["a", "b", "c"]
    assert fuse("x", [], []) == {}
