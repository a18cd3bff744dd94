-- The transport's session beside the calling agent's (issue 18, item 5).
ALTER TABLE broker_audit ADD COLUMN IF NOT EXISTS connection text;
