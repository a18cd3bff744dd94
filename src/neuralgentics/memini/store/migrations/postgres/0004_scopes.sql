-- Memory scopes beyond project (issue 17 item 6; memini/scopes.py holds the rules). ADD COLUMN
-- with a constant default is a catalog change only: existing rows become project scope as they
-- are. UNIQUE (project, content_hash) stays; content_hash is the per-owner dedup key, which
-- for project scope is sha256(content) as before.
ALTER TABLE memories ADD COLUMN scope TEXT NOT NULL DEFAULT 'project'
    CHECK (scope IN ('user', 'project', 'agent', 'session'));
ALTER TABLE memories ADD COLUMN agent TEXT NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN session TEXT NOT NULL DEFAULT '';
-- the filter names the scope as a literal (scopes.owner_sql) so the partial indexes apply
CREATE INDEX memories_scope_project ON memories (scope, project);
CREATE INDEX memories_agent ON memories (agent) WHERE scope = 'agent';
CREATE INDEX memories_session ON memories (session) WHERE scope = 'session';
CREATE INDEX memories_user_scope ON memories (scope) WHERE scope = 'user';
