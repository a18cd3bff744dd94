-- The project indexer on PostgreSQL: file states for incremental runs, where each chunk sits in
-- its file, and full-text search over the chunks (symbol and path weigh more than the body).

CREATE TABLE indexed_projects (
    root        TEXT PRIMARY KEY,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    -- 'indexing' while a run is writing; a run that never finished is repaired by the next
    status      TEXT NOT NULL DEFAULT 'indexing' CHECK (status IN ('indexing', 'ready')),
    indexed_at  TIMESTAMPTZ,
    last_run    JSONB NOT NULL DEFAULT '{}'::jsonb
);

CREATE TABLE project_files (
    project      TEXT NOT NULL,
    path         TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    mtime_ns     BIGINT NOT NULL,
    size         BIGINT NOT NULL,
    language     TEXT NOT NULL,
    chunks       INT NOT NULL,
    indexed_at   TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (project, path)
);

ALTER TABLE project_chunks
    ADD COLUMN start_line INT NOT NULL DEFAULT 1,
    ADD COLUMN end_line   INT NOT NULL DEFAULT 1,
    ADD COLUMN language   TEXT NOT NULL DEFAULT 'text',
    ADD COLUMN symbol     TEXT,
    ADD COLUMN kind       TEXT NOT NULL DEFAULT 'lines',
    -- sha256 of `content` (the text that was embedded): the same text is never embedded twice
    ADD COLUMN chunk_hash TEXT NOT NULL DEFAULT '',
    -- identifiers split into words (parseConfig → parse config) so keywords find code names
    ADD COLUMN terms      TEXT NOT NULL DEFAULT '';

ALTER TABLE project_chunks ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', coalesce(symbol, '')), 'A')
    || setweight(to_tsvector('english', coalesce(file_path, '')), 'B')
    || setweight(to_tsvector('english', coalesce(terms, '')), 'C')
    || setweight(to_tsvector('english', coalesce(content, '')), 'D')
) STORED;

CREATE INDEX project_chunks_search_tsv_gin ON project_chunks USING gin (search_tsv);
CREATE INDEX project_chunks_hash ON project_chunks (chunk_hash);
