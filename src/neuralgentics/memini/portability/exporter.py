"""Export: a store's memories as JSON Lines (format.py), streamed page by page."""

from __future__ import annotations

from collections.abc import Iterator

from neuralgentics.memini.portability import format as fmt
from neuralgentics.memini.scopes import Owner
from neuralgentics.memini.store import transfer
from neuralgentics.memini.store.base import MemoryFilter, Store
from neuralgentics.memini.store.validate import check_filter


def export_lines(
    store: Store,
    *,
    project: str | None = None,
    owners: list[Owner] | None = None,
    embedding_model: str | None = None,
    with_embeddings: bool = True,
) -> Iterator[str]:
    """Each line of the export, newline included: the header, every memory (superseded ones
    too) oldest first, every relationship whose two ends are both exported, the end line.

    The filter is checked before the first line is produced, so a bad one fails before a
    response starts. `owners` (memini/scopes.py, `search_owners`): only those owners'
    memories, as a query with the same scope arguments searches them. Not a snapshot: a memory written while the export runs may or may not be
    in it, but the end line always counts exactly what was written."""
    flt = check_filter(MemoryFilter(project=project, include_superseded=True, owners=owners))
    return _lines(store, flt, embedding_model if with_embeddings else None, with_embeddings)


def _lines(
    store: Store, flt: MemoryFilter, model: str | None, with_embeddings: bool
) -> Iterator[str]:
    yield fmt.dumps(fmt.header(model, flt.project)) + "\n"
    exported: set[str] = set()
    events = 0
    for page in transfer.memory_pages(store, flt, with_embeddings=with_embeddings):
        for row in page:
            exported.add(row.memory.id)
            events += len(row.events)
            yield fmt.dumps(fmt.memory_record(row.memory, row.events, row.embedding)) + "\n"
    edges = 0
    for rels in transfer.relationship_pages(store):
        for rel in rels:
            if rel.source_id in exported and rel.target_id in exported:
                edges += 1
                yield fmt.dumps(fmt.relationship_record(rel)) + "\n"
    yield fmt.dumps(fmt.end_record(len(exported), edges, events)) + "\n"
