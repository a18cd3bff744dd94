import os

OUT = os.environ.get("PROBES_OUT", "/tmp/ranking_probes")
os.makedirs(OUT, exist_ok=True)  # noqa
import pickle

import numpy as np

items = pickle.load(open(OUT + "/feat_tune.pkl", "rb"))
import random

random.seed(1)
fails = []
for it in items:
    if it["set"] != "paraphrase":
        continue
    cs = sorted(it["cands"], key=lambda c: -c["sim"])
    ids = [c["id"] for c in cs]
    r = ids.index(it["answer"]) + 1 if it["answer"] in ids else None
    if r != 1:
        fails.append((it, cs, r))
print(len(fails), "fails; rank dist", np.bincount([f[2] or 0 for f in fails]))
for it, cs, r in random.sample(fails, 14):
    ans = next(c for c in cs if c["id"] == it["answer"]) if r else None
    print(
        f"\nQ: {it['text']}\n  top ({cs[0]['sim']:.3f}): {cs[0]['content']}\n  ans r={r} ({ans['sim'] if ans else 0:.3f}): {ans['content'] if ans else '-'}"
    )
