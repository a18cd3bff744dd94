-- memini-core on PostgreSQL + pgvector: the seed's three tables plus what the contract needs.
-- Applied once by PostgresStore at start-up (see postgres.py: advisory lock + schema_migrations).

CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE memories (
    id            UUID PRIMARY KEY,
    content       TEXT NOT NULL,
    embedding     vector(384) NOT NULL,
    trust_score   FLOAT NOT NULL DEFAULT 0.5 CHECK (trust_score >= 0 AND trust_score <= 1),
    source_type   VARCHAR(50),
    created_at    TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    metadata      JSONB NOT NULL DEFAULT '{}'::jsonb,
    project       TEXT NOT NULL DEFAULT '',
    tags          TEXT[] NOT NULL DEFAULT '{}',
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    content_hash  TEXT NOT NULL,
    -- the memory that SUPERSEDES this one; kept in step with memory_relationships by the store
    superseded_by UUID REFERENCES memories (id) ON DELETE SET NULL,
    -- 'english' stems words so "indexes" finds "index"; code identifiers stay whole lowercase words
    content_tsv   tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED,
    CONSTRAINT memories_project_content_hash_key UNIQUE (project, content_hash)
);

-- cosine distance (<=>) on L2-normalised MiniLM vectors; m/ef_construction are pgvector's defaults
CREATE INDEX memories_embedding_hnsw ON memories USING hnsw (embedding vector_cosine_ops)
    WITH (m = 16, ef_construction = 64);
CREATE INDEX memories_content_tsv_gin ON memories USING gin (content_tsv);
CREATE INDEX memories_tags_gin ON memories USING gin (tags);
CREATE INDEX memories_project_created ON memories (project, created_at DESC);
CREATE INDEX memories_created ON memories (created_at DESC, id DESC);
CREATE INDEX memories_superseded_by ON memories (superseded_by) WHERE superseded_by IS NOT NULL;

CREATE TABLE memory_relationships (
    id                UUID PRIMARY KEY,
    source_id         UUID NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    target_id         UUID NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    relationship_type VARCHAR(50) NOT NULL
        CHECK (relationship_type IN ('SUPERSEDES', 'RELATED_TO', 'CONTRADICTS', 'DERIVED_FROM')),
    confidence        FLOAT NOT NULL DEFAULT 1.0 CHECK (confidence >= 0 AND confidence <= 1),
    created_at        TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    metadata          JSONB NOT NULL DEFAULT '{}'::jsonb,
    CONSTRAINT memory_relationships_edge_key UNIQUE (source_id, target_id, relationship_type),
    CONSTRAINT memory_relationships_no_self_loop CHECK (source_id <> target_id)
);

CREATE INDEX memory_relationships_target ON memory_relationships (target_id);

CREATE TABLE trust_events (
    id          BIGSERIAL PRIMARY KEY,
    memory_id   UUID NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    event       VARCHAR(50) NOT NULL,
    delta       FLOAT NOT NULL,
    actor       TEXT,
    score_after FLOAT NOT NULL,
    note        TEXT,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);

CREATE INDEX trust_events_memory ON trust_events (memory_id, id);

CREATE TABLE project_chunks (
    id        UUID PRIMARY KEY,
    project   TEXT NOT NULL DEFAULT '',
    file_path TEXT,
    content   TEXT,
    embedding vector(384),
    metadata  JSONB NOT NULL DEFAULT '{}'::jsonb
);

CREATE INDEX project_chunks_embedding_hnsw ON project_chunks USING hnsw (embedding vector_cosine_ops);
CREATE INDEX project_chunks_project_file ON project_chunks (project, file_path);
