-- The project indexer: one row per indexed file (what it looked like when indexed, so a re-run
-- can skip it without reading it), where each chunk sits in its file, keyword search over the
-- chunks, and the vector log that keeps the chunks' HNSW index beside the database in step.

CREATE TABLE indexed_projects (
    root        TEXT PRIMARY KEY,
    created_at  TEXT NOT NULL,
    -- 'indexing' while a run is writing; a run that never finished is repaired by the next
    status      TEXT NOT NULL DEFAULT 'indexing' CHECK (status IN ('indexing', 'ready')),
    indexed_at  TEXT,
    last_run    TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE project_files (
    project      TEXT NOT NULL,
    path         TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    mtime_ns     INTEGER NOT NULL,
    size         INTEGER NOT NULL,
    language     TEXT NOT NULL,
    chunks       INTEGER NOT NULL,
    indexed_at   TEXT NOT NULL,
    PRIMARY KEY (project, path)
) WITHOUT ROWID;

ALTER TABLE project_chunks ADD COLUMN start_line INTEGER NOT NULL DEFAULT 1;
ALTER TABLE project_chunks ADD COLUMN end_line INTEGER NOT NULL DEFAULT 1;
ALTER TABLE project_chunks ADD COLUMN language TEXT NOT NULL DEFAULT 'text';
ALTER TABLE project_chunks ADD COLUMN symbol TEXT;
ALTER TABLE project_chunks ADD COLUMN kind TEXT NOT NULL DEFAULT 'lines';
-- sha256 of `content` (the text that was embedded): the same text is never embedded twice
ALTER TABLE project_chunks ADD COLUMN chunk_hash TEXT NOT NULL DEFAULT '';
-- identifiers split into words (parseConfig → parse config) so keywords find code names
ALTER TABLE project_chunks ADD COLUMN terms TEXT NOT NULL DEFAULT '';
CREATE INDEX project_chunks_hash ON project_chunks (chunk_hash);

CREATE VIRTUAL TABLE project_chunks_fts USING fts5(
    content, symbol, file_path, terms,
    content='project_chunks', content_rowid='rowid', tokenize='porter unicode61'
);
CREATE TRIGGER project_chunks_fts_ai AFTER INSERT ON project_chunks BEGIN
    INSERT INTO project_chunks_fts (rowid, content, symbol, file_path, terms)
    VALUES (new.rowid, new.content, new.symbol, new.file_path, new.terms);
END;
CREATE TRIGGER project_chunks_fts_ad AFTER DELETE ON project_chunks BEGIN
    INSERT INTO project_chunks_fts (project_chunks_fts, rowid, content, symbol, file_path, terms)
    VALUES ('delete', old.rowid, old.content, old.symbol, old.file_path, old.terms);
END;
CREATE TRIGGER project_chunks_fts_au AFTER UPDATE OF content, symbol, file_path, terms
    ON project_chunks BEGIN
    INSERT INTO project_chunks_fts (project_chunks_fts, rowid, content, symbol, file_path, terms)
    VALUES ('delete', old.rowid, old.content, old.symbol, old.file_path, old.terms);
    INSERT INTO project_chunks_fts (rowid, content, symbol, file_path, terms)
    VALUES (new.rowid, new.content, new.symbol, new.file_path, new.terms);
END;

CREATE TRIGGER project_chunks_vec_ai AFTER INSERT ON project_chunks BEGIN
    INSERT INTO vector_log (tbl, key, op) VALUES ('project_chunks', new.rowid, 'add');
END;
CREATE TRIGGER project_chunks_vec_au AFTER UPDATE OF embedding ON project_chunks BEGIN
    INSERT INTO vector_log (tbl, key, op) VALUES ('project_chunks', new.rowid, 'add');
END;
CREATE TRIGGER project_chunks_vec_ad AFTER DELETE ON project_chunks BEGIN
    INSERT INTO vector_log (tbl, key, op) VALUES ('project_chunks', old.rowid, 'del');
END;
