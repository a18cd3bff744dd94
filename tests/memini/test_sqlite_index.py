"""The HNSW index beside the SQLite file stays consistent with the rows: after a crash,
with a torn or foreign index file, and with writes made by another process."""

from __future__ import annotations

import shutil
import subprocess
import sys

import numpy as np
import pytest

from neuralgentics.memini.store.base import MemoryFilter, NewMemory
from neuralgentics.memini.store.sqlite import SQLiteStore


def unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
    return v / np.linalg.norm(v)


def fill(store: SQLiteStore, start: int, stop: int) -> dict[int, str]:
    ids = {}
    for i in range(start, stop):
        mem, _ = store.add_memory(NewMemory(f"memory {i}", unit(i), f"h{i}"))
        ids[i] = mem.id
    return ids


def nearest(store: SQLiteStore, i: int) -> str:
    return store.vector_search(unit(i), MemoryFilter(include_superseded=True), 1)[0][0]


def test_index_survives_a_crash_between_saves(tmp_path):
    db = tmp_path / "m.db"
    store = SQLiteStore(db)
    ids = fill(store, 0, 50)
    store.close()  # saved with 50
    store = SQLiteStore(db)
    ids |= fill(store, 50, 80)
    store.delete_memory(ids[3])
    # crash: the process dies without close(), so the index file still holds the first 50
    del store
    reopened = SQLiteStore(db)
    assert len(reopened.vectors) == 79
    assert nearest(reopened, 70) == ids[70]
    assert nearest(reopened, 3) != ids[3]
    reopened.close()


@pytest.mark.parametrize("damage", ["truncate", "garbage", "delete_sidecar", "foreign"])
def test_a_damaged_index_is_rebuilt_from_the_stored_vectors(tmp_path, damage):
    db = tmp_path / "m.db"
    store = SQLiteStore(db)
    ids = fill(store, 0, 40)
    store.close()
    index = tmp_path / "m.db.memories.usearch"
    if damage == "truncate":
        index.write_bytes(index.read_bytes()[:100])
    elif damage == "garbage":
        index.write_bytes(b"\x00not an index" * 50)
    elif damage == "delete_sidecar":
        index.with_suffix(".usearch.json").unlink()
    else:  # the index of another database copied over this one's
        other = SQLiteStore(tmp_path / "other.db")
        fill(other, 100, 110)
        other.close()
        shutil.copy(tmp_path / "other.db.memories.usearch", index)
        shutil.copy(tmp_path / "other.db.memories.usearch.json", index.with_suffix(".usearch.json"))
    store = SQLiteStore(db)
    assert len(store.vectors) == 40
    assert all(nearest(store, i) == ids[i] for i in (0, 17, 39))
    store.close()


def test_writes_from_another_process_are_seen_without_restart(tmp_path):
    db = tmp_path / "m.db"
    store = SQLiteStore(db)
    fill(store, 0, 10)
    code = (
        "import sys; sys.path.insert(0, %r)\n"
        "from test_sqlite_index import fill\n"
        "from neuralgentics.memini.store.sqlite import SQLiteStore\n"
        "s = SQLiteStore(%r); print(fill(s, 10, 20)[15]); s.close()\n"
    ) % (str(__import__("pathlib").Path(__file__).parent), str(db))
    other_id = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.strip()
    assert nearest(store, 15) == other_id
    assert store.counts()["memories"] == 20
    store.close()


def test_filtered_search_never_comes_back_short(tmp_path):
    store = SQLiteStore(tmp_path / "m.db")
    fill(store, 0, 300)
    rare, _ = store.add_memory(NewMemory("the rare one", unit(9999), "rare", project="rare"))
    # the query vector is far from the only memory that passes the filter
    hits = store.vector_search(unit(5), MemoryFilter(project="rare"), 5)
    assert [h[0] for h in hits] == [rare.id]
    store.close()


def test_keyword_search_scores_only_a_querys_rare_words(tmp_path, monkeypatch):
    from neuralgentics.memini.store import sqlite as sqlite_store

    monkeypatch.setattr(sqlite_store, "KEYWORD_ROW_BUDGET", 50)  # the rule, at a test's scale
    store = SQLiteStore(tmp_path / "m.db")
    for i in range(60):
        extra = " alpha" if i % 2 else ""
        store.add_memory(NewMemory(f"deployment note number {i}{extra}", unit(i), f"h{i}"))
    zebra, _ = store.add_memory(NewMemory("deployment of the zebra service", unit(999), "z"))
    # "deployment" is in every row: only the rare "zebra" is scored
    hits = store.keyword_search("zebra deployment", MemoryFilter(), 10)
    assert [h[0] for h in hits] == [zebra.id]
    # every word frequent: all of them must match
    both = store.keyword_search("deployment alpha", MemoryFilter(), 100)
    contents = store.get_memories([h[0] for h in both])
    assert len(both) == 30 and all("alpha" in m.content for m in contents.values())
    store.close()


def test_a_filtered_search_is_the_exact_top_k_with_the_exact_cosines(tmp_path):
    # The exact path (what every add's update detection takes for its owner) reads all the
    # owner's vectors as one matrix: same neighbours, same order, same scores as numpy.
    store = SQLiteStore(tmp_path / "m.db")
    ids = [
        store.add_memory(NewMemory(f"memory {i}", unit(i), f"h{i}", project=f"p{i % 3}"))[0].id
        for i in range(300)
    ]
    query = unit(10_000)
    mine = [i for i in range(300) if i % 3 == 1]
    sims = np.vstack([unit(i) for i in mine]) @ query
    want = [(ids[mine[j]], float(sims[j])) for j in np.argsort(-sims)[:10]]
    assert store.vector_search(query, MemoryFilter(project="p1"), 10) == want
    store.close()


def test_a_damaged_vector_names_its_memory_in_the_error(tmp_path):
    store = SQLiteStore(tmp_path / "m.db")
    fill(store, 0, 5)
    bad = store.add_memory(NewMemory("short vector", unit(9), "h9", project="p"))[0]
    store._conn().execute("UPDATE memories SET embedding = x'00' WHERE id = ?", (bad.id,))
    with pytest.raises(ValueError, match=bad.id):
        store.vector_search(unit(1), MemoryFilter(project="p"), 3)
    store.db.close()  # not close(): saving the index would meet the damaged vector too
