"""The all-MiniLM-L6-v2 sentence encoder as an ONNX graph, written from its weights (no torch).

One graph for the whole sentence-transformers pipeline after tokenisation: BERT (6 layers,
12 heads, exact erf GELU), mean pooling over the attention mask and L2 normalisation, with the
reference's epsilons. Inputs ``input_ids``, ``attention_mask``, ``token_type_ids`` (int64,
``[batch, tokens]``); output ``sentence_embedding`` (float32, ``[batch, 384]``).

Only standard ONNX operators (opset 17), so any onnxruntime since 1.13 runs it; onnxruntime
fuses LayerNormalization, GELU and the MatMul+bias pairs itself at session start. Writing
onnxruntime's own fused ``Attention``/``SkipLayerNormalization`` contrib operators instead
measured no faster here (docs/embeddings.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

OPSET = 17


def build_graph(weights: dict[str, np.ndarray], config: dict[str, Any]) -> Any:  # onnx.ModelProto
    from onnx import TensorProto, helper, numpy_helper

    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    eps = float(config["layer_norm_eps"])
    head_dim = hidden // heads
    initializers: list[Any] = []
    nodes: list[Any] = []

    def const(name: str, value: np.ndarray | float | list[int]) -> str:
        array = np.asarray(value)
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def op(kind: str, inputs: list[str], output: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(kind, inputs, [output], name=output, **attrs))
        return output

    w: Callable[[str], np.ndarray] = weights.__getitem__

    def linear(x: str, name: str, out: str) -> str:
        """x @ W.T + b for a Linear layer stored [out, in]."""
        product = op("MatMul", [x, const(f"{name}.weight_t", w(f"{name}.weight").T)], f"{out}.mm")
        return op("Add", [product, const(f"{name}.bias", w(f"{name}.bias"))], out)

    def layer_norm(x: str, name: str, out: str) -> str:
        scale, bias = (
            const(f"{name}.weight", w(f"{name}.weight")),
            const(f"{name}.bias", w(f"{name}.bias")),
        )
        return op("LayerNormalization", [x, scale, bias], out, axis=-1, epsilon=eps)

    # embeddings: word + position (0..tokens-1) + token type, then LayerNorm
    e = "embeddings"
    words = op(
        "Gather", [const(f"{e}.word", w(f"{e}.word_embeddings.weight")), "input_ids"], "emb.word"
    )
    types = op(
        "Gather",
        [const(f"{e}.type", w(f"{e}.token_type_embeddings.weight")), "token_type_ids"],
        "emb.type",
    )
    tokens = op("Shape", ["input_ids"], "emb.tokens", start=1, end=2)
    zero = const("zero_1d", [0])
    positions = op(
        "Slice",
        [const(f"{e}.position", w(f"{e}.position_embeddings.weight")), zero, tokens, zero],
        "emb.pos",
    )
    summed = op("Add", [op("Add", [words, types], "emb.wt"), positions], "emb.sum")
    x = layer_norm(summed, f"{e}.LayerNorm", "emb.out")

    # additive attention mask [batch, 1, 1, tokens]: 0 where attended, float32 min where padded
    mask = op("Cast", ["attention_mask"], "mask.float", to=TensorProto.FLOAT)
    one = const("one", 1.0)
    padded = op("Sub", [one, mask], "mask.padded")
    additive = op(
        "Mul", [padded, const("mask.min", float(np.finfo(np.float32).min))], "mask.additive"
    )
    additive = op("Unsqueeze", [additive, const("axes_1_2", [1, 2])], "mask.4d")
    split = const("shape.split_heads", [0, 0, heads, head_dim])
    merge = const("shape.merge_heads", [0, 0, hidden])
    scale = const("attention.scale", 1.0 / np.sqrt(head_dim))
    sqrt2, half = const("sqrt2", np.sqrt(2.0)), const("half", 0.5)

    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}"
        a = f"{p}.attention.self"
        q, k, v = (
            op("Reshape", [linear(x, f"{a}.{part}", f"l{i}.{part}"), split], f"l{i}.{part}.heads")
            for part in ("query", "key", "value")
        )
        q = op("Transpose", [q], f"l{i}.q.t", perm=[0, 2, 1, 3])
        k = op("Transpose", [k], f"l{i}.k.t", perm=[0, 2, 3, 1])
        v = op("Transpose", [v], f"l{i}.v.t", perm=[0, 2, 1, 3])
        scores = op("Mul", [op("MatMul", [q, k], f"l{i}.scores.raw"), scale], f"l{i}.scores")
        probs = op(
            "Softmax",
            [op("Add", [scores, additive], f"l{i}.scores.masked")],
            f"l{i}.probs",
            axis=-1,
        )
        context = op(
            "Transpose",
            [op("MatMul", [probs, v], f"l{i}.ctx.heads")],
            f"l{i}.ctx.t",
            perm=[0, 2, 1, 3],
        )
        context = op("Reshape", [context, merge], f"l{i}.ctx")
        attended = linear(context, f"{p}.attention.output.dense", f"l{i}.attn.out")
        x = layer_norm(
            op("Add", [attended, x], f"l{i}.attn.res"),
            f"{p}.attention.output.LayerNorm",
            f"l{i}.attn.norm",
        )
        inner = linear(x, f"{p}.intermediate.dense", f"l{i}.ffn.in")
        # exact GELU, as BERT's "gelu": 0.5 * x * (1 + erf(x / sqrt 2))
        erf = op("Erf", [op("Div", [inner, sqrt2], f"l{i}.gelu.div")], f"l{i}.gelu.erf")
        gelu = op("Mul", [inner, op("Add", [erf, one], f"l{i}.gelu.add")], f"l{i}.gelu.mul")
        gelu = op("Mul", [gelu, half], f"l{i}.gelu")
        out = linear(gelu, f"{p}.output.dense", f"l{i}.ffn.out")
        x = layer_norm(op("Add", [out, x], f"l{i}.ffn.res"), f"{p}.output.LayerNorm", f"l{i}.out")

    # sentence-transformers Pooling(mean): sum over unmasked tokens / clamp(count, 1e-9),
    # then Normalize: x / max(||x||, 1e-12), as torch.nn.functional.normalize
    mask3 = op("Unsqueeze", [mask, const("axes_2", [2])], "pool.mask")
    axis1 = const("axes_1", [1])
    total = op("ReduceSum", [op("Mul", [x, mask3], "pool.masked"), axis1], "pool.sum", keepdims=0)
    count = op(
        "Max",
        [op("ReduceSum", [mask3, axis1], "pool.count.raw", keepdims=0), const("eps.count", 1e-9)],
        "pool.count",
    )
    pooled = op("Div", [total, count], "pool.mean")
    norm = op("ReduceL2", [pooled], "norm.raw", axes=[1], keepdims=1)
    op("Div", [pooled, op("Max", [norm, const("eps.norm", 1e-12)], "norm")], "sentence_embedding")

    token_axes = ["batch", "tokens"]
    graph = helper.make_graph(
        nodes,
        str(config["name"]),
        [
            helper.make_tensor_value_info(n, TensorProto.INT64, token_axes)
            for n in ("input_ids", "attention_mask", "token_type_ids")
        ],
        [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", hidden])],
        initializers,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="neuralgentics"
    )
    model.ir_version = 8  # what onnxruntime >= 1.13 reads
    return model
