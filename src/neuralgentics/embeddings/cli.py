"""`neuralgentics model build|info`: the embedding model's ONNX graph and its state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from neuralgentics.config import Settings
from neuralgentics.exits import fail

model_app = typer.Typer(
    help="The embedding model (all-MiniLM-L6-v2): build and inspect.", no_args_is_help=True
)


@model_app.command("build")
def build(
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print nothing unless it fails"),
    int8: bool = typer.Option(False, "--int8", help="Also write the dynamic-int8 graph"),
    reference: bool = typer.Option(
        False, "--reference", help="Build from the reference fp32 weights (the torch extra)"
    ),
    force: bool = typer.Option(False, "--force", help="Build again even if the cache has it"),
) -> None:
    """Build the ONNX graph from the installed weights into the model cache (about a second;
    instant when it is there). The service also does this by itself on first use."""
    from neuralgentics.config import get_settings
    from neuralgentics.embeddings.onnx_build import build_model
    from neuralgentics.embeddings.onnx_cache import ModelUnavailable

    cache = get_settings().model_cache
    try:
        result = build_model(
            "reference" if reference else "packaged", int8=int8, force=force, cache=cache
        )
    except ModelUnavailable as exc:
        fail(exc)
    if quiet:
        return
    if result.created:
        for path in result.created:
            typer.echo(f"built {path} ({_mib(path)}) in {result.seconds:.1f} s")
    else:
        typer.echo(f"already built: {result.paths.dir}")


@model_app.command("info")
def info(as_json: bool = typer.Option(False, "--json", help="Print JSON")) -> None:
    """Where the weights come from, where the graphs are, and which backend would run."""
    from neuralgentics.config import get_settings

    report = model_info(get_settings())
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    for key, value in report.items():
        typer.echo(f"{key:>18}: {value}")


def model_info(settings: Settings) -> dict[str, Any]:
    import importlib.util

    from neuralgentics.embeddings import DIM, MODEL_NAME
    from neuralgentics.embeddings import onnx_cache as cache
    from neuralgentics.embeddings.onnx_build import find_build
    from neuralgentics.embeddings.onnx_session import default_threads
    from neuralgentics.embeddings.onnx_weights import SOURCES, model_config, weight_source

    report: dict[str, Any] = {
        "model": MODEL_NAME,
        "dim": DIM,
        "max_length": model_config()["max_seq_length"],
    }
    report["cache"] = str(cache.cache_root(settings.model_cache))
    for source in SOURCES:
        try:
            src = weight_source(source, settings.model_cache)
        except cache.ModelUnavailable as exc:
            report[f"{source}_weights"] = f"unavailable: {exc}"
            continue
        report[f"{source}_weights"] = f"{src.path} ({src.package})"
        for label, int8 in (("onnx", False), ("onnx_int8", True)):
            found = find_build(source, int8=int8, cache=settings.model_cache)
            graph = found.graph(int8=int8) if found else None
            report[f"{source}_{label}"] = f"{graph} ({_mib(graph)})" if graph else "not built yet"
    backend = (settings.embedding_backend or "auto").strip().lower()
    report["backend_setting"] = backend
    report["backend_effective"] = "onnx" if backend == "auto" else backend
    report["torch_installed"] = importlib.util.find_spec("torch") is not None
    report["threads"] = default_threads(settings.embedding_threads)
    return report


def _mib(path: Path) -> str:
    return f"{path.stat().st_size / 2**20:.1f} MiB"


def register(app: typer.Typer) -> None:
    """Add `neuralgentics model ...` to the main app."""
    app.add_typer(model_app, name="model")
