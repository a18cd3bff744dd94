"""Run the exported graph: `tokenizers` for the word pieces, onnxruntime for the network.

Neither needs torch; together they are about 90 MB installed against several GB for torch.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
# Padded tokens per model run. Activations grow with batch x length^2 (attention), so 32 texts
# of 256 tokens peaked at ~700 MiB RSS here against ~320 MiB for 8, at the same texts per
# CPU-second; the budget splits a batch of long texts, and short texts never reach it.
TOKEN_BUDGET = 2048


def default_threads(configured: int | None = None) -> int:
    """Intra-op threads: `configured` (``Settings.embedding_threads``,
    `NEURALGENTICS_EMBEDDING_THREADS`), else the CPUs this process may use, at most 4 (MiniLM
    stops scaling there)."""
    if configured is not None:
        if isinstance(configured, bool) or not isinstance(configured, int) or configured < 1:
            raise ValueError(
                f"NEURALGENTICS_EMBEDDING_THREADS must be a whole number >= 1, got {configured!r}"
            )
        return configured
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        available = os.cpu_count() or 1
    return max(1, min(available, 4))


class Tokenizer:
    """BERT word pieces exactly as the reference makes them: truncated at the reference's
    max_seq_length (256, not tokenizer.json's 128), padded to the longest text of a batch."""

    def __init__(self, path: Path, max_length: int) -> None:
        from tokenizers import Tokenizer as HFTokenizer

        self._tokenizer = HFTokenizer.from_file(str(path))
        self._tokenizer.enable_truncation(max_length=max_length)
        self._tokenizer.no_padding()  # padding happens per batch, in `pad`
        self.max_length = max_length

    def encode(self, texts: list[str]) -> dict[str, np.ndarray]:
        return self.pad(self.ids(texts))

    def ids(self, texts: list[str]) -> list[list[int]]:
        """Token ids per text ([CLS] ... [SEP], truncated), unpadded."""
        return [e.ids for e in self._tokenizer.encode_batch(texts)]

    @staticmethod
    def pad(rows: list[list[int]]) -> dict[str, np.ndarray]:
        width = max(len(r) for r in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)  # [PAD] is id 0
        mask = np.zeros_like(ids)
        for i, row in enumerate(rows):
            ids[i, : len(row)] = row
            mask[i, : len(row)] = 1
        return {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}


class OnnxEncoder:
    """One onnxruntime session over the exported graph; `encode` is safe from many threads."""

    def __init__(
        self, graph: Path, tokenizer: Path, max_length: int, *, threads: int | None = None
    ) -> None:
        import onnxruntime as ort

        self.graph = graph
        self.threads = default_threads(threads)
        options = ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        # One graph, no parallel branches worth a second pool.
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Workers that spin between calls burn a shared small machine's cores while the
        # service idles; the cost is a few microseconds of wake-up per batch.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        self._session = ort.InferenceSession(
            str(graph), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self.tokenizer = Tokenizer(tokenizer, max_length)

    def encode(self, texts: list[str], *, token_budget: int = TOKEN_BUDGET) -> np.ndarray:
        """(n, 384) float32 L2-normalised vectors, in input order. The texts are run shortest
        first in groups of at most `token_budget` padded tokens (one text at least)."""
        rows = self.tokenizer.ids(texts)
        out = np.empty((len(texts), 384), dtype=np.float32)
        order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
        start = 0
        while start < len(order):
            stop = start + 1
            # sorted ascending, so the last row in a group sets its padded width
            while stop < len(order) and (stop - start + 1) * len(rows[order[stop]]) <= token_budget:
                stop += 1
            group = order[start:stop]
            feeds = self.tokenizer.pad([rows[i] for i in group])
            (vectors,) = self._session.run(["sentence_embedding"], {k: feeds[k] for k in _INPUTS})
            out[group] = vectors
            start = stop
        return out
