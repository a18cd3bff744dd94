import pickle
import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from feats import build

items = build(pickle.load(open(sys.argv[1], "rb")))
SETS = sorted({it["set"] for it in items})


def r1(score_fn, subset=None):
    res = {}
    for s in SETS:
        its = [it for it in items if it["set"] == s and (subset is None or it["group"] in subset)]
        if not its:
            continue
        hit = 0
        for it in its:
            best = max(it["cands"], key=lambda c: (score_fn(c), c["sim"]))
            hit += best["id"] == it["answer"]
        res[s] = (hit, len(its))
    return res


def show(name, fn):
    r = r1(fn)
    print(f"{name:<40}", "  ".join(f"{s[:14]}:{h}/{n}={h / n:.3f}" for s, (h, n) in r.items()))


show("cosine", lambda c: c["sim"])
show("shipped (sim+.15 exact)", lambda c: c["sim"] + 0.15 * c["exact"])
for f in ("maxsim", "maxsim_rev", "stem_idf", "rare", "num", "who"):
    for w in (0.02, 0.05, 0.1, 0.2, 0.4):
        show(f"ship+{w}*{f}", lambda c, f=f, w=w: c["sim"] + 0.15 * c["exact"] + w * c[f])
