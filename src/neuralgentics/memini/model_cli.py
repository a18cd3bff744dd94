"""`neuralgentics model export|info`: the embedding model's one-off ONNX export and its state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

model_app = typer.Typer(help="The embedding model (all-MiniLM-L6-v2): export and inspect.", no_args_is_help=True)


@model_app.command("export")
def export(
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print nothing unless it fails"),
    int8: bool = typer.Option(False, "--int8", help="Also write the dynamic-int8 graph"),
    force: bool = typer.Option(False, "--force", help="Export again even if the cache has it"),
) -> None:
    """Export the packaged weights to ONNX in the model cache (instant when already there)."""
    from neuralgentics.memini._onnx_cache import ModelUnavailable
    from neuralgentics.memini._onnx_export import export_model

    try:
        result = export_model(int8=int8, force=force)
    except ModelUnavailable as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    if quiet:
        return
    if result.created:
        for path in result.created:
            typer.echo(f"exported {path} ({_mib(path)}) in {result.seconds:.1f} s")
    else:
        typer.echo(f"already exported: {result.paths.dir}")


@model_app.command("info")
def info(as_json: bool = typer.Option(False, "--json", help="Print JSON")) -> None:
    """Where the model comes from, where its export is, and which backend would run."""
    report = model_info()
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    for key, value in report.items():
        typer.echo(f"{key:>18}: {value}")


def model_info() -> dict[str, Any]:
    import importlib.util

    from neuralgentics.memini import _onnx_cache as cache
    from neuralgentics.memini._onnx_session import default_threads
    from neuralgentics.memini.embeddings import DIM, MODEL_NAME, _configured_backend

    report: dict[str, Any] = {"model": MODEL_NAME, "dim": DIM}
    try:
        source = cache.source_dir()
        report["source"] = str(source)
        report["source_sha256"] = cache.weights_digest(source)
        report["max_length"] = cache.max_seq_length(source)
    except cache.ModelUnavailable as exc:
        report["source"] = f"unavailable: {exc}"
    report["cache"] = str(cache.cache_root())
    for label, int8 in (("onnx", False), ("onnx_int8", True)):
        found = cache.find_export(int8=int8)
        graph = None if found is None else (found.int8 if int8 else found.fp32)
        report[label] = f"{graph} ({_mib(graph)})" if graph else "not exported"
    backend = _configured_backend()
    report["backend_setting"] = backend
    torch_ok = importlib.util.find_spec("torch") is not None
    report["torch_installed"] = torch_ok
    if backend == "auto":
        report["backend_effective"] = (
            "onnx" if cache.find_export() else ("onnx (exported on first use)" if torch_ok else "none: run `neuralgentics model export`")
        )
    else:
        report["backend_effective"] = backend
    report["threads"] = default_threads()
    return report


def _mib(path: Path) -> str:
    return f"{path.stat().st_size / 2**20:.1f} MiB"


def register(app: typer.Typer) -> None:
    """Add `neuralgentics model ...` to the main app."""
    app.add_typer(model_app, name="model")
