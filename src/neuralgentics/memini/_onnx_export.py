"""Turn the packaged all-MiniLM-L6-v2 weights into an ONNX graph (needs torch; runs offline).

The graph holds the whole sentence-transformers pipeline after tokenisation — BERT, mean pooling
over the attention mask, L2 normalisation — so the runtime feeds token ids and reads finished
vectors. BERT is traced with eager attention: onnxruntime fuses that pattern into its Attention
kernel, while the traced SDPA path stays unfused and measured about 1.6x slower here. Every new
graph is checked against torch before it is renamed into place.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neuralgentics.memini._onnx_cache import (
    EXPORT_RECIPE,
    MODEL_NAME,
    ExportPaths,
    ModelUnavailable,
    atomic_target,
    scratch_file,
    atomic_write_bytes,
    export_lock,
    export_paths,
    max_seq_length,
    publish,
    source_dir,
    weights_digest,
)

OPSET = 17
# A fresh fp32 graph must reproduce torch to float rounding; int8 is only checked for sanity.
_FP32_MIN_COSINE = 0.9999
_INT8_MIN_COSINE = 0.9
_PROBES = [
    "hello world",
    "def add(a, b):\n    return a + b  # sum",
    "Ünïcödé — 日本語のテキスト 🚀",
    "The migration adds a content hash column so duplicate memories collapse. " * 12,
    "",
]


@dataclass(frozen=True)
class ExportResult:
    paths: ExportPaths
    created: list[Path]
    seconds: float


def export_model(*, int8: bool = False, force: bool = False) -> ExportResult:
    """Write the fp32 graph (and the dynamic-int8 one with `int8`) into the cache, unless the
    export of these exact weights is already there. Safe to run from many processes at once."""
    started = time.perf_counter()
    source = source_dir()
    paths = export_paths(source)
    created: list[Path] = []
    with export_lock(paths.dir):
        need_fp32 = force or not paths.complete()
        need_int8 = int8 and (force or not paths.int8.is_file())
        if need_fp32 or need_int8:
            _require_torch()
            _export(source, paths, fp32=need_fp32, int8=need_int8, created=created)
    return ExportResult(paths, created, time.perf_counter() - started)


def _require_torch() -> None:
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as exc:
        raise ModelUnavailable(
            "exporting the ONNX model needs torch and transformers, which are not installed: "
            "pip install 'neuralgentics[torch]' and run `neuralgentics model export` again "
            f"({exc})"
        ) from exc


def _export(source: Path, paths: ExportPaths, *, fp32: bool, int8: bool, created: list[Path]) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # "Loading weights" bars are noise in an install log
    model = _load_sentence_model(source)
    max_length = max_seq_length(source)
    reference = _torch_reference(model, source, max_length)

    with scratch_file(paths.dir, ".onnx") as raw:
        _trace(model, raw)
        if int8:
            with atomic_target(paths.int8) as quantized:
                _quantize(raw, quantized)
                _verify(quantized, source, max_length, reference, _INT8_MIN_COSINE)
            created.append(paths.int8)
        if fp32:
            _verify(raw, source, max_length, reference, _FP32_MIN_COSINE)
            with atomic_target(paths.tokenizer) as tokenizer:
                shutil.copyfile(source / "tokenizer.json", tokenizer)
            publish(raw, paths.fp32)
            manifest = {
                "model": MODEL_NAME,
                "recipe": EXPORT_RECIPE,
                "source": str(source),
                "source_sha256": weights_digest(source),
                "max_length": max_length,
                "opset": OPSET,
                "torch": torch.__version__,
                "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            }
            # written last: a folder counts as exported only once its manifest exists
            atomic_write_bytes(paths.manifest, json.dumps(manifest, indent=2).encode())
            created.insert(0, paths.fp32)


def _load_sentence_model(source: Path):  # -> torch.nn.Module
    import torch
    from transformers import BertModel

    bert = BertModel.from_pretrained(str(source), attn_implementation="eager", local_files_only=True)
    bert.eval()

    class SentenceEmbedding(torch.nn.Module):
        def __init__(self, encoder: torch.nn.Module) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids, attention_mask, token_type_ids):  # type: ignore[no-untyped-def]
            hidden = self.encoder(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            # sentence-transformers' Pooling(mean) then Normalize, with the same epsilons
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    return SentenceEmbedding(bert).eval()


def _trace(model, target: Path) -> None:  # type: ignore[no-untyped-def]
    import warnings

    import torch

    ids = torch.ones((2, 8), dtype=torch.long)
    axes = {"input_ids", "attention_mask", "token_type_ids"}
    with torch.no_grad(), warnings.catch_warnings():
        # The tracer's notes about Python booleans concern causal/cache paths BERT never takes.
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model,
            (ids, ids, torch.zeros_like(ids)),
            str(target),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["sentence_embedding"],
            dynamic_axes={name: {0: "batch", 1: "tokens"} for name in axes}
            | {"sentence_embedding": {0: "batch"}},
            opset_version=OPSET,
            dynamo=False,
        )


def _quantize(fp32: Path, target: Path) -> None:
    import logging

    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # Per-channel int8 MatMuls: per-tensor weights measured min cosine ~0.87 against torch here,
    # per-channel ~0.98.
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # its advice to pre-process applies to static quantization
    try:
        quantize_dynamic(
            str(fp32),
        str(target),
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul"],
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    finally:
        root.setLevel(level)


def _torch_reference(model, source: Path, max_length: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    import torch

    from neuralgentics.memini._onnx_session import Tokenizer

    batch = Tokenizer(source / "tokenizer.json", max_length).encode(_PROBES)
    with torch.no_grad():
        out = model(*(torch.from_numpy(batch[name]) for name in ("input_ids", "attention_mask", "token_type_ids")))
    return out.numpy()


def _verify(graph: Path, source: Path, max_length: int, reference: np.ndarray, minimum: float) -> None:
    from neuralgentics.memini._onnx_session import OnnxEncoder

    vectors = OnnxEncoder(graph, source / "tokenizer.json", max_length).encode(_PROBES)
    cosine = float((vectors * reference).sum(axis=1).min())
    if cosine < minimum:
        raise RuntimeError(
            f"exported graph {graph.name} disagrees with torch (min cosine {cosine:.5f} < "
            f"{minimum}); nothing was written"
        )


