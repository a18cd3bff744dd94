import os

OUT = os.environ.get("PROBES_OUT", "/tmp/ranking_probes")
os.makedirs(OUT, exist_ok=True)  # noqa
import math
import pickle
import sys

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2] / "src"))
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from feats import STOP
from tokenizers import Tokenizer

from neuralgentics.embeddings.onnx_build import find_build
from neuralgentics.embeddings.onnx_weights import TOKENIZER

tk = Tokenizer.from_file(str(TOKENIZER))
vocab = tk.get_vocab()
inv = {v: k for k, v in vocab.items()}
m = onnx.load(str(find_build("packaged", int8=False, cache=None).graph()))
W = numpy_helper.to_array(next(i for i in m.graph.initializer if i.name == "embeddings.word"))
W = W / np.linalg.norm(W, axis=1, keepdims=True)
items = pickle.load(open(OUT + "/feat_tune_c.pkl", "rb"))


def keep(i):
    t = inv[i]
    return t not in STOP and t.strip("#").isalnum() and not (len(t) == 1)


for it in items:
    qids = [i for i in it["qtok"][0][1:-1] if keep(i)]
    if not qids:
        qids = list(it["qtok"][0][1:-1])
    Q = W[qids]
    pool = [set(it["ctok"][c["content"]][0][1:-1].tolist()) for c in it["cands"]]
    n = len(pool)
    idf = np.array([math.log((n + 1) / (sum(1 for p in pool if q in p) + 0.5)) for q in qids])
    idf = np.maximum(idf, 0.05)
    for c in it["cands"]:
        fids = [i for i in it["ctok"][c["content"]][0][1:-1] if keep(i)] or list(
            it["ctok"][c["content"]][0][1:-1]
        )
        S = (Q @ W[fids].T).max(1)
        c["smax_f"] = float(S.mean())
        c["smax_idf"] = float((S * idf).sum() / idf.sum())
        c["smax_t"] = float(np.maximum(S - 0.4, 0).mean())
        c["smax_tidf"] = float((np.maximum(S - 0.4, 0) * idf).sum() / idf.sum())
pickle.dump(items, open(OUT + "/feat_tune_d.pkl", "wb"))
