-- Memory scopes beyond project (issue 17 item 6; memini/scopes.py holds the rules). ADD COLUMN
-- with a constant default rewrites nothing: every existing row becomes project scope as it is
-- (ids, rowids, vectors, the usearch index untouched). The inline UNIQUE (project,
-- content_hash) stays (dropping it needs SQLite's table rebuild); content_hash is the
-- per-owner dedup key instead, which for project scope is sha256(content) as before.
ALTER TABLE memories ADD COLUMN scope TEXT NOT NULL DEFAULT 'project'
    CHECK (scope IN ('user', 'project', 'agent', 'session'));
ALTER TABLE memories ADD COLUMN agent TEXT NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN session TEXT NOT NULL DEFAULT '';
-- each branch of a scoped filter's OR is indexable (SQLite's multi-index OR); the filter
-- names the scope as a literal (scopes.owner_sql) so the partial indexes apply
CREATE INDEX memories_scope_project ON memories (scope, project, superseded_by);
CREATE INDEX memories_agent ON memories (agent) WHERE scope = 'agent';
CREATE INDEX memories_session ON memories (session) WHERE scope = 'session';
CREATE INDEX memories_user_scope ON memories (scope) WHERE scope = 'user';
