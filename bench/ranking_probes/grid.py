import pickle
import sys

items = pickle.load(open(sys.argv[1], "rb"))
f = sys.argv[2]
for w in (0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.8):
    res = {}
    for it in items:
        best = max(it["cands"], key=lambda c: (c["sim"] + 0.15 * c["exact"] + w * c[f], c["sim"]))
        a = res.setdefault(it["set"][:10], [0, 0])
        a[0] += best["id"] == it["answer"]
        a[1] += 1
    print(w, res)
