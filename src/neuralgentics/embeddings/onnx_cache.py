"""Where the built ONNX graphs of all-MiniLM-L6-v2 live, and how to find them again.

The cache sits under the user's cache dir unless the caller names another folder (the
``model_cache`` setting, ``NEURALGENTICS_MODEL_CACHE``; never under ``NEURALGENTICS_HOME``: the
temporary homes tests make must not each build the graph again). Each build has its own folder named after the weight source, a
digest of its file and the build recipe, so a new weights package or a changed recipe never
reads a stale graph. Nothing here needs torch or onnx.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from neuralgentics import errors
from neuralgentics.filemodes import atomic_path, atomic_write, new_file_mode

MODEL_NAME = "all-MiniLM-L6-v2"
# Bump when the built graph changes shape or meaning (inputs, outputs, pooling, opset).
BUILD_RECIPE = "graph-mean-l2-opset17-v2"

FP32_FILE = "model.onnx"
INT8_FILE = "model-int8.onnx"
MANIFEST_FILE = "manifest.json"
# Memo of source digests keyed by (path, size, mtime): hashing the weights on every process
# start would cost more than loading the graph.
_DIGEST_MEMO = ".source-digests.json"


class ModelUnavailable(errors.Unavailable, RuntimeError):
    """The embedding model cannot be loaded; the message says what to run or install. An HTTP
    front answers it 503 like any `Unavailable`; a command exits 3."""

    code = "model_unavailable"


def cache_root(configured: Path | None = None) -> Path:
    """The cache folder: the configured one (``Settings.model_cache``), else the user's."""
    if configured is not None:
        return Path(configured).expanduser()
    return Path(platformdirs.user_cache_dir("neuralgentics")) / "models"


def file_digest(path: Path, cache: Path | None = None) -> str:
    """sha256 of a file, memoised in the cache by (path, size, mtime)."""
    path = path.resolve()
    stat = path.stat()
    key = f"{path}:{stat.st_size}:{stat.st_mtime_ns}"
    memo_path = cache_root(cache) / _DIGEST_MEMO
    memo = _read_json(memo_path)
    if isinstance(memo.get(key), str):
        return memo[key]
    with path.open("rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    memo[key] = digest
    try:
        atomic_write_bytes(memo_path, json.dumps(memo, indent=1).encode())
    except OSError:
        pass  # a read-only cache only costs the re-hash next time
    return digest


@dataclass(frozen=True)
class BuildPaths:
    dir: Path

    @property
    def fp32(self) -> Path:
        return self.dir / FP32_FILE

    @property
    def int8(self) -> Path:
        return self.dir / INT8_FILE

    @property
    def manifest(self) -> Path:
        return self.dir / MANIFEST_FILE

    def graph(self, *, int8: bool = False) -> Path:
        return self.int8 if int8 else self.fp32

    def complete(self, *, int8: bool = False) -> bool:
        """A folder counts only once its manifest exists (written last)."""
        return self.graph(int8=int8).is_file() and self.manifest.is_file()

    def read_manifest(self) -> dict[str, Any]:
        return _read_json(self.manifest)


def build_paths(source: str, digest: str, cache: Path | None = None) -> BuildPaths:
    """The folder the graphs built from that source file belong in (whether or not it exists)."""
    tag = hashlib.sha256(f"{digest}:{BUILD_RECIPE}".encode()).hexdigest()[:16]
    return BuildPaths(cache_root(cache) / f"{MODEL_NAME}-{source}-{tag}")


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, data, mode=new_file_mode())


@contextmanager
def atomic_target(path: Path) -> Iterator[Path]:
    """Yield a temporary path beside `path`; on success it replaces `path` in one rename, so a
    reader sees either the old file or the whole new one, never a partial write."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path, mode=new_file_mode()) as tmp:
        yield tmp


@contextmanager
def build_lock(directory: Path) -> Iterator[None]:
    """One builder per build folder across processes; the others wait, then find it done."""
    import fcntl

    directory.mkdir(parents=True, exist_ok=True)
    with (directory / ".lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}
