-- One row per task holding its JSON record; `version` guards each step (optimistic locking).
-- IF NOT EXISTS: files written before the migration runner already have the table.
CREATE TABLE IF NOT EXISTS orchestrator_tasks (
    id TEXT PRIMARY KEY,
    session TEXT NOT NULL,
    status TEXT NOT NULL,
    version INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS orchestrator_tasks_session ON orchestrator_tasks(session);
