import os

OUT = os.environ.get("PROBES_OUT", "/tmp/ranking_probes")
os.makedirs(OUT, exist_ok=True)  # noqa
import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
import pickle

import feats
from memory_evalkit import Embedder

e = Embedder()
items = feats.build_qtok(feats.build(pickle.load(open(OUT + "/feat_tune.pkl", "rb"))), e)
pickle.dump(items, open(OUT + "/feat_tune_b.pkl", "wb"))
