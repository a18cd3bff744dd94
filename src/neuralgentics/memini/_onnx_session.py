"""Run the exported graph: `tokenizers` for the word pieces, onnxruntime for the network.

Neither needs torch; together they are about 90 MB installed against several GB for torch.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def default_threads() -> int:
    """Intra-op threads: the CPUs this process may use, at most 4 (MiniLM stops scaling there);
    `NEURALGENTICS_EMBEDDING_THREADS` overrides."""
    configured = os.environ.get("NEURALGENTICS_EMBEDDING_THREADS", "").strip()
    if configured:
        try:
            value = int(configured)
        except ValueError:
            raise ValueError(
                f"NEURALGENTICS_EMBEDDING_THREADS must be a whole number, got {configured!r}"
            ) from None
        if value < 1:
            raise ValueError(f"NEURALGENTICS_EMBEDDING_THREADS must be >= 1, got {value}")
        return value
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        available = os.cpu_count() or 1
    return max(1, min(available, 4))


class Tokenizer:
    """BERT word pieces exactly as the reference makes them: truncated at the reference's
    max_seq_length (256, not tokenizer.json's 128) and padded to the batch's longest text."""

    def __init__(self, path: Path, max_length: int) -> None:
        from tokenizers import Tokenizer as HFTokenizer

        self._tokenizer = HFTokenizer.from_file(str(path))
        self._tokenizer.enable_truncation(max_length=max_length)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self.max_length = max_length

    def encode(self, texts: list[str]) -> dict[str, np.ndarray]:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        return {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer.encode(text).ids)


class OnnxEncoder:
    """One onnxruntime session over the exported graph; `encode` is safe from many threads."""

    def __init__(self, graph: Path, tokenizer: Path, max_length: int, *, threads: int | None = None) -> None:
        import onnxruntime as ort

        self.graph = graph
        self.threads = threads or default_threads()
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

    def encode(self, texts: list[str]) -> np.ndarray:
        """(n, 384) float32 L2-normalised vectors for one batch, in input order."""
        feeds = self.tokenizer.encode(texts)
        (vectors,) = self._session.run(["sentence_embedding"], {k: feeds[k] for k in _INPUTS})
        return np.ascontiguousarray(vectors, dtype=np.float32)
