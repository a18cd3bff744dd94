import hashlib
import pickle
import sys

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
items = pickle.load(open(sys.argv[1], "rb"))
FEATS = sys.argv[2].split(",")
temp = 20.0


def X(it):
    return np.array([[c[f] for f in FEATS] for c in it["cands"]])


for it in items:
    it["X"] = X(it)
    it["y"] = next((i for i, c in enumerate(it["cands"]) if c["id"] == it["answer"]), None)
    it["sim"] = np.array([c["sim"] for c in it["cands"]])
    it["base"] = it["sim"] + 0.15 * np.array([c["exact"] for c in it["cands"]])
    g = it["group"]
    if it["set"].startswith("updates"):
        g = it["scope"].rsplit("-", 1)[0]
    it["fold"] = int(hashlib.sha256(g.encode()).hexdigest(), 16) % 5


def fit(train, l2=1e-2, steps=400, lr=0.5):
    w = np.zeros(len(FEATS))
    tr = [it for it in train if it["y"] is not None]
    for _ in range(steps):
        grad = l2 * w
        for it in tr:
            s = temp * (it["base"] + it["X"] @ w)
            p = np.exp(s - s.max())
            p /= p.sum()
            grad += temp * (it["X"].T @ p - it["X"][it["y"]]) / len(tr)
        w -= lr * grad / temp
    return w


def hits(its, w):
    out = {}
    for it in its:
        s = it["base"] + it["X"] @ w
        top = max(range(len(s)), key=lambda i: (s[i], it["sim"][i]))
        a = out.setdefault(it["set"], [0, 0])
        a[0] += top == it["y"]
        a[1] += 1
    return out


tot = {}
ws = []
for k in range(5):
    w = fit([it for it in items if it["fold"] != k])
    ws.append(w)
    for s, (h, n) in hits([it for it in items if it["fold"] == k], w).items():
        a = tot.setdefault(s, [0, 0])
        a[0] += h
        a[1] += n
base = hits(items, np.zeros(len(FEATS)))
print(FEATS)
print("  base (ship):", {s[:12]: f"{h}/{n}" for s, (h, n) in base.items()})
print("  5-fold CV  :", {s[:12]: f"{h}/{n}" for s, (h, n) in tot.items()})
print("  in-sample  :", {s[:12]: f"{h}/{n}" for s, (h, n) in hits(items, fit(items)).items()})
print("  fold weights:", np.round(np.array(ws), 3).tolist())
