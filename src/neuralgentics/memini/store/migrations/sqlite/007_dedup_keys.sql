-- De-duplication keys that cannot collide (issue 28 item 4). Every row gets a provisional key
-- unique by its id; the migration's Python step (memini/store/rekey.py) then writes the key
-- scopes.dedup_key computes: sha256 of a JSON array of scope, project, agent, session and the
-- content, for every scope (before: sha256(content) for project scope and a separator-joined
-- prefix for the others, which a project memory's text could spell).
UPDATE memories SET content_hash = 'rekey:' || id;
