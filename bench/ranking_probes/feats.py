import math
import re

import numpy as np

STOP = set(
    """a an the of to in on for and or is are was were be been being by with at from as it its this that these those
which what who whom whose when where why how do does did done can could should would will shall may might must
has have had having our we us you your i me my they them their he she his her not no yes any some all each
there here than then so if into onto about over under up down out off via per get gets got use used uses using
make makes made run runs ran one""".split()
)


def stem(w):
    w = w.lower()
    for suf in (
        "ations",
        "ation",
        "ings",
        "ing",
        "ied",
        "ies",
        "edly",
        "ed",
        "ers",
        "er",
        "es",
        "ly",
        "s",
    ):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)]
            if suf in ("ied", "ies"):
                w += "y"
            break
    return w


WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")


def words(t):
    return [w for w in WORD.findall(t) if w.lower() not in STOP]


def stems(t):
    return {stem(w) for w in words(t)}


NUMQ = re.compile(
    r"\b(how (many|much|long|often|big|large|old|fast|far)|what (time|day|date|version|port|size|limit|number|percentage)|which (version|port|day|date)|when)\b",
    re.I,
)
NUMF = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|hundred|thousand|first|second|third|daily|weekly|monthly|hourly|every|once|twice|half|minutes?|hours?|days?|weeks?|months?|years?)\b",
    re.I,
)
WHO = re.compile(r"\bwho(m|se)?\b", re.I)


def caps(t):
    ws = t.split()
    return sum(1 for w in ws[1:] if w[:1].isupper())


def build(items):
    """Adds per-candidate feature vectors to items."""
    for it in items:
        scope_st = [stems(t) for t in it["scope_texts"]]
        N = len(scope_st)
        df = {}
        for s in scope_st:
            for w in s:
                df[w] = df.get(w, 0) + 1
        qst = stems(it["text"])
        idf = {w: math.log((N + 1) / (df.get(w, 0) + 0.5)) for w in qst}
        tot = sum(v for v in idf.values() if v > 0) or 1.0
        qids, qtv = it["qtok"]
        qmask = np.ones(len(qids), bool)
        qmask[0] = qmask[-1] = False
        qnum = 1.0 if NUMQ.search(it["text"]) else 0.0
        qwho = 1.0 if WHO.search(it["text"]) else 0.0
        for c in it["cands"]:
            fst = stems(c["content"])
            c["stem_idf"] = sum(max(idf[w], 0) for w in qst if w in fst) / tot
            # rare-in-scope words only (entity/subject words shared by few memories)
            rare = [w for w in qst if df.get(w, 0) and df[w] <= max(2, N * 0.02)]
            c["rare"] = sum(1 for w in rare if w in fst) / (len(rare) or 1) if rare else 0.0
            fids, ftv = it["ctok"][c["content"]]
            fm = np.ones(len(fids), bool)
            fm[0] = fm[-1] = False
            S = qtv[qmask] @ ftv[fm].T
            c["maxsim"] = float(S.max(1).mean())
            c["maxsim_rev"] = float(S.max(0).mean())
            c["num"] = qnum * (1.0 if NUMF.search(c["content"]) else -1.0)
            c["who"] = qwho * (1.0 if caps(c["content"]) >= 2 else -1.0)
    return items


def build_qtok(items, emb):
    """Features from the query's token vectors against the fact's pooled (stored) vector."""
    texts = sorted({c["content"] for it in items for c in it["cands"]})
    V = dict(zip(texts, emb.embed(texts)))
    for it in items:
        qids, qtv = it["qtok"]
        q = qtv[1:-1]
        for c in it["cands"]:
            s = q @ V[c["content"]]
            c["qtok_max"] = float(s.max())
            c["qtok_top2"] = float(np.sort(s)[-2:].mean()) if len(s) > 1 else float(s.max())
            c["qtok_lse"] = float(np.log(np.exp(10 * s).mean()) / 10)
    return items
