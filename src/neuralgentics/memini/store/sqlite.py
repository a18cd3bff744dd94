"""The embedded store: one SQLite file (WAL, FTS5) and a usearch HNSW index beside it."""

from __future__ import annotations

import json
import re
import sqlite3
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from neuralgentics.db.sqlite import SQLiteDatabase
from neuralgentics.memini import scopes
from neuralgentics.memini.errors import Conflict, InvalidInput, NotFound
from neuralgentics.memini.generation import Generation
from neuralgentics.memini.store import cycles, repair
from neuralgentics.memini.store.base import (
    ID_TABLES,
    IdKind,
    Memory,
    MemoryFilter,
    MemoryPatch,
    NewLink,
    NewMemory,
    ProjectMove,
    Relationship,
    TrustChange,
    TrustEvent,
    from_milli,
    to_milli,
)
from neuralgentics.memini.store.batches import in_batches
from neuralgentics.memini.store.migrations import COMPONENT, migrations
from neuralgentics.memini.store.validate import (
    check_change,
    check_filter,
    check_new_link,
    check_new_memory,
    check_patch,
    check_vector,
)
from neuralgentics.memini.store.vectors import DIM, VectorIndex, from_blob, to_blob
from neuralgentics.text import MEMORY_STOPWORDS, stemmer

_MEMORY_COLUMNS = (
    "m.id, m.content, m.trust_score, m.source_type, m.project, m.tags, m.metadata, "
    "m.content_hash, m.created_at, m.updated_at, m.superseded_by, m.scope, m.agent, m.session, "
    "m.origin, m.origin_project, m.quarantined"
)
_WORD = re.compile(r"\w+", re.UNICODE)
# Filters that leave at most this many rows are searched exactly (measured: ~5 ms here).
EXACT_LIMIT = 5_000


def now() -> datetime:
    return datetime.now(UTC)


def _ts(value: datetime) -> str:
    return value.isoformat(timespec="microseconds")


def _memory(row: tuple) -> Memory:
    # The fast path (every row a read meets) checks cheaply that nothing needs repair.
    if (
        repair.clean_text(row[1], row[3], row[4])
        and repair.clean_json_text(row[5])
        and repair.clean_json_text(row[6])
    ):
        try:
            tags, metadata = json.loads(row[5]), json.loads(row[6])
            created, updated = datetime.fromisoformat(row[8]), datetime.fromisoformat(row[9])
        except (TypeError, ValueError):
            pass
        else:
            if (
                isinstance(tags, list)
                and isinstance(metadata, dict)
                and all(isinstance(t, str) for t in tags)
            ):
                return Memory(
                    row[0],
                    row[1],
                    row[2],
                    row[3],
                    row[4],
                    tags,
                    metadata,
                    row[7],
                    created,
                    updated,
                    row[10],
                    row[11],
                    row[12],
                    row[13],
                    row[14],
                    row[15],
                    bool(row[16]),
                )
    return _repaired_memory(row)


def _repaired_memory(row: tuple) -> Memory:
    fix = repair.Repairs("memory", row[0])
    memory = Memory(
        id=row[0],
        content=repair.fix_optional_text(row[1], fix, "content") or "",
        trust_score=row[2],
        source_type=repair.fix_optional_text(row[3], fix, "source_type"),
        project=repair.fix_optional_text(row[4], fix, "project") or "",
        tags=repair.tags(repair.json_text(row[5], fix, "tags", []), fix),
        metadata=repair.metadata(repair.json_text(row[6], fix, "metadata", {}), fix),
        content_hash=row[7],
        created_at=repair.timestamp(row[8], fix, "created_at"),
        updated_at=repair.timestamp(row[9], fix, "updated_at"),
        superseded_by=row[10],
        scope=row[11],
        agent=row[12],
        session=row[13],
        origin=row[14],
        origin_project=row[15],
        quarantined=bool(row[16]),
    )
    fix.report()
    return memory


def _relationship(row: tuple) -> Relationship:
    fix = repair.Repairs("relationship", row[0])
    rel = Relationship(
        id=row[0],
        source_id=row[1],
        target_id=row[2],
        relationship_type=row[3],
        confidence=row[4],
        created_at=repair.timestamp(row[5], fix, "created_at"),
        metadata=repair.metadata(repair.json_text(row[6], fix, "metadata", {}), fix),
    )
    fix.report()
    return rel


def _trust_event(row: tuple) -> TrustEvent:
    fix = repair.Repairs("trust event", row[0])
    event = TrustEvent(
        id=row[0],
        memory_id=row[1],
        event=repair.fix_optional_text(row[2], fix, "event") or "",
        delta=from_milli(row[3]),
        actor=repair.fix_optional_text(row[4], fix, "actor"),
        score_after=from_milli(row[5]),
        note=repair.fix_optional_text(row[6], fix, "note"),
        created_at=repair.timestamp(row[7], fix, "created_at"),
        origin=row[8],
        session=row[9],
    )
    fix.report()
    return event


# A keyword query scores at most about this many rows: its rarest words are kept while their
# document frequencies add up to no more (the same rule as the PostgreSQL store).
KEYWORD_ROW_BUDGET = 2_000


def _quote(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def fts_query(
    text: str, doc_freq: Callable[[list[str]], dict[str, int]] | None = None
) -> str | None:
    """Any user text as a safe FTS5 query: its words, each quoted, any of them may match.

    With `doc_freq` (stem -> number of rows), only the rarest words are kept within
    KEYWORD_ROW_BUDGET; when even the rarest is that frequent, every word must match.
    """
    all_words = _WORD.findall(text)
    words = list(dict.fromkeys(w.lower() for w in all_words if w.lower() not in MEMORY_STOPWORDS))
    words = words or list(dict.fromkeys(w.lower() for w in all_words))
    if not words:
        return None
    if doc_freq is None:
        return " OR ".join(_quote(w) for w in words)
    # FTS5's "porter" tokenizer is the original Porter algorithm; so is this stemmer.
    stems = stemmer("porter").stemWords(words)
    freq = doc_freq(stems)
    ranked = sorted(zip(words, stems), key=lambda pair: freq.get(pair[1], 0))
    if freq.get(ranked[0][1], 0) > KEYWORD_ROW_BUDGET:
        return " AND ".join(_quote(w) for w in words)
    chosen: list[str] = []
    rows = 0
    for word, stem in ranked:
        rows += freq.get(stem, 0)
        if chosen and rows > KEYWORD_ROW_BUDGET:
            break
        chosen.append(word)
    return " OR ".join(_quote(w) for w in chosen)


def _where(flt: MemoryFilter, alias: str = "m") -> tuple[str, list]:
    check_filter(flt)
    clauses: list[str] = []
    params: list = []
    if flt.owners is not None:
        owned, owner_params = scopes.owner_sql(flt.owners, "?", alias)
        clauses.append(owned)
        params += owner_params
    elif flt.project is not None:
        clauses.append(f"{alias}.project = ? AND {alias}.scope = 'project'")
        params.append(flt.project)
    if flt.source_type is not None:
        clauses.append(f"{alias}.source_type = ?")
        params.append(flt.source_type)
    if flt.min_trust is not None:
        clauses.append(f"{alias}.trust_score >= ?")
        params.append(flt.min_trust)
    if not flt.include_superseded:
        clauses.append(f"{alias}.superseded_by IS NULL")
    for tag in dict.fromkeys(flt.tags):
        clauses.append(
            f"EXISTS (SELECT 1 FROM memory_tags t WHERE t.tag = ? AND t.memory_rowid = {alias}.rowid)"
        )
        params.append(tag)
    return (" AND ".join(clauses) or "1"), params


class SQLiteStore:
    """The memory store on one SQLite file (the default). Only queries live here: connections,
    transactions, file modes and migrations are `neuralgentics.db.sqlite.SQLiteDatabase`
    (`self.db`)."""

    kind = "sqlite"

    def __init__(self, path: Path | str, *, index_dir: Path | None = None) -> None:
        self.path = Path(path)
        index_dir = index_dir or self.path.parent
        self.db = SQLiteDatabase(self.path, also_private=[index_dir])
        self.generation = Generation()
        self.db.migrate(COMPONENT, migrations("sqlite"))
        conn = self.db.connection()
        conn.executescript(
            "CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        )
        # names this database for the vector index beside it (a copied file is a new one)
        conn.execute(
            "INSERT OR IGNORE INTO store_meta (key, value) VALUES ('db_id', ?)",
            (str(uuid.uuid4()),),
        )
        db_id = conn.execute("SELECT value FROM store_meta WHERE key = 'db_id'").fetchone()[0]
        self.vectors = VectorIndex("memories", index_dir / f"{self.path.name}.memories.usearch")
        self.vectors.open(conn, db_id)

    def _conn(self) -> sqlite3.Connection:
        return self.db.connection()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self.db.transaction() as conn:
            yield conn
        self.generation.bump()  # committed: readers of memories build afresh

    def schema_version(self) -> int:
        return self.db.schema_version(COMPONENT)

    def ping(self) -> None:
        self.db.ping()

    def close(self) -> None:
        try:
            self.vectors.sync(self._conn())
            self.vectors.save()
        finally:
            self.db.close()

    # -- memories -----------------------------------------------------------------------

    def _get(self, conn: sqlite3.Connection, memory_id: str) -> Memory | None:
        row = conn.execute(
            f"SELECT {_MEMORY_COLUMNS} FROM memories m WHERE m.id = ?", (memory_id,)
        ).fetchone()
        return _memory(row) if row else None

    def _require(self, conn: sqlite3.Connection, memory_id: str) -> Memory:
        memory = self._get(conn, memory_id)
        if memory is None:
            raise NotFound(f"memory {memory_id} does not exist", field="id")
        return memory

    def add_memory(
        self,
        new: NewMemory,
        *,
        on_duplicate: TrustChange | None = None,
        links: Sequence[NewLink] = (),
    ) -> tuple[Memory, bool]:
        new = check_new_memory(new)
        links = [check_new_link(link) for link in links]
        if on_duplicate is not None:
            check_change(on_duplicate)
        with self._tx() as conn:
            existing = conn.execute(
                "SELECT id FROM memories WHERE project = ? AND content_hash = ?",
                (new.project, new.content_hash),
            ).fetchone()
            if existing:
                if on_duplicate is not None:
                    self._apply_trust(conn, _retarget(on_duplicate, existing[0]))
                return self._require(conn, existing[0]), False
            memory_id = str(uuid.uuid4())
            stamp = _ts(now())
            tags = new.tags
            cur = conn.execute(
                "INSERT INTO memories (id, content, embedding, trust_score, source_type, created_at,"
                " updated_at, metadata, project, tags, content_hash, scope, agent, session,"
                " origin, origin_project, quarantined) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    memory_id,
                    new.content,
                    to_blob(new.embedding),
                    from_milli(to_milli(new.trust_score)),
                    new.source_type,
                    stamp,
                    stamp,
                    json.dumps(new.metadata),
                    new.project,
                    json.dumps(tags),
                    new.content_hash,
                    new.scope,
                    new.agent,
                    new.session,
                    new.origin,
                    new.origin_project,
                    int(new.quarantined),
                ),
            )
            conn.executemany(
                "INSERT INTO memory_tags (memory_rowid, tag) VALUES (?, ?)",
                [(cur.lastrowid, t) for t in tags],
            )
            for link in links:
                self._link(conn, memory_id, link)
            return self._require(conn, memory_id), True

    def get_memory(self, memory_id: str) -> Memory | None:
        return self._get(self._conn(), memory_id)

    def find_by_hash(self, project: str, content_hash: str) -> Memory | None:
        row = (
            self._conn()
            .execute(
                f"SELECT {_MEMORY_COLUMNS} FROM memories m WHERE m.project = ? AND m.content_hash = ?",
                (project, content_hash),
            )
            .fetchone()
        )
        return _memory(row) if row else None

    def get_memories(self, ids: list[str]) -> dict[str, Memory]:
        found: dict[str, Memory] = {}
        conn = self._conn()
        for part, marks in in_batches(ids):
            for row in conn.execute(
                f"SELECT {_MEMORY_COLUMNS} FROM memories m WHERE m.id IN ({marks})", part
            ):
                found[row[0]] = _memory(row)
        return found

    def list_memories(
        self, flt: MemoryFilter, *, limit: int = 50, offset: int = 0
    ) -> tuple[list[Memory], int]:
        where, params = _where(flt)
        conn = self._conn()
        total = conn.execute(f"SELECT count(*) FROM memories m WHERE {where}", params).fetchone()[0]
        rows = conn.execute(
            f"SELECT {_MEMORY_COLUMNS} FROM memories m WHERE {where}"
            " ORDER BY m.created_at DESC, m.rowid DESC LIMIT ? OFFSET ?",
            [*params, limit, offset],
        ).fetchall()
        return [_memory(r) for r in rows], total

    def update_memory(self, memory_id: str, patch: MemoryPatch) -> Memory:
        patch = check_patch(patch)
        with self._tx() as conn:
            current = self._require(conn, memory_id)
            sets: list[str] = []
            params: list = []
            if patch.content is not None:
                clash = conn.execute(
                    "SELECT id FROM memories WHERE project = ? AND content_hash = ? AND id <> ?",
                    (current.project, patch.content_hash, memory_id),
                ).fetchone()
                if clash:
                    raise Conflict(
                        f"memory {clash[0]} of this project already has this content",
                        field="content",
                    )
                sets += ["content = ?", "embedding = ?", "content_hash = ?"]
                assert patch.embedding is not None  # check_patch: content comes with its vector
                params += [patch.content, to_blob(patch.embedding), patch.content_hash]
            if patch.source_type is not None:
                sets.append("source_type = ?")
                params.append(patch.source_type)
            if patch.metadata is not None:
                sets.append("metadata = ?")
                params.append(json.dumps(patch.metadata))
            if patch.tags is not None:
                tags = patch.tags
                sets.append("tags = ?")
                params.append(json.dumps(tags))
                rowid = conn.execute(
                    "SELECT rowid FROM memories WHERE id = ?", (memory_id,)
                ).fetchone()[0]
                conn.execute("DELETE FROM memory_tags WHERE memory_rowid = ?", (rowid,))
                conn.executemany(
                    "INSERT INTO memory_tags (memory_rowid, tag) VALUES (?, ?)",
                    [(rowid, t) for t in tags],
                )
            if not sets:
                return current  # nothing to change: not even updated_at
            sets.append("updated_at = ?")
            params.append(_ts(now()))
            conn.execute(
                f"UPDATE memories SET {', '.join(sets)} WHERE id = ?", [*params, memory_id]
            )
            return self._require(conn, memory_id)

    def move_project(
        self, old: str, new: str, *, only_if_empty: bool = False, dry_run: bool = False
    ) -> ProjectMove:
        with self._tx() as conn:
            found = conn.execute(
                "SELECT count(*) FROM memories WHERE project = ? AND scope IN ('project', 'session')",
                (old,),
            ).fetchone()[0]
            result = ProjectMove(found=int(found))
            if not found or dry_run or old == new:
                return result
            if (
                only_if_empty
                and conn.execute(
                    "SELECT 1 FROM memories WHERE project = ? LIMIT 1", (new,)
                ).fetchone()
            ):
                result.refused = True
                return result
            moved = conn.execute(
                "UPDATE memories SET project = ? WHERE project = ? AND scope IN ('project', 'session')"
                " AND NOT EXISTS (SELECT 1 FROM memories o WHERE o.project = ?"
                " AND o.content_hash = memories.content_hash)",
                (new, old, new),
            ).rowcount
            result.moved, result.skipped = moved, result.found - moved
            return result

    def delete_memory(self, memory_id: str) -> bool:
        with self._tx() as conn:
            superseded = [
                r[0]
                for r in conn.execute(
                    "SELECT target_id FROM memory_relationships"
                    " WHERE source_id = ? AND relationship_type = 'SUPERSEDES'",
                    (memory_id,),
                )
            ]
            if conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,)).rowcount == 0:
                return False
            # Its edges went with it (ON DELETE CASCADE). A memory it superseded is current
            # again only if no other SUPERSEDES edge still points at it.
            for part, marks in in_batches(superseded):
                conn.execute(_SET_SUPERSEDED_BY.format(marks=marks), part)
            return True

    def get_embedding(self, memory_id: str) -> np.ndarray | None:
        row = (
            self._conn()
            .execute("SELECT embedding FROM memories WHERE id = ?", (memory_id,))
            .fetchone()
        )
        return from_blob(row[0]).copy() if row else None

    def get_embeddings(self, ids: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        conn = self._conn()
        for part, marks in in_batches(ids):
            for mid, blob in conn.execute(
                f"SELECT id, embedding FROM memories WHERE id IN ({marks})", part
            ):
                found[mid] = from_blob(blob).copy()
        return found

    # -- search -------------------------------------------------------------------------

    def vector_search(
        self, embedding: np.ndarray, flt: MemoryFilter, k: int
    ) -> list[tuple[str, float]]:
        embedding = check_vector(embedding)
        conn = self._conn()
        where, params = _where(flt)
        wanted = k
        if (
            flt.project is not None
            or flt.owners is not None
            or flt.source_type is not None
            or flt.tags
            or flt.min_trust is not None
        ):
            # A selective filter: exact search over the few rows that pass is fast and complete.
            matching = conn.execute(
                f"SELECT count(*) FROM memories m WHERE {where}", params
            ).fetchone()[0]
            if matching <= EXACT_LIMIT:
                return self._exact_search(conn, embedding, where, params, k)
            wanted = min(k, matching)
        total = len(self.vectors)
        fetch = max(k * 4, 40)
        # Over-fetch from the ANN index and filter in SQL, widening a few times; whatever is
        # still short falls back to exact search, so a filtered query never comes back short.
        for _ in range(3):
            hits = self.vectors.search(conn, embedding, fetch)
            if not hits:
                return []
            sims = dict(hits)
            keep = self._filter_rowids(conn, list(sims), where, params)
            if len(keep) >= wanted:
                ranked = sorted(keep, key=lambda item: -sims[item[0]])[:k]
                return [(mid, sims[rowid]) for rowid, mid in ranked]
            if fetch >= total:
                break
            fetch *= 8
        return self._exact_search(conn, embedding, where, params, k)

    @staticmethod
    def _filter_rowids(
        conn: sqlite3.Connection, rowids: list[int], where: str, params: list
    ) -> list[tuple[int, str]]:
        keep: list[tuple[int, str]] = []
        for part, marks in in_batches(rowids):
            keep += conn.execute(
                f"SELECT m.rowid, m.id FROM memories m WHERE m.rowid IN ({marks}) AND {where}",
                [*part, *params],
            ).fetchall()
        return keep

    @staticmethod
    def _exact_search(
        conn: sqlite3.Connection, embedding: np.ndarray, where: str, params: list, k: int
    ) -> list[tuple[str, float]]:
        rows = conn.execute(
            f"SELECT m.id, m.embedding FROM memories m WHERE {where}", params
        ).fetchall()
        if not rows:
            return []
        # One buffer for all the vectors, not an array per row: every add searches its owner's
        # memories this way (`similar`, update detection), and this search was ~2/3 of an add's
        # own CPU (cProfile, 600 memories), over a third of it making and stacking one array
        # per row. Same matrix, same products, same order.
        joined = b"".join([blob for _, blob in rows])
        if len(joined) != len(rows) * DIM * 4:  # a damaged row: say which, as vstack did not
            bad = next(mid for mid, blob in rows if len(blob) != DIM * 4)
            raise ValueError(f"memory {bad} has an embedding of the wrong size")
        matrix = np.frombuffer(joined, dtype="<f4").reshape(len(rows), DIM)
        sims = matrix @ np.asarray(embedding, dtype=np.float32)
        top = np.argsort(-sims)[:k]
        return [(rows[i][0], float(sims[i])) for i in top]

    def _doc_freq(self, stems: list[str]) -> dict[str, int]:
        # in batches: a long text's words once overran SQLite's variable limit (a 500)
        found: dict[str, int] = {}
        conn = self._conn()
        for part, marks in in_batches(list(dict.fromkeys(stems))):
            rows = conn.execute(
                f"SELECT term, doc FROM memories_fts_vocab WHERE term IN ({marks})", part
            )
            found.update(rows.fetchall())
        return found

    def keyword_search(self, text: str, flt: MemoryFilter, k: int) -> list[tuple[str, float]]:
        query = fts_query(text, self._doc_freq)
        if query is None:
            return []
        where, params = _where(flt)
        rows = (
            self._conn()
            .execute(
                "SELECT m.id, bm25(memories_fts) AS rank FROM memories_fts"
                " JOIN memories m ON m.rowid = memories_fts.rowid"
                f" WHERE memories_fts MATCH ? AND {where} ORDER BY rank LIMIT ?",
                [query, *params, k],
            )
            .fetchall()
        )
        # bm25() is lower-is-better and negative; flip it so higher is better like the contract.
        return [(mid, -rank) for mid, rank in rows]

    # -- trust --------------------------------------------------------------------------

    def _apply_trust(self, conn: sqlite3.Connection, change: TrustChange) -> TrustEvent:
        # Integer thousandths: the stored k / 1000.0 gives back k exactly, so no drift.
        # A trust event is not an edit: updated_at stays (its time is the event's created_at).
        # The event's band (TrustChange.bounded): an increase up to the ceiling, never down;
        # a decrease down to the floor, never up.
        old = "CAST(round(trust_score * 1000) AS INTEGER)"
        if change.delta_milli >= 0:
            score, bound = f"max({old}, min({old} + ?, ?))", min(change.ceiling_milli, 1000)
        else:
            score, bound = f"min({old}, max({old} + ?, ?))", max(change.floor_milli, 0)
        row = conn.execute(
            f"UPDATE memories SET trust_score = {score} / 1000.0,"
            " quarantined = CASE WHEN ? THEN 0 ELSE quarantined END"
            " WHERE id = ? RETURNING CAST(round(trust_score * 1000) AS INTEGER)",
            (change.delta_milli, bound, change.release, change.memory_id),
        ).fetchone()
        if row is None:
            raise NotFound(f"memory {change.memory_id} does not exist", field="id")
        stamp = _ts(now())
        cur = conn.execute(
            "INSERT INTO trust_events (memory_id, event, delta_milli, actor, score_after_milli,"
            " note, created_at, origin, session) VALUES (?,?,?,?,?,?,?,?,?)",
            (
                change.memory_id,
                change.event,
                change.delta_milli,
                change.actor,
                row[0],
                change.note,
                stamp,
                change.origin,
                change.session,
            ),
        )
        return TrustEvent(
            id=int(cur.lastrowid or 0),  # an INSERT always sets it
            memory_id=change.memory_id,
            event=change.event,
            delta=from_milli(change.delta_milli),
            actor=change.actor,
            score_after=from_milli(row[0]),
            note=change.note,
            created_at=datetime.fromisoformat(stamp),
            origin=change.origin,
            session=change.session,
        )

    def apply_trust(self, change: TrustChange) -> tuple[Memory, TrustEvent]:
        check_change(change)
        with self._tx() as conn:
            event = self._apply_trust(conn, change)
            return self._require(conn, change.memory_id), event

    def trust_history(self, memory_id: str) -> list[TrustEvent]:
        rows = (
            self._conn()
            .execute(
                "SELECT id, memory_id, event, delta_milli, actor, score_after_milli, note,"
                " created_at, origin, session FROM trust_events WHERE memory_id = ? ORDER BY id",
                (memory_id,),
            )
            .fetchall()
        )
        return [_trust_event(r) for r in rows]

    # -- graph --------------------------------------------------------------------------

    def add_relationship(
        self,
        source_id: str,
        target_id: str,
        relationship_type: str,
        confidence: float,
        metadata: dict | None = None,
        *,
        trust_change: TrustChange | None = None,
    ) -> Relationship:
        link = NewLink(target_id, relationship_type, confidence, metadata or {}, trust_change)
        return self.add_relationships(source_id, [link])[0]

    def add_relationships(self, source_id: str, links: Sequence[NewLink]) -> list[Relationship]:
        links = [check_new_link(link) for link in links]
        if any(link.target_id == source_id for link in links):
            raise InvalidInput("a memory cannot be related to itself", field="target_id")
        with self._tx() as conn:
            self._require(conn, source_id)
            made = [self._link(conn, source_id, link) for link in links]
            return [rel for rel in made if rel is not None]

    def _link(self, conn: sqlite3.Connection, source_id: str, link: NewLink) -> Relationship | None:
        """One edge inside the caller's transaction (the link checked by `check_new_link`);
        None when an optional target is gone."""
        target_id, relationship_type = link.target_id, link.relationship_type
        if self._get(conn, target_id) is None:
            if not link.required:
                return None
            raise NotFound(f"memory {target_id} does not exist", field="id")
        if conn.execute(
            "SELECT 1 FROM memory_relationships WHERE source_id = ? AND target_id = ?"
            " AND relationship_type = ?",
            (source_id, target_id, relationship_type),
        ).fetchone():
            raise Conflict(
                f"{source_id} {relationship_type} {target_id} already exists",
                field="relationship_type",
            )
        if (
            relationship_type == "SUPERSEDES"
            and conn.execute(cycles.REACHES.format(p="?"), (target_id, source_id)).fetchone()
        ):
            raise cycles.refuse(
                source_id,
                target_id,
                cycles.path_between(target_id, source_id, lambda ids: _supersedes_out(conn, ids)),
            )
        rel = Relationship(
            id=str(uuid.uuid4()),
            source_id=source_id,
            target_id=target_id,
            relationship_type=relationship_type,
            confidence=link.confidence,
            created_at=now(),
            metadata=link.metadata,
        )
        conn.execute(
            "INSERT INTO memory_relationships (id, source_id, target_id, relationship_type,"
            " confidence, created_at, metadata) VALUES (?,?,?,?,?,?,?)",
            (
                rel.id,
                source_id,
                target_id,
                relationship_type,
                rel.confidence,
                _ts(rel.created_at),
                json.dumps(rel.metadata),
            ),
        )
        if relationship_type == "SUPERSEDES":
            conn.execute(
                "UPDATE memories SET superseded_by = ? WHERE id = ?", (source_id, target_id)
            )
        if link.trust_change is not None:
            self._apply_trust(conn, link.trust_change)
        return rel

    def get_relationship(self, relationship_id: str) -> Relationship | None:
        row = (
            self._conn()
            .execute(
                "SELECT id, source_id, target_id, relationship_type, confidence, created_at, metadata"
                " FROM memory_relationships WHERE id = ?",
                (relationship_id,),
            )
            .fetchone()
        )
        return _relationship(row) if row else None

    def delete_relationship(self, relationship_id: str) -> bool:
        with self._tx() as conn:
            row = conn.execute(
                "DELETE FROM memory_relationships WHERE id = ? RETURNING source_id, target_id,"
                " relationship_type",
                (relationship_id,),
            ).fetchone()
            if row is None:
                return False
            if row[2] == "SUPERSEDES":
                # Another SUPERSEDES edge may still point at the target.
                conn.execute(_SET_SUPERSEDED_BY.format(marks="?"), (row[1],))
            return True

    def remove_relationships(
        self, relationship_ids: Sequence[str], changes: Sequence[TrustChange] = ()
    ) -> list[Relationship]:
        changes = [check_change(c) for c in changes]
        with self._tx() as conn:
            removed: list[Relationship] = []
            for rid in dict.fromkeys(relationship_ids):
                row = conn.execute(
                    "DELETE FROM memory_relationships WHERE id = ? RETURNING id, source_id,"
                    " target_id, relationship_type, confidence, created_at, metadata",
                    (rid,),
                ).fetchone()
                if row is None:
                    raise NotFound(f"relationship {rid} does not exist", field="id")
                removed.append(_relationship(row))
            targets = [r.target_id for r in removed if r.relationship_type == "SUPERSEDES"]
            for part, marks in in_batches(targets):
                conn.execute(_SET_SUPERSEDED_BY.format(marks=marks), part)
            for change in changes:
                self._apply_trust(conn, change)
            return removed

    def edges_of(self, ids: list[str], types: list[str] | None = None) -> list[Relationship]:
        if not ids:
            return []
        conn = self._conn()
        found: dict[str, Relationship] = {}
        type_clause = ""
        type_params: list = []
        if types:
            type_clause = f" AND relationship_type IN ({','.join('?' * len(types))})"
            type_params = list(types)
        for part, marks in in_batches(ids, 400):
            for row in conn.execute(
                "SELECT id, source_id, target_id, relationship_type, confidence, created_at,"
                f" metadata FROM memory_relationships WHERE (source_id IN ({marks})"
                f" OR target_id IN ({marks})){type_clause} ORDER BY created_at",
                [*part, *part, *type_params],
            ):
                found[row[0]] = _relationship(row)
        return list(found.values())

    def ids_between(self, kind: IdKind, low: str, high: str, limit: int) -> list[str]:
        table = ID_TABLES[kind]
        rows = (
            self._conn()
            .execute(
                f"SELECT id FROM {table} WHERE id BETWEEN ? AND ? ORDER BY id LIMIT ?",
                (low, high, limit),
            )
            .fetchall()
        )
        return [r[0] for r in rows]

    def counts(self) -> dict[str, int]:
        conn = self._conn()
        tables = {
            "memories": "memories",
            "relationships": "memory_relationships",
            "trust_events": "trust_events",
            "project_chunks": "project_chunks",
        }
        return {
            name: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for name, table in tables.items()
        }


# A memory's superseded_by from the SUPERSEDES edges left: the newest edge's source, or NULL
# (the same rule as the PostgreSQL store's).
_SET_SUPERSEDED_BY = """
UPDATE memories SET superseded_by = (
    SELECT r.source_id FROM memory_relationships r
    WHERE r.target_id = memories.id AND r.relationship_type = 'SUPERSEDES'
    ORDER BY r.created_at DESC, r.id DESC LIMIT 1)
WHERE id IN ({marks})
"""


def _supersedes_out(conn: sqlite3.Connection, ids: list[str]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for part, marks in in_batches(ids):
        out += conn.execute(
            "SELECT source_id, target_id FROM memory_relationships"
            f" WHERE relationship_type = 'SUPERSEDES' AND source_id IN ({marks})",
            part,
        ).fetchall()
    return out


def _retarget(change: TrustChange, memory_id: str) -> TrustChange:
    return TrustChange(memory_id, change.event, change.delta, change.actor, change.note)
