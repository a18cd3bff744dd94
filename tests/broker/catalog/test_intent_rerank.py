"""The second-stage re-ranker: its features, its fit, and that its stored weights reproduce."""

from __future__ import annotations

import evalset
import numpy as np
from mcp.types import Tool

from neuralgentics.app.process import shared_embedder
from neuralgentics.broker.intent import IntentMatcher, rerank
from neuralgentics.broker.intent.text import analyze, spell_out


def _tool(name: str, params: dict[str, bool], description: str = "") -> Tool:
    schema = {
        "type": "object",
        "properties": {p: {"type": "string"} for p in params},
        "required": [p for p, required in params.items() if required],
    }
    return Tool(name=name, description=description or name, input_schema=schema)


def test_values_in_an_intent_are_recognised_by_their_shape() -> None:
    kinds = {
        "details of issue #812": {"id"},
        "cat src/main.py": {"path"},
        "open https://example.com/a": {"url"},
        "share it with ana@corp.io": {"email"},
        'post "deploy done" in #releases': {"text", "channel"},
        "comment on PAY-9: fixed in main": {"id", "text"},
        "which buckets do we have": set(),
    }
    for intent, expected in kinds.items():
        assert set(rerank.intent_facts(intent, analyze(intent)).value_kinds) == expected, intent


def test_sibling_features_tell_a_list_from_a_get() -> None:
    get = rerank.tool_facts("gh", _tool("get_issue", {"repo": True, "issue_number": True}))
    lst = rerank.tool_facts("gh", _tool("list_issues", {"repo": True, "state": False}))
    col = rerank.FEATURES.index
    with_number = rerank.intent_facts("issue 42 in acme/api", analyze("issue 42 in acme/api"))
    plural = rerank.intent_facts("open issues in acme/api", analyze("open issues in acme/api"))
    # A number fits get_issue's issue_number; without one, get_issue lacks what it needs.
    assert rerank.features(with_number, get, 0.0)[col("value_fit")] > 0
    assert rerank.features(plural, get, 0.0)[col("needs_missing_id")] == 1.0
    assert rerank.features(plural, lst, 0.0)[col("needs_missing_id")] == 0.0
    # "issues" agrees with list_issues' plural and disagrees with get_issue's singular.
    assert rerank.features(plural, lst, 0.0)[col("plural_agreement")] == 1.0
    assert rerank.features(plural, get, 0.0)[col("plural_agreement")] == -1.0


def test_a_server_wide_prefix_is_not_a_name_word() -> None:
    names = ["jira_get_issue", "jira_search", "jira_add_comment", "jira_list_projects"]
    shared = rerank.shared_name_words(names)
    facts = rerank.tool_facts("tracker", _tool("jira_search", {"jql": True}), shared)
    assert shared == set(analyze("jira")) and facts.name_words == frozenset(analyze("search"))


def test_fit_learns_a_planted_preference() -> None:
    """Pairs where the right candidate is behind on the first stage but has feature 0 set:
    the fit must give feature 0 a positive weight that puts it ahead, and leave noise small."""
    rng = np.random.default_rng(1)
    groups = []
    for _ in range(200):
        fused = np.array([0.50, 0.52, 0.40])
        feats = np.zeros((3, len(rerank.FEATURES)), dtype=np.float32)
        feats[0, 0] = 1.0
        feats[:, 1] = rng.normal(size=3)
        groups.append((fused, feats, 0))
    w = rerank.fit(groups, l2=0.01)
    assert w[0] > 0.02 and abs(w[1]) < abs(w[0]) / 2, w


def test_tracker_issue_keys_read_as_issue_but_standards_do_not() -> None:
    assert "web" not in analyze("move WEB-7 to done") and "issu" in analyze("move WEB-7 to done")
    assert spell_out("log 2h on PAY-12") == "log 2h on issue PAY-12"
    assert "issu" not in analyze("UTF-8 with SHA-256, see CVE-2024-1234")


def test_stored_weights_are_what_the_fit_gives_on_the_training_intents(
    eval_catalog, shared_embeddings
) -> None:
    """bench/intent.py --fit-rerank reproduces rerank.WEIGHTS (training sets only)."""
    tools, summaries = eval_catalog
    zero = np.zeros(len(rerank.FEATURES), dtype=np.float32)
    matcher = IntentMatcher(
        tools, summaries, cache=shared_embeddings, rerank_weights=zero, embedder=shared_embedder()
    )
    intents = evalset.intents(evalset.TUNING) + evalset.intents(evalset.TRAIN_2)
    groups = [matcher.rerank_example(i, s, t) for i, s, t in intents]
    # Tolerance for float noise between embedding backends; a weight not pasted back after a
    # refit (they are 0.01-0.05) still fails.
    np.testing.assert_allclose(rerank.fit(groups), rerank.WEIGHTS, atol=2e-3)


def test_the_re_ranker_only_corrects_the_first_stages_best(eval_matcher) -> None:
    """A tool outside the first stage's best RERANK_DEPTH keeps its first-stage score."""
    zero = np.zeros(len(rerank.FEATURES), dtype=np.float32)
    tools, summaries = evalset.catalog()
    plain = IntentMatcher(
        tools, summaries, cache=eval_matcher._cache, rerank_weights=zero, embedder=shared_embedder()
    )
    intent = "what's inside the logs bucket on s3"
    k = rerank.RERANK_DEPTH
    before = {(c.server, c.tool): c.score for c in plain.match(intent, top_k=40).candidates}
    pool = set(list(before)[:k])
    after = {(c.server, c.tool): c.score for c in eval_matcher.match(intent, top_k=40).candidates}
    changed = {key for key in pool if key in after and abs(after[key] - before[key]) > 1e-6}
    assert changed, "the re-ranker corrected nothing in its pool"
    for key, score in after.items():
        if key not in pool and key in before:
            assert score == before[key], key
