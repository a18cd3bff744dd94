import os

OUT = os.environ.get("PROBES_OUT", "/tmp/ranking_probes")
os.makedirs(OUT, exist_ok=True)  # noqa
"""Scratch: candidate features for tune questions (not committed)."""
import pickle
import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
import numpy as np
import onnx
import onnxruntime as ort
from memory_evalkit import Embedder, OurMemory
from memory_quality import SETS

from neuralgentics.embeddings.onnx_build import find_build
from neuralgentics.embeddings.onnx_session import Tokenizer
from neuralgentics.embeddings.onnx_weights import TOKENIZER
from neuralgentics.memini.store.base import MemoryFilter

split = sys.argv[1]
paths = find_build("packaged", int8=False, cache=None)
m = onnx.load(str(paths.graph()))
m.graph.output.append(onnx.helper.make_tensor_value_info("l5.out", onnx.TensorProto.FLOAT, None))
sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
tok = Tokenizer(TOKENIZER, 256)


def tokvecs(text):
    f = tok.encode([text])
    out = sess.run(
        ["l5.out", "sentence_embedding"],
        {k: f[k] for k in ("input_ids", "attention_mask", "token_type_ids")},
    )
    t = out[0][0]
    t = t / np.linalg.norm(t, axis=1, keepdims=True)
    return f["input_ids"][0], t


groups = {}
for name in ("memory_paraphrase", "memory_keyword"):
    from memory_evalkit import load_set

    for r in load_set(name):
        groups[r["id"]] = r.get("group", r["id"])
emb = Embedder()
emb.embed_one("warm")
out = []
for name in SETS:
    facts, questions = SETS[name]()
    asked = [q for q in questions if q.split == split and q.part != "updates: update"]
    with OurMemory(emb) as ours:
        key_to_id = {}
        id_text = {}
        for scope, key, text in facts:
            mid = ours.add(scope, text)[0].memory.id
            key_to_id[key] = mid
            id_text[mid] = text
        scope_texts = {}
        for scope, _key, text in facts:
            scope_texts.setdefault(scope, []).append(text)
        tv_cache = {}
        for q in asked:
            cands = ours.service.candidates(q.text, MemoryFilter(project=q.scope))
            qt = tokvecs(q.text)
            rows = []
            for c in cands:
                if c.content not in tv_cache:
                    tv_cache[c.content] = tokvecs(c.content)
                rows.append(
                    dict(
                        id=c.id,
                        content=c.content,
                        sim=c.similarity,
                        exact=c.exact_match,
                        kw_rank=c.keyword_rank,
                        vec_rank=c.vector_rank,
                        kw_score=c.keyword_score,
                    )
                )
            grp = groups.get(q.target, q.scope.split("-")[0] if name == "updates" else q.scope)
            if name == "updates":
                grp = q.scope  # item; project below
            out.append(
                dict(
                    set=q.part,
                    text=q.text,
                    answer=key_to_id[q.target],
                    group=grp,
                    scope=q.scope,
                    cands=rows,
                    qtok=qt,
                    ctok={r["content"]: tv_cache[r["content"]] for r in rows},
                    scope_texts=scope_texts[q.scope],
                )
            )
    print(name, len(asked), file=sys.stderr)
pickle.dump(out, open(OUT + f"/feat_{split}.pkl", "wb"))
