"""SUPERSEDES must stay acyclic: in a cycle every memory is superseded by another, so all of
them vanish from lists and queries. Both stores refuse the edge that would close one, inside
the transaction that would insert it (the recursive check is SQL; this builds the message)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

from neuralgentics.memini.errors import Conflict

# A recursive CTE over SUPERSEDES edges: everything `start` (first parameter) supersedes,
# directly or through others; UNION (not UNION ALL) visits each memory once, so it ends.
# The placeholder style differs per driver: format with "?" (SQLite) or "%s" (psycopg).
REACHES = (
    "WITH RECURSIVE reach(id) AS ("
    " SELECT {p}"
    " UNION"
    " SELECT r.target_id FROM memory_relationships r JOIN reach ON r.source_id = reach.id"
    " WHERE r.relationship_type = 'SUPERSEDES')"
    " SELECT 1 FROM reach WHERE id = {p} LIMIT 1"
)


# a memory id as the store's driver gives it (str on SQLite, uuid.UUID on PostgreSQL)
K = TypeVar("K", bound=Hashable)


def path_between(
    start: K, goal: K, superseded_by: Callable[[list[K]], Iterable[tuple[K, K]]]
) -> list[K]:
    """The SUPERSEDES chain start → … → goal (breadth-first, so the shortest); `superseded_by`
    returns the (source, target) SUPERSEDES edges leaving the given memories."""
    parent: dict[K, K | None] = {start: None}
    frontier = [start]
    while frontier and goal not in parent:
        nxt: list[K] = []
        for src, dst in superseded_by(frontier):
            if dst not in parent:
                parent[dst] = src
                nxt.append(dst)
        frontier = nxt
    if goal not in parent:
        return [start, goal]
    chain = [goal]
    step = parent[goal]
    while step is not None:
        chain.append(step)
        step = parent[step]
    return chain[::-1]


def refuse(source_id: str, target_id: str, chain: list[str]) -> Conflict:
    shown = " SUPERSEDES ".join(chain)
    return Conflict(
        f"{source_id} SUPERSEDES {target_id} would close a supersession cycle: {shown} already"
        " holds, and in a cycle every memory is hidden as superseded. Delete one edge of the"
        " chain first, or link them another way (RELATED_TO, CONTRADICTS)",
        field="target_id",
    )
