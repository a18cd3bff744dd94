-- The seed's three tables, plus what trust history, the graph, de-duplication and
-- keyword search need. Ids are UUID strings; the integer rowid keys the ANN index.

CREATE TABLE memories (
    rowid          INTEGER PRIMARY KEY,
    id             TEXT NOT NULL UNIQUE,
    content        TEXT NOT NULL,
    embedding      BLOB NOT NULL,            -- float32[384], little-endian
    trust_score    REAL NOT NULL DEFAULT 0.5 CHECK (trust_score BETWEEN 0 AND 1),
    source_type    TEXT,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    metadata       TEXT NOT NULL DEFAULT '{}',
    project        TEXT NOT NULL DEFAULT '',
    tags           TEXT NOT NULL DEFAULT '[]',
    content_hash   TEXT NOT NULL,
    superseded_by  TEXT,
    UNIQUE (project, content_hash)
);
CREATE INDEX memories_project_created ON memories (project, created_at);
CREATE INDEX memories_source_type ON memories (source_type);

CREATE TABLE memory_tags (
    memory_rowid INTEGER NOT NULL REFERENCES memories(rowid) ON DELETE CASCADE,
    tag          TEXT NOT NULL,
    PRIMARY KEY (tag, memory_rowid)
) WITHOUT ROWID;

CREATE VIRTUAL TABLE memories_fts USING fts5(
    content, content='memories', content_rowid='rowid', tokenize='porter unicode61'
);
CREATE TRIGGER memories_fts_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER memories_fts_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
END;
CREATE TRIGGER memories_fts_au AFTER UPDATE OF content ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
    INSERT INTO memories_fts (rowid, content) VALUES (new.rowid, new.content);
END;

-- Every change of a vector, in order: the ANN index beside the database replays it, so the
-- index can always be brought back in step with the rows (after a crash, or a write made by
-- another process).
CREATE TABLE vector_log (
    seq   INTEGER PRIMARY KEY AUTOINCREMENT,
    tbl   TEXT NOT NULL,
    key   INTEGER NOT NULL,
    op    TEXT NOT NULL CHECK (op IN ('add', 'del'))
);
CREATE TRIGGER memories_vec_ai AFTER INSERT ON memories BEGIN
    INSERT INTO vector_log (tbl, key, op) VALUES ('memories', new.rowid, 'add');
END;
CREATE TRIGGER memories_vec_au AFTER UPDATE OF embedding ON memories BEGIN
    INSERT INTO vector_log (tbl, key, op) VALUES ('memories', new.rowid, 'add');
END;
CREATE TRIGGER memories_vec_ad AFTER DELETE ON memories BEGIN
    INSERT INTO vector_log (tbl, key, op) VALUES ('memories', old.rowid, 'del');
END;

CREATE TABLE memory_relationships (
    id                 TEXT PRIMARY KEY,
    source_id          TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    target_id          TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    relationship_type  TEXT NOT NULL
        CHECK (relationship_type IN ('SUPERSEDES', 'RELATED_TO', 'CONTRADICTS', 'DERIVED_FROM')),
    confidence         REAL NOT NULL DEFAULT 1.0 CHECK (confidence BETWEEN 0 AND 1),
    created_at         TEXT NOT NULL,
    metadata           TEXT NOT NULL DEFAULT '{}',
    CHECK (source_id <> target_id),
    UNIQUE (source_id, target_id, relationship_type)
);
CREATE INDEX memory_relationships_target ON memory_relationships (target_id);

CREATE TABLE trust_events (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id    TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
    event        TEXT NOT NULL,
    delta        REAL NOT NULL,
    actor        TEXT,
    score_after  REAL NOT NULL,
    note         TEXT,
    created_at   TEXT NOT NULL
);
CREATE INDEX trust_events_memory ON trust_events (memory_id, id);

CREATE TABLE project_chunks (
    rowid      INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    project    TEXT NOT NULL DEFAULT '',
    file_path  TEXT NOT NULL,
    content    TEXT NOT NULL,
    embedding  BLOB,
    metadata   TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX project_chunks_file ON project_chunks (project, file_path);
