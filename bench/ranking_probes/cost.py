import statistics
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
from memory_evalkit import Embedder, load_set

e = Embedder()
e.embed_one("warm")
facts = [r["fact"] for r in load_set("memory_paraphrase")]
enc = e._loaded_lanes().main if hasattr(e, "_loaded_lanes") else None
raw = enc._encoder if enc else None
for n in (1, 5, 10, 20):
    ts = []
    for i in range(30):
        batch = facts[i * 3 % 150 : i * 3 % 150 + n]
        t = time.perf_counter()
        raw.encode(batch)
        ts.append((time.perf_counter() - t) * 1000)
    print(n, "texts p50 ms", round(statistics.median(ts), 2))
