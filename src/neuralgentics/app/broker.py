"""The broker, composed: what it needs from outside its own area.

The broker's library takes everything it does not own as arguments: its settings (where its
files go), the embedder and the persisted vector cache of its intent matchers, and the skills
it offers beside tools. The skills are the orchestrator's markdown skills (project `skills/`
of the directory the broker starts in, the user's config dir, the built-ins; the project's
win), read through the orchestrator's registry, which reloads a changed file by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path

from neuralgentics.broker.intent.embedcache import EmbeddingCache
from neuralgentics.broker.intent.tools import Intents, MatcherPool
from neuralgentics.broker.skillcatalog.records import SkillRecord, skill_records
from neuralgentics.config import Settings
from neuralgentics.embeddings import BACKENDS, Embedder, MiniLMEmbedder


def skill_source(
    settings: Settings, project_dir: Path | None = None
) -> Callable[[], list[SkillRecord]]:
    """The skills as plain records, read when asked (a changed file is picked up)."""
    from neuralgentics.orchestrator.skills import SkillRegistry, SkillSource, builtin_skills_dir

    project = project_dir if project_dir is not None else Path.cwd()
    registry = SkillRegistry(
        [
            SkillSource("project", project / "skills"),
            SkillSource("user", settings.config_dir / "skills"),
            SkillSource("builtin", builtin_skills_dir()),
        ]
    )
    return lambda: skill_records(registry.skills())


def intent_cache(settings: Settings) -> EmbeddingCache:
    """Tool and skill vectors kept across processes (a restarted broker, the CLI)."""
    return EmbeddingCache(settings.home / "broker" / "embeddings.npz")


def query_embedder(settings: Settings, embedder: Embedder) -> Embedder | None:
    """Intents through another backend than the tools' (`intent_query_backend`, e.g. onnx-int8:
    about half the per-intent latency), or None for the tools' own."""
    backend = (settings.intent_query_backend or "").strip().lower()
    if not backend or backend == getattr(embedder, "requested_backend", None):
        return None
    if backend not in BACKENDS:
        raise ValueError(
            f"NEURALGENTICS_INTENT_QUERY_BACKEND={backend!r} is not an embedding backend: "
            f"choose one of {', '.join(BACKENDS)}"
        )
    return MiniLMEmbedder(
        backend, threads=settings.embedding_threads, model_cache=settings.model_cache
    )


def intents(settings: Settings, embedder: Embedder, project_dir: Path | None = None) -> Intents:
    pool = MatcherPool(
        embedder, cache=intent_cache(settings), query_embedder=query_embedder(settings, embedder)
    )
    return Intents(pool, skill_source(settings, project_dir))


def run_stdio(
    settings: Settings,
    config_path: Path | str | None,
    role: str | None,
    session_id: str | None = None,
) -> None:
    """`neuralgentics broker stdio`: the broker as one MCP server on stdin/stdout."""
    from neuralgentics.app.process import shared_embedder
    from neuralgentics.broker.server.stdio import run, serve_stdio

    composed = intents(settings, shared_embedder())
    with contextlib.suppress(asyncio.CancelledError, KeyboardInterrupt):
        run(
            serve_stdio(
                config_path, role, settings=settings, intents=composed, session_id=session_id
            )
        )
