"""What bench/memory_quality.py and bench/memory_updates.py share: the evaluation sets, a fresh
memini-core on a temporary SQLite file, the rankings compared, mem0 OSS in its own venv, metrics.

The rankings of our store, all through public calls (nothing in src/ is changed or reached into):
- default:  `MemoryService.query(text, MemoryFilter(project=scope), top_k=k)` — what the HTTP
  route, the CLI and the agent's memory tool answer with;
- keyword:  `store.keyword_search(text, MemoryFilter(project=scope), k)` — the store's own keyword
  ranking (SQLite FTS5 bm25 with its rare-word query), the same call the default query fuses;
- vector:   plain cosine in numpy between the question's embedding (the project's `Embedder`)
  and every memory of the scope, whose vectors are read back with `store.get_embedding(id)` —
  the same MiniLM vectors the store holds, searched exactly, no ANN, no fusion, no trust.
- rrf:      the default query before issue 20, rebuilt from the same two store calls: vector
  top-N and keyword top-N (N = 50) fused by reciprocal rank (k = 60), times 0.5 + trust.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from neuralgentics.config import Settings
from neuralgentics.embeddings import MiniLMEmbedder as Embedder
from neuralgentics.memini.service import AddResult, MemoryService
from neuralgentics.memini.store.base import MemoryFilter
from neuralgentics.memini.store.sqlite import SQLiteStore

DATA = ROOT / "bench" / "data"
# The held-out parts with a generator and a pairs file of their own (bench/data/gen_heldout3.py
# ...): each run once at the end of a piece of work, never part of `--split all`.
OWN_PARTS = ("heldout3", "heldout4", "heldout5", "heldout6", "heldout7")
DEFAULT_MEM0_PYTHON = Path(os.environ.get("MEM0_PYTHON", "/work/venvs/mem0/bin/python"))
MEM0_RUNNER = ROOT / "bench" / "mem0_runner.py"
K = 10  # every ranking is asked for its top 10; MRR is MRR@10
RRF_K, RRF_POOL = 60, 50  # the fusion before issue 20 (MemoryService.query until then)


def load_set(name: str) -> list[dict]:
    path = DATA / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def in_split(row: dict, split: str) -> bool:
    return split == "all" or row["split"] == split


# -- metrics ----------------------------------------------------------------------------------


def rank_of(target: str, ids: list[str]) -> int | None:
    """1-based rank of target in ids, None when absent."""
    try:
        return ids.index(target) + 1
    except ValueError:
        return None


@dataclass
class Scores:
    ranks: list[int | None] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)

    def add(self, rank: int | None, ms: float) -> None:
        self.ranks.append(rank)
        self.ms.append(ms)

    @property
    def n(self) -> int:
        return len(self.ranks)

    def recall(self, k: int) -> float:
        return sum(1 for r in self.ranks if r is not None and r <= k) / max(1, self.n)

    @property
    def mrr(self) -> float:
        return sum(1.0 / r for r in self.ranks if r is not None and r <= K) / max(1, self.n)

    def as_dict(self) -> dict:
        return {
            "n": self.n,
            "recall@1": round(self.recall(1), 4),
            "recall@5": round(self.recall(5), 4),
            "mrr@10": round(self.mrr, 4),
            "p50_ms": round(pct(self.ms, 50), 3),
            "p99_ms": round(pct(self.ms, 99), 3),
        }


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return float(np.percentile(np.asarray(values, dtype=float), q))


def load_note() -> str:
    try:
        one, five, _ = os.getloadavg()
        return f"load {one:.1f} (5 min {five:.1f})"
    except OSError:
        return "load ?"


# -- our store ----------------------------------------------------------------------------------


class OurMemory:
    """A fresh memini-core: MemoryService over SQLiteStore on a temporary file, real MiniLM."""

    def __init__(self, embedder: Embedder) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="ng-memeval-"))
        self.settings = Settings(home=self.dir, config_dir=self.dir / "config", database_url=None)
        self.store = SQLiteStore(self.dir / "memini.db")
        self.embedder = embedder
        self.service = MemoryService(self.store, embedder, self.settings)
        self._matrix: dict[str, tuple[list[str], np.ndarray]] = {}

    def close(self) -> None:
        self.store.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def add(self, scope: str, text: str) -> tuple[AddResult, float]:
        """A plain add, as a user's agent makes it. Returns the result and its wall time (ms)."""
        start = time.perf_counter()
        result = self.service.add(text, project=scope)
        ms = (time.perf_counter() - start) * 1000
        self._matrix.pop(scope, None)
        return result, ms

    def default(self, scope: str, text: str, k: int = K) -> tuple[list[str], float]:
        start = time.perf_counter()
        hits = self.service.query(text, MemoryFilter(project=scope), top_k=k)
        return [h.memory.id for h in hits], (time.perf_counter() - start) * 1000

    def rrf(self, scope: str, text: str, k: int = K) -> tuple[list[str], float]:
        start = time.perf_counter()
        flt = MemoryFilter(project=scope)
        fused: dict[str, float] = {}
        searches = (
            self.store.vector_search(self.embedder.embed_one(text), flt, RRF_POOL),
            self.store.keyword_search(text, flt, RRF_POOL),
        )
        for ranked in searches:
            for rank, (mid, _) in enumerate(ranked, 1):
                fused[mid] = fused.get(mid, 0.0) + 1.0 / (RRF_K + rank)
        memories = self.store.get_memories(list(fused))
        score = {mid: fused[mid] * (0.5 + m.trust_score) for mid, m in memories.items()}
        ranked_ids = sorted(score, key=lambda mid: -score[mid])[:k]
        return ranked_ids, (time.perf_counter() - start) * 1000

    def keyword(self, scope: str, text: str, k: int = K) -> tuple[list[str], float]:
        start = time.perf_counter()
        found = self.store.keyword_search(text, MemoryFilter(project=scope), k)
        return [mid for mid, _ in found], (time.perf_counter() - start) * 1000

    def scope_vectors(self, scope: str) -> tuple[list[str], np.ndarray]:
        """Every memory of the scope (superseded ones too: plain cosine knows no supersession)."""
        if scope not in self._matrix:
            flt = MemoryFilter(project=scope, include_superseded=True)
            memories, _ = self.store.list_memories(flt, limit=1000)
            ids = [m.id for m in memories]
            vectors = [self.store.get_embedding(mid) for mid in ids]
            matrix = (
                np.vstack(vectors).astype(np.float32) if ids else np.zeros((0, 384), np.float32)
            )
            self._matrix[scope] = (ids, matrix)
        return self._matrix[scope]

    def vector(self, scope: str, text: str, k: int = K) -> tuple[list[str], float]:
        ids, matrix = self.scope_vectors(scope)  # loaded before timing: an index is always there
        start = time.perf_counter()
        q = self.embedder.embed_one(text)
        sims = matrix @ q
        top = np.argsort(-sims)[:k]
        ranked = [ids[i] for i in top]
        return ranked, (time.perf_counter() - start) * 1000


# -- mem0 OSS in its own venv ---------------------------------------------------------------------


class Mem0Unavailable(RuntimeError):
    pass


class Mem0:
    """bench/mem0_runner.py in mem0's venv, one JSON object per line each way."""

    def __init__(
        self, python: Path, embedder: dict | None = None, *, in_memory: bool = False
    ) -> None:
        # embedder: None for mem0's torch embedder; an ONNX spec (mem0_runner.py) for ours.
        # in_memory: qdrant and the history table in memory (nothing persisted)
        self.embedder = embedder
        self.in_memory = in_memory
        if not Path(python).is_file():
            raise Mem0Unavailable(
                f"no venv at {Path(python).parent.parent} (create it: bash bench/mem0_setup.sh)"
            )
        self.dir = Path(tempfile.mkdtemp(prefix="ng-mem0eval-"))
        self.stderr = open(self.dir / "runner.stderr", "w+")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            [str(python), str(MEM0_RUNNER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            cwd=self.dir,
        )
        self._stores = 0
        self.info = self.fresh()

    def fresh(self) -> dict:
        """A new, empty mem0 Memory (its own qdrant directory and history file)."""
        self._stores += 1
        req: dict = {"op": "init", "dir": str(self.dir / f"store{self._stores}")}
        if self.embedder:
            req["embedder"] = self.embedder
        if self.in_memory:
            req["in_memory"] = True
        return self.call(req)

    def call(self, req: dict) -> dict:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            self.stderr.seek(0)
            tail = self.stderr.read()[-2000:]
            raise Mem0Unavailable(f"mem0 runner exited (code {self.proc.poll()}): {tail}")
        answer = json.loads(line)
        if not answer.get("ok"):
            raise Mem0Unavailable(f"mem0 runner: {answer.get('error')}\n{answer.get('trace', '')}")
        return answer

    def add(self, items: list[tuple[str, str]]) -> tuple[list[str], list[float]]:
        out = self.add_timed(items)
        return out["ids"], out["ms"]

    def add_timed(self, items: list[tuple[str, str]]) -> dict:
        """ids, ms and the parts of each add (embed_ms, insert_ms, history_ms)."""
        return self.call({"op": "add", "items": [{"scope": s, "text": t} for s, t in items]})

    def search(self, queries: list[tuple[str, str]], k: int = K) -> dict:
        return self.call(
            {"op": "search", "k": k, "queries": [{"scope": s, "query": q} for s, q in queries]}
        )

    def exists(self, ids: list[str]) -> list[bool]:
        return self.call({"op": "exists", "ids": ids})["exists"]

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                self.proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        finally:
            self.stderr.close()
            shutil.rmtree(self.dir, ignore_errors=True)


def open_mem0(python: Path | None, skip: bool) -> tuple[Mem0 | None, str]:
    """(runner or None, a line saying which). Never fails the bench: mem0 is a comparison."""
    if skip:
        return None, "mem0: skipped (--no-mem0)"
    python = python or DEFAULT_MEM0_PYTHON
    try:
        runner = Mem0(python)
    except Mem0Unavailable as exc:
        return None, f"mem0: skipped ({exc})"
    note = f"mem0: OSS {runner.info['version']} (infer=False, huggingface MiniLM, qdrant local)"
    return runner, f"{note} via {python}"


def summary(values: list[float]) -> str:
    if not values:
        return "-"
    return f"p50 {pct(values, 50):.2f} ms, p99 {pct(values, 99):.2f} ms (n={len(values)})"


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")
