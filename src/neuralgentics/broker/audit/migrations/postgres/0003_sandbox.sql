-- The sandbox profile of the server that answered (issue 29, sandboxed servers).
ALTER TABLE broker_audit ADD COLUMN IF NOT EXISTS sandbox text;
