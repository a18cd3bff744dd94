-- One row per call (and per admin operation). IF NOT EXISTS: databases written before the
-- migration runner already have the table, with or without the two later columns.
CREATE TABLE IF NOT EXISTS broker_audit (
    id          bigserial PRIMARY KEY,
    time        timestamptz NOT NULL,
    session_id  text,
    role        text,
    server      text NOT NULL,
    tool        text NOT NULL,
    args        jsonb NOT NULL,
    args_sha256 text NOT NULL,
    outcome     text NOT NULL,
    error       text,
    rule        text,
    latency_ms  double precision NOT NULL,
    bytes_in    integer NOT NULL,
    bytes_out   integer NOT NULL,
    front       text NOT NULL
);
CREATE INDEX IF NOT EXISTS broker_audit_time ON broker_audit (time);
ALTER TABLE broker_audit ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'call';
ALTER TABLE broker_audit ADD COLUMN IF NOT EXISTS credential text;
