-- Counting a project's live memories (to choose exact vs ANN search) from the index alone.
CREATE INDEX memories_project_live ON memories (project, superseded_by);

-- Document frequency of every indexed term: keyword search picks a query's rare words by it,
-- so a question full of common words does not score most of the table.
CREATE VIRTUAL TABLE memories_fts_vocab USING fts5vocab(memories_fts, 'row');
