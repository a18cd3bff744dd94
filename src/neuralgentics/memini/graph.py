"""Breadth-first traversal of the memory graph: cycle-safe, bounded in depth and size."""

from __future__ import annotations

from dataclasses import dataclass, field

from neuralgentics.memini.store.base import Relationship, Store

MAX_DEPTH = 5
MAX_NODES = 500


@dataclass
class Step:
    relationship: Relationship
    # "out": the edge leaves the node before it on the path; "in": it arrives there
    direction: str


@dataclass
class Reached:
    memory_id: str
    distance: int
    path: list[Step] = field(default_factory=list)


def related(
    store: Store, start_id: str, *, depth: int = 1, types: list[str] | None = None
) -> tuple[list[Reached], list[Relationship]]:
    """Memories within `depth` edges of `start_id` (either direction), nearest first,
    each with the shortest path that reached it; plus every edge seen on the way."""
    seen: dict[str, Reached] = {start_id: Reached(start_id, 0)}
    edges: dict[str, Relationship] = {}
    frontier = [start_id]
    for distance in range(1, depth + 1):
        if not frontier or len(seen) >= MAX_NODES:
            break
        next_frontier: list[str] = []
        current = set(frontier)
        for rel in store.edges_of(frontier, types):
            edges[rel.id] = rel
            for here, there, direction in (
                (rel.source_id, rel.target_id, "out"),
                (rel.target_id, rel.source_id, "in"),
            ):
                if here in current and there not in seen and len(seen) < MAX_NODES:
                    seen[there] = Reached(there, distance, [*seen[here].path, Step(rel, direction)])
                    next_frontier.append(there)
        frontier = next_frontier
    reached = sorted((r for r in seen.values() if r.distance > 0), key=lambda r: r.distance)
    return reached, list(edges.values())
