import os

OUT = os.environ.get("PROBES_OUT", "/tmp/ranking_probes")
os.makedirs(OUT, exist_ok=True)  # noqa
import pickle
import sys

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2] / "src"))
from neuralgentics.embeddings.onnx_build import find_build

m = onnx.load(str(find_build("packaged", int8=False, cache=None).graph()))
W = numpy_helper.to_array(next(i for i in m.graph.initializer if i.name == "embeddings.word"))
W = W / np.linalg.norm(W, axis=1, keepdims=True)
items = pickle.load(open(OUT + "/feat_tune_b.pkl", "rb"))
# wordpiece df over each scope's candidate texts is not enough; use all contents seen per scope
for it in items:
    qids = it["qtok"][0][1:-1]
    Q = W[qids]
    for c in it["cands"]:
        fids = it["ctok"][c["content"]][0][1:-1]
        S = Q @ W[fids].T
        c["smax"] = float(S.max(1).mean())
        # contextual query tokens vs fact static? different spaces: skip
        # maxsim with contextual tokens but only over top-3 later
pickle.dump(items, open(OUT + "/feat_tune_c.pkl", "wb"))
