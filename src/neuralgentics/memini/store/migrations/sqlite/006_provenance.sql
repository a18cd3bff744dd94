-- Provenance (issue 28; memini/provenance.py holds the rules). Every trust event records who
-- made it (origin: user, agent, system, import; session: the agent's session), and every
-- memory who wrote it and from which project, and whether it still waits for a user's
-- confirmation before it may reach other projects (quarantined).
ALTER TABLE memories ADD COLUMN origin TEXT NOT NULL DEFAULT 'user'
    CHECK (origin IN ('user', 'agent', 'system', 'import'));
ALTER TABLE memories ADD COLUMN origin_project TEXT NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN quarantined INTEGER NOT NULL DEFAULT 0
    CHECK (quarantined IN (0, 1));
ALTER TABLE trust_events ADD COLUMN origin TEXT NOT NULL DEFAULT 'user'
    CHECK (origin IN ('user', 'agent', 'system', 'import'));
ALTER TABLE trust_events ADD COLUMN session TEXT;

-- Existing rows. The plugin's memory_feedback wrote the model's verdicts as user events (its
-- note says so): they become the agent's events they were. agent_used was always the agent's
-- (or the orchestrator's for it); a contradiction was update detection's.
UPDATE trust_events SET origin = 'agent',
    event = CASE event
        WHEN 'user_confirmed' THEN 'agent_confirmed'
        WHEN 'user_rejected' THEN 'agent_rejected'
        WHEN 'contradicted' THEN 'agent_rejected'
        ELSE event END
    WHERE note LIKE 'memory_feedback:%';
UPDATE trust_events SET origin = 'agent' WHERE event = 'agent_used';
UPDATE trust_events SET origin = 'system' WHERE event = 'contradicted' AND origin = 'user';
-- What the plugin and the orchestrator wrote is the agent's.
UPDATE memories SET origin = 'agent'
    WHERE source_type IN ('agent', 'session_backup', 'task_result');
-- An agent's memory that crosses projects (user, agent scope) waits for a user's confirmation;
-- which project wrote it was never kept, so it is found in none until a user confirms it.
UPDATE memories SET quarantined = 1
    WHERE origin = 'agent' AND scope IN ('user', 'agent')
    AND NOT EXISTS (SELECT 1 FROM trust_events t
                    WHERE t.memory_id = memories.id AND t.origin = 'user'
                    AND t.event = 'user_confirmed');
-- Trust the agent's events alone lifted above the agent ceiling (0.6) or pushed below the
-- floor (0.3) is brought back within them, with a system event saying so (the history adds up).
CREATE TEMP TABLE provenance_fix AS
    SELECT m.id AS memory_id,
        CAST(round(m.trust_score * 1000) AS INTEGER) AS before_milli,
        CASE WHEN round(m.trust_score * 1000) > 600 THEN 600 ELSE 300 END AS after_milli
    FROM memories m
    WHERE EXISTS (SELECT 1 FROM trust_events t WHERE t.memory_id = m.id AND t.origin = 'agent')
    AND NOT EXISTS (SELECT 1 FROM trust_events t WHERE t.memory_id = m.id
                    AND t.origin IN ('user', 'import'))
    AND (round(m.trust_score * 1000) > 600
         OR (round(m.trust_score * 1000) < 300
             AND NOT EXISTS (SELECT 1 FROM trust_events t WHERE t.memory_id = m.id
                             AND t.origin = 'system')));
INSERT INTO trust_events (memory_id, event, delta_milli, actor, score_after_milli, note,
        created_at, origin)
    SELECT memory_id, 'agent_bounds', after_milli - before_milli, 'migration', after_milli,
        'agent events alone move trust only within [0.3, 0.6] (issue 28)',
        strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000+00:00', 'system'
    FROM provenance_fix;
UPDATE memories SET trust_score =
    (SELECT after_milli FROM provenance_fix f WHERE f.memory_id = memories.id) / 1000.0
    WHERE id IN (SELECT memory_id FROM provenance_fix);
DROP TABLE provenance_fix;
CREATE INDEX memories_quarantined ON memories (origin_project) WHERE quarantined = 1;
