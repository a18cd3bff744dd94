"""Details of an indexed project the indexer's own routes do not list: its files, and the
files it leaves out with the reason for each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from neuralgentics.memini import ChunkStore, NotFound, decode_text, resolve_root, select_files

MAX_LISTED = 5000


@dataclass
class SkippedFile:
    path: str
    reason: str


def _indexed_root(cs: ChunkStore, root: str) -> str:
    # Only projects already in the index: this is a view of the index, not a file browser.
    roots = {p.root for p in cs.projects()}
    if root in roots:
        return root
    try:
        resolved = str(resolve_root(root))
    except Exception:  # noqa: BLE001 - a bad path is reported like an unknown project
        resolved = root
    if resolved not in roots:
        raise NotFound(f"{root!r} is not an indexed project", field="root")
    return resolved


def project_files(cs: ChunkStore, root: str, limit: int = MAX_LISTED) -> dict[str, Any]:
    root = _indexed_root(cs, root)
    states = sorted(cs.file_states(root).values(), key=lambda s: s.path)
    by_language: dict[str, int] = {}
    for s in states:
        by_language[s.language] = by_language.get(s.language, 0) + 1
    return {
        "root": root,
        "total": len(states),
        "chunks": sum(s.chunks for s in states),
        "languages": dict(sorted(by_language.items(), key=lambda kv: -kv[1])),
        "files": [
            {"path": s.path, "language": s.language, "chunks": s.chunks, "size": s.size}
            for s in states[:limit]
        ],
    }


def skipped_files(cs: ChunkStore, root: str, limit: int = MAX_LISTED) -> dict[str, Any]:
    """What a run of the indexer would leave out now: the selection's verdicts (ignore rules,
    size, kind), plus files that passed them but are not in the index, read again to say why."""
    root = _indexed_root(cs, root)
    selection = select_files(resolve_root(root))
    out = [SkippedFile(s.path, s.reason) for s in selection.skipped]
    indexed = cs.file_states(root)
    for cand in selection.candidates:
        if cand.path in indexed:
            continue
        try:
            _, why = decode_text(cand.abspath.read_bytes())
        except OSError as exc:
            why = f"unreadable: {exc.strerror or exc}"
        out.append(SkippedFile(cand.path, why or "not indexed yet (new since the last run)"))
    out.sort(key=lambda s: s.path)
    return {
        "root": root,
        "total": len(out),
        "files": [{"path": s.path, "reason": s.reason} for s in out[:limit]],
    }
