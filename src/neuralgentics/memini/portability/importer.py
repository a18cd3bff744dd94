"""Import: an export file back into a store, all of it or none of it.

Two passes over the file. The first reads and checks every line without touching the store
(shape, values, ids repeated in the file, order, the end line's counts) and embeds every
memory's text: a vector in the file is checked but never stored (a hostile file could give a
text another text's vector, to rank first for its questions). Any bad line fails the import
here, naming its line number. Lines are read with a bounded reader: one longer than
MAX_LINE_BYTES is refused without ever being held whole. The second pass writes
in one transaction: a memory or relationship whose id is already stored with the same record is
left alone (so importing a file twice changes nothing); one stored differently, or a memory
whose content the project already holds under another id, is a conflict. Conflicts are never
overwritten: with `on_conflict="fail"` (the default) the transaction is rolled back and the
conflicts reported; with `"skip"` the rest is written and the conflicts reported.

An import changes only what it adds (issue 28 item 5): an edge is written only between memories
of the file, or from one of them to a stored memory of the same owner (reported); any other
edge — to another project's or session's memory, or between two memories the file does not
hold — is a conflict. Imported trust history is kept as history under the event `imported`
and the actor `import` (format.imported_event), never as the events it names.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import IO, Any, Literal

import numpy as np

from neuralgentics.embeddings import Embedder
from neuralgentics.memini import scopes
from neuralgentics.memini.errors import Conflict, InvalidInput
from neuralgentics.memini.portability import format as fmt
from neuralgentics.memini.store import transfer
from neuralgentics.memini.store.base import Relationship, Store

OnConflict = Literal["fail", "skip"]
MAX_PROBLEMS = 20  # bad lines reported at most (the first ones)
EMBED_BATCH = 64
MAX_LINE_BYTES = 1 << 22  # far above a memory's 64 kB content plus its embedding
# A line longer than the limit is read past in pieces of this size, never held whole.
_SKIP_PIECE = 1 << 20
# A file's vector this far from its text's (cosine) is counted as not matching it.
MATCHING_VECTOR = 0.98


@dataclass
class Problem:
    line: int
    message: str
    field: str | None = None
    id: str | None = None


@dataclass
class Counts:
    added: int = 0
    unchanged: int = 0
    conflicts: int = 0


@dataclass
class ImportReport:
    memories: Counts = field(default_factory=Counts)
    relationships: Counts = field(default_factory=Counts)
    trust_events: int = 0  # trust events written (those of added memories), as `imported`
    reembedded: int = 0  # memories embedded here: every added one (file vectors are not used)
    # added memories whose vector in the file was not their text's (cosine < MATCHING_VECTOR)
    vectors_replaced: int = 0
    conflicts: list[Problem] = field(default_factory=list)
    # edges written from a memory of the file to a stored memory of the same owner
    linked_existing: list[Problem] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class BadImportFile(InvalidInput):
    """The file has bad lines; nothing was written."""

    def __init__(self, problems: list[Problem]) -> None:
        first = problems[0]
        more = f" (and {len(problems) - 1} more bad lines)" if len(problems) > 1 else ""
        super().__init__(f"line {first.line}: {first.message}{more}", field=first.field)
        self.problems = problems

    def detail(self) -> dict[str, Any]:
        return {
            **super().detail(),
            "line": self.problems[0].line,
            "problems": [asdict(p) for p in self.problems],
        }


class ImportConflicts(Conflict):
    """Records conflict with what the store holds; with on_conflict="fail" nothing was written."""

    def __init__(self, report: ImportReport) -> None:
        first = report.conflicts[0]
        super().__init__(
            f"{len(report.conflicts)} record(s) conflict with the store, nothing was imported;"
            f" first: line {first.line}: {first.message} (import with on_conflict=skip to"
            " write the rest and keep the stored versions)",
            field="on_conflict",
        )
        self.report = report

    def detail(self) -> dict[str, Any]:
        return {**super().detail(), "conflicts": [asdict(p) for p in self.report.conflicts]}


def import_file(
    store: Store,
    embedder: Embedder,
    source: IO[bytes],
    *,
    on_conflict: OnConflict = "fail",
) -> ImportReport:
    """Import an export file (a seekable binary file) into `store`; see the module's docstring."""
    if on_conflict not in ("fail", "skip"):
        raise InvalidInput("on_conflict must be 'fail' or 'skip'", field="on_conflict")
    vectors, memories = _check(source, embedder)

    def write(w: transfer.Writer) -> ImportReport:
        w.bulk(memories)
        report = _write(w, source, vectors)
        w.bulk_done()
        if report.conflicts and on_conflict == "fail":
            raise ImportConflicts(report)  # rolls the transaction back
        return report

    return transfer.in_transaction(store, write)


def _lines(source: IO[bytes]) -> Iterator[tuple[int, bytes | None]]:
    """Each line with its number, read at most MAX_LINE_BYTES (+1) at a time: a longer line is
    None, its bytes read past in pieces (before: the whole line was read, then refused; one
    of 256 MiB added 521 MiB to the peak)."""
    source.seek(0)
    number = 0
    while raw := source.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(raw) <= MAX_LINE_BYTES:
            yield number, raw
            continue
        while raw and not raw.endswith(b"\n"):
            raw = source.readline(_SKIP_PIECE)
        yield number, None


def model_id(embedder: Embedder) -> str:
    """Names the vectors an embedder makes (recorded in an export's header)."""
    return str(getattr(embedder, "vectors_id", None) or embedder.model_name)


def _check(source: IO[bytes], embedder: Embedder) -> tuple[dict[int, np.ndarray], int]:
    """Pass one: every line checked, nothing written. Returns the vectors made here (one per
    memory, from its text), by line, and the number of memories in the file."""
    problems: list[Problem] = []
    memory_ids: set[str] = set()
    contents: dict[tuple[str, str], int] = {}  # (project, content_hash) -> its line
    relationship_ids: set[str] = set()
    edges: set[tuple[str, str, str]] = set()
    to_embed: list[tuple[int, str]] = []
    counts = {"memory": 0, "relationship": 0, "trust_events": 0}
    seen_header = seen_end = False
    last_kind = "header"
    number = 0

    def bad(number: int, message: str, fld: str | None = None, rid: str | None = None) -> None:
        problems.append(Problem(number, message, fld, rid))

    for number, raw in _lines(source):
        if len(problems) >= MAX_PROBLEMS:
            break
        if raw is None:
            bad(number, f"line is longer than {MAX_LINE_BYTES} bytes ({MAX_LINE_BYTES >> 20} MiB)")
            continue
        if not raw.strip():
            bad(number, "empty line")
            continue
        if seen_end:
            bad(number, "a line after the end record")
            continue
        try:
            line = fmt.parse(raw)
            if not seen_header and not isinstance(line, fmt.HeaderLine):
                bad(number, "the file must start with the header record", "type")
                seen_header = True
                continue
            if isinstance(line, fmt.HeaderLine):
                if seen_header:
                    bad(number, "a second header record", "type")
                    continue
                seen_header = True
            elif isinstance(line, fmt.MemoryLine):
                if last_kind == "relationship":
                    bad(number, "memory records must come before relationship records", "type")
                    continue
                last_kind = "memory"
                memory, events = fmt.to_memory(line)
                if memory.id in memory_ids:
                    bad(number, f"memory {memory.id} appears twice in the file", "id", memory.id)
                    continue
                key = (memory.project, memory.content_hash)
                if key in contents:
                    bad(
                        number,
                        f"memory {memory.id} has the same content and project as line"
                        f" {contents[key]}",
                        "content",
                        memory.id,
                    )
                    continue
                contents[key] = number
                memory_ids.add(memory.id)
                counts["memory"] += 1
                counts["trust_events"] += len(events)
                if line.embedding is not None:
                    fmt.decode_vector(line.embedding)  # a bad one is a bad line
                to_embed.append((number, memory.content))  # never stored from the file
            elif isinstance(line, fmt.RelationshipLine):
                last_kind = "relationship"
                rel = fmt.to_relationship(line)
                edge = (rel.source_id, rel.target_id, rel.relationship_type)
                if rel.id in relationship_ids:
                    bad(number, f"relationship {rel.id} appears twice in the file", "id", rel.id)
                    continue
                if edge in edges:
                    bad(number, f"the edge {' '.join(edge)} appears twice in the file", "id")
                    continue
                relationship_ids.add(rel.id)
                edges.add(edge)
                counts["relationship"] += 1
            elif isinstance(line, fmt.EndLine):
                seen_end = True
                found = (counts["memory"], counts["relationship"], counts["trust_events"])
                said = (line.memories, line.relationships, line.trust_events)
                if found != said:
                    bad(
                        number,
                        f"the end record counts {said[0]} memories, {said[1]} relationships and"
                        f" {said[2]} trust events; the file holds {found[0]}, {found[1]} and"
                        f" {found[2]}",
                        "end",
                    )
        except InvalidInput as exc:
            bad(number, exc.message, exc.field)
    if number == 0:
        bad(1, "the file is empty: an export starts with a header record", "type")
    elif not problems and not seen_end:
        bad(number, "the file has no end record: it was cut short (nothing was imported)", "end")
    if problems:
        raise BadImportFile(problems)
    vectors: dict[int, np.ndarray] = {}
    for start in range(0, len(to_embed), EMBED_BATCH):
        batch = to_embed[start : start + EMBED_BATCH]
        made = embedder.embed([text for _, text in batch])
        for (number, _), vector in zip(batch, made, strict=True):
            vectors[number] = np.asarray(vector, dtype=np.float32)
    return vectors, counts["memory"]


CHUNK = 500  # memory lines looked up and written together (a round trip per chunk, not per row)


def _write(w: transfer.Writer, source: IO[bytes], vectors: dict[int, np.ndarray]) -> ImportReport:
    """Pass two, inside the transaction: the lines were checked by `_check`."""
    report = ImportReport()
    skipped: set[str] = set()  # memories in conflict: their edges are not made
    # memories of the file now stored (added or unchanged), with their owners
    present: dict[str, scopes.Owner] = {}
    superseded: set[str] = set()
    chunk: list[tuple[int, fmt.MemoryLine]] = []

    def conflict(number: int, message: str, rid: str) -> None:
        report.conflicts.append(Problem(number, message, "id", rid))

    def flush() -> None:
        parsed = [(number, line, *fmt.to_memory(line)) for number, line in chunk]
        chunk.clear()
        stored = w.memories([memory.id for _, _, memory, _ in parsed])
        history = w.events(list(stored))
        fresh = [p for p in parsed if p[2].id not in stored]
        taken = w.ids_by_hash([(m.project, m.content_hash) for _, _, m, _ in fresh])
        rows: list[transfer.ImportedMemory] = []
        for number, line, memory, events in parsed:
            held = stored.get(memory.id)
            if held is not None:
                same = fmt.memory_record(held, history.get(held.id, []), None)
                # as the file says it (into the store it came from), or as an import stored it
                if same in (
                    fmt.memory_record(memory, events, None),
                    fmt.memory_record(memory, fmt.as_imported(events), None),
                ):
                    report.memories.unchanged += 1
                    present[memory.id] = scopes.placed(memory).owner
                else:
                    report.memories.conflicts += 1
                    skipped.add(memory.id)
                    conflict(
                        number,
                        f"memory {memory.id} is stored with other content, fields or trust"
                        " history; the stored one is kept",
                        memory.id,
                    )
                continue
            other = taken.get((memory.project, memory.content_hash))
            if other is not None:
                report.memories.conflicts += 1
                skipped.add(memory.id)
                conflict(
                    number,
                    f"memory {memory.id}: project {memory.project!r} already holds this content"
                    f" as memory {other}",
                    memory.id,
                )
                continue
            vector = vectors[number]  # _check embedded every memory's text
            report.reembedded += 1
            if line.embedding is not None:
                given = fmt.decode_vector(line.embedding)
                if float(given @ vector) < MATCHING_VECTOR:
                    report.vectors_replaced += 1
            rows.append(transfer.ImportedMemory(memory, vector, fmt.as_imported(events)))
            present[memory.id] = scopes.placed(memory).owner
            report.memories.added += 1
            report.trust_events += len(events)
        w.insert_memories(rows)

    for number, raw in _lines(source):
        assert raw is not None  # _check refused every line too long
        line = fmt.parse(raw)
        if isinstance(line, fmt.MemoryLine):
            chunk.append((number, line))
            if len(chunk) >= CHUNK:
                flush()
            continue
        if chunk:
            flush()
        if isinstance(line, fmt.RelationshipLine):
            rel = fmt.to_relationship(line)
            ends = (rel.source_id, rel.target_id)
            held = [end for end in ends if end in skipped]
            if held:
                report.relationships.conflicts += 1
                conflict(number, f"relationship {rel.id}: memory {held[0]} conflicted", rel.id)
                continue
            stored_ends: dict[str, scopes.Owner] = {}
            for end in ends:
                if end in present:
                    continue
                held_memory = w.memory(end)
                if held_memory is None:
                    raise BadImportFile(
                        [
                            Problem(
                                number,
                                f"memory {end} is neither in the file nor in the store",
                                "source_id" if end == rel.source_id else "target_id",
                                rel.id,
                            )
                        ]
                    )
                stored_ends[end] = scopes.placed(held_memory).owner
            refused = _foreign_edge(rel, present, stored_ends)
            if refused:
                report.relationships.conflicts += 1
                conflict(number, refused, rel.id)
                continue
            stored_rel = w.relationship(rel.id)
            if stored_rel is not None:
                if fmt.relationship_record(stored_rel) == fmt.relationship_record(rel):
                    report.relationships.unchanged += 1
                else:
                    report.relationships.conflicts += 1
                    conflict(
                        number,
                        f"relationship {rel.id} is stored differently; the stored one is kept",
                        rel.id,
                    )
                continue
            existing = w.edge_id(rel.source_id, rel.target_id, rel.relationship_type)
            if existing is not None:
                report.relationships.conflicts += 1
                conflict(
                    number,
                    f"{rel.source_id} {rel.relationship_type} {rel.target_id} is already stored"
                    f" as relationship {existing}",
                    rel.id,
                )
                continue
            if rel.relationship_type == "SUPERSEDES" and w.reaches(rel.target_id, rel.source_id):
                report.relationships.conflicts += 1
                conflict(
                    number,
                    f"{rel.source_id} SUPERSEDES {rel.target_id} would close a supersession"
                    " cycle with the stored edges",
                    rel.id,
                )
                continue
            w.insert_relationship(rel)
            report.relationships.added += 1
            for end, owner in stored_ends.items():
                report.linked_existing.append(
                    Problem(
                        number,
                        f"relationship {rel.id}: {rel.relationship_type} links the file's memory"
                        f" to stored memory {end} ({_owner_text(owner)})",
                        "source_id" if end == rel.source_id else "target_id",
                        rel.id,
                    )
                )
            if rel.relationship_type == "SUPERSEDES":
                superseded.add(rel.target_id)
    if chunk:
        flush()
    w.refresh_superseded(sorted(superseded))
    return report


def _owner_text(owner: scopes.Owner) -> str:
    return owner.scope if owner.key is None else f"{owner.scope} {owner.key!r}"


def _foreign_edge(
    rel: Relationship, present: dict[str, scopes.Owner], stored: dict[str, scopes.Owner]
) -> str | None:
    """Why the edge may not be written (None: it may): an import links its own memories, or
    one of them to a stored memory of the same owner; never two memories it does not hold, nor
    across owners (a hostile file hid another project's memory with a SUPERSEDES edge)."""
    if len(stored) == 2:
        return (
            f"relationship {rel.id} links two memories the file does not hold"
            f" ({rel.source_id}, {rel.target_id}); an import links only its own memories"
        )
    for end, owner in stored.items():
        other = rel.target_id if end == rel.source_id else rel.source_id
        mine = present[other]
        if owner != mine:
            return (
                f"relationship {rel.id}: {rel.relationship_type} would link the file's memory"
                f" {other} ({_owner_text(mine)}) to stored memory {end} of another owner"
                f" ({_owner_text(owner)}); an import links only memories of the same owner"
            )
    return None
