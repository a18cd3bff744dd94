"""Context packages: real tokenizer, real embeddings, memories from an in-process store."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from neuralgentics.orchestrator.errors import InvalidInput
from neuralgentics.orchestrator.memory_client import MemoryHit
from neuralgentics.token_counts import count_tokens

TASK = "add retry with backoff to the HTTP client used by the deploy command"


@pytest.mark.parametrize("budget", [60, 150, 400, 1000, 4000])
def test_package_never_exceeds_the_budget_by_the_real_tokenizer(orch, budget):
    package = orch.context(TASK, "coder", budget)
    assert package.tokens == count_tokens(package.markdown)
    assert package.tokens <= budget
    assert package.budget_tokens == budget


def test_a_generous_budget_holds_routing_skill_capabilities_and_relevant_memories(orch):
    package = orch.context(TASK, "coder", 4000)
    kinds = [i.kind for i in package.items]
    assert kinds[0] == "routing" and "skill" in kinds and "capabilities" in kinds
    assert {i.id for i in package.items if i.kind == "skill"} == {"coder"}
    memory_text = " ".join(i.text for i in package.items if i.kind == "memory")
    assert "retries idempotent requests" in memory_text
    assert "deploy command is defined in cli/deploy.py" in memory_text
    # irrelevant memories stay out
    assert "monolith" not in memory_text
    # ordered by value
    values = [i.value for i in package.items]
    assert values == sorted(values, reverse=True)
    assert (
        "## Context for coder" in package.markdown
        and "### Skill: Implementation" in package.markdown
    )
    assert package.memory_ids == [i.id for i in package.items if i.kind == "memory"]


def test_the_package_points_at_no_matrix_it_does_not_hold(orch):
    """Issue 30 item 5: the capabilities said "checked against the matrix below" in a package
    that holds only its task's routing line (AGENTS.md has the table; a package has none)."""
    for agent in ("build", "coder"):
        package = orch.context(TASK, agent, 4000)
        [caps] = [i.text for i in package.items if i.kind == "capabilities"]
        assert "checked against the routing matrix;" in caps
        assert "below" not in caps and "| task type |" not in package.markdown
    assert "checked against the routing matrix (below)" in orch.agents_md()


def test_a_small_budget_keeps_the_most_valuable_items_and_reports_the_rest(orch):
    big = orch.context(TASK, "coder", 4000)
    small = orch.context(TASK, "coder", 150)
    assert len(small.items) < len(big.items)
    assert small.items[0].kind == "routing"
    assert any("does not fit" in d.reason for d in small.dropped)


def test_superseded_and_low_trust_memories_are_left_out(orch, memory):
    old = memory.remember(
        "The HTTP client retries every request 5 times with a fixed 1 s delay.", trust=0.9
    )
    new = memory.remember(
        "The HTTP client retries idempotent requests with jittered exponential backoff, max 4 tries.",
        trust=0.6,
    )
    memory.supersede(new, old)
    shaky = memory.remember(
        "The HTTP client might retry on 404 responses too, someone said.", trust=0.1
    )
    package = orch.context(TASK, "coder", 4000)
    ids = {i.id for i in package.items}
    assert old not in ids and new in ids and shaky not in ids
    reasons = {d.id: d.reason for d in package.dropped}
    assert old not in reasons  # memini-core does not return a superseded memory at all
    assert "trust 0.10" in reasons[shaky]
    # and a superseded memory recalled anyway (an older record) is left out by the builder
    stale = memory.get(old)
    recalled = [
        MemoryHit(
            stale.id,
            stale.content,
            1.0,
            stale.trust_score,
            stale.source_type,
            stale.superseded_by,
            list(stale.tags),
        )
    ]
    package = orch.context(TASK, "coder", 4000, recalled=recalled)
    assert {d.id: d.reason for d in package.dropped}[old] == f"superseded by {new}"


def test_trust_weights_the_order_of_equally_relevant_memories(orch, memory):
    low = memory.remember(
        "Backoff for the HTTP client retries is configured in http/retry.py (RETRY_BASE_MS).",
        trust=0.3,
    )
    high = memory.remember(
        "HTTP client retry backoff is configured in http/retry.py via RETRY_BASE_MS.", trust=0.95
    )
    package = orch.context(TASK, "coder", 4000)
    order = [i.id for i in package.items if i.kind == "memory"]
    assert high in order
    # near-duplicates: only the more valuable one is kept, the other is reported
    assert low not in order
    assert {d.id: d.reason for d in package.dropped}[low].startswith(
        ("near-duplicate of", "duplicate of")
    )


def test_exact_duplicates_from_memory_and_project_chunks_collapse(orch, memory, embed):
    from neuralgentics.orchestrator.memory_client import ProjectChunk

    text = "The deploy command is defined in cli/deploy.py and calls the release API."
    orch.chunks = lambda q, k: [
        ProjectChunk("chunk-1", "cli/deploy.py", text, 0.0),
        ProjectChunk(
            "chunk-2",
            "http/client.py",
            "def request_with_retry(method, url, tries=3):\n    ...",
            0.0,
        ),
    ]
    same_memory = memory.remember(text)  # already stored: the same id
    package = orch.context(TASK, "coder", 4000)
    ids = [i.id for i in package.items]
    assert "chunk-2" in ids
    # the same fact as a memory and as a chunk appears once; the other is reported
    assert ("chunk-1" in ids) != (same_memory in ids)
    gone = "chunk-1" if same_memory in ids else same_memory
    assert any(d.id == gone and "duplicate" in d.reason for d in package.dropped)
    assert "### Code: http/client.py" in package.markdown
    assert package.markdown.count("cli/deploy.py and calls the release API") == 1


def test_memory_down_still_gives_a_package_with_a_warning(orch, memory):
    memory.down = True
    package = orch.context(TASK, "coder", 1000)
    assert package.memory_ids == []
    assert package.warnings and "unreachable" in package.warnings[0]
    assert any(i.kind == "skill" for i in package.items)


@pytest.mark.parametrize(
    ("agent", "budget", "field"),
    [
        ("coder", 10, "budget_tokens"),
        ("coder", 10**6, "budget_tokens"),
        ("../x", 1000, "agent"),
        ("", 1000, "agent"),
        ("coder", "many", "budget_tokens"),
    ],
)
def test_bad_context_input_is_refused(orch, agent, budget, field):
    with pytest.raises(InvalidInput) as err:
        orch.context(TASK, agent, budget)
    assert err.value.field == field


def test_an_agent_outside_the_roster_gets_routing_advice_and_the_primary_agents_skills(orch):
    # OpenCode's own primary agent is `build`; the plugin asks for its context too
    package = orch.context("write unit tests for the slugify helper", "build", 2000)
    routing = package.items[0]
    assert (
        routing.kind == "routing"
        and "not in the roster" in routing.text
        and "subagent_type `tester`" in routing.text
    )
    skills = [i for i in package.items if i.kind == "skill"]
    assert [s.id for s in skills] == ["tester"] and "primary agent" in skills[0].why


def test_context_json_round_trips(orch):
    data = json.loads(json.dumps(orch.context(TASK, "coder", 800).to_json()))
    assert set(data) >= {
        "task",
        "agent",
        "task_type",
        "budget_tokens",
        "tokens",
        "items",
        "dropped",
        "markdown",
        "memory_ids",
    }
    assert all({"kind", "id", "tokens", "value", "why"} <= set(item) for item in data["items"])


def test_http_context_json_and_markdown(client):
    r = client.post(
        "/orchestrator/context", json={"task": TASK, "agent": "coder", "budget_tokens": 500}
    )
    assert (
        r.status_code == 200
        and r.json()["tokens"] <= 500
        and r.json()["task_type"] == "implementation"
    )
    md = client.post(
        "/orchestrator/context",
        json={"task": TASK, "agent": "coder", "budget_tokens": 500, "format": "markdown"},
    )
    assert md.status_code == 200 and md.text.startswith("## Context for coder")
    assert int(md.headers["x-token-count"]) == count_tokens(md.text)
    bad = client.post(
        "/orchestrator/context", json={"task": TASK, "agent": "coder", "budget_tokens": 5}
    )
    assert bad.status_code == 422 and "budget_tokens" in bad.text


def test_cli_context_works_with_the_memory_service_down(tmp_path, monkeypatch):
    from neuralgentics.cli import app
    from neuralgentics.config import get_settings

    monkeypatch.setenv("NEURALGENTICS_SERVICE_URL", "http://127.0.0.1:9")  # nothing listens there
    get_settings.cache_clear()
    res = CliRunner().invoke(
        app, ["context", "--project", str(tmp_path), "--agent", "coder", "--budget", "300", TASK]
    )
    assert res.exit_code == 0, res.output
    assert "warning: memories left out" in res.output
    assert "## Context for coder" in res.output and "/300 tokens" in res.output
    js = CliRunner().invoke(
        app, ["context", "--project", str(tmp_path), "--agent", "coder", "--json", TASK]
    )
    assert json.loads(js.output[js.output.index("{") :])["tokens"] <= 2000


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

WORDS = [
    "retry",
    "backoff",
    "deploy",
    "client",
    "http",
    "timeout",
    "config",
    "cursor",
    "page",
    "token",
    "the",
    "a",
    "uses",
    "is",
    "never",
    "always",
    "with",
    "in",
    "api/",
    "cli/deploy.py",
    "é",
    "🙂",
    "\n",
]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    memories=st.lists(
        st.tuples(
            st.lists(st.sampled_from(WORDS), min_size=1, max_size=400).map(" ".join),
            st.floats(0, 1),
        ),
        max_size=8,
    ),
    budget=st.integers(50, 3000),
)
def test_any_memories_any_budget_the_package_fits(orch, embed, memories, budget):
    hits = [MemoryHit(f"m{i}", text, 0.5, trust) for i, (text, trust) in enumerate(memories)]
    package = orch.context(TASK, "coder", budget, task_type="implementation", recalled=hits)
    assert package.tokens == count_tokens(package.markdown) <= budget
    assert len({i.id for i in package.items}) == len(package.items)
