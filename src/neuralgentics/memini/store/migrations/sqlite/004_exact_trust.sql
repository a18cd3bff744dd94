-- Trust in exact thousandths (issue 13): a score was updated by adding float deltas, so a
-- replay of 0.5 + 0.05 + 0.10 - 0.15 read back as 0.5000000000000006. From here on every
-- update computes in integer thousandths and stores k / 1000.0 (the double nearest to it,
-- which reads back as the decimal written); trust events keep their delta and the score after
-- it as integers. Existing rows are converted: scores snapped to the nearest thousandth,
-- event values rounded to integer thousandths.

UPDATE memories SET trust_score = CAST(round(trust_score * 1000) AS INTEGER) / 1000.0
    WHERE trust_score <> CAST(round(trust_score * 1000) AS INTEGER) / 1000.0;

ALTER TABLE trust_events ADD COLUMN delta_milli INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trust_events ADD COLUMN score_after_milli INTEGER NOT NULL DEFAULT 0
    CHECK (score_after_milli BETWEEN 0 AND 1000);
UPDATE trust_events SET
    delta_milli = CAST(round(delta * 1000) AS INTEGER),
    score_after_milli = CAST(round(min(1.0, max(0.0, score_after)) * 1000) AS INTEGER);
ALTER TABLE trust_events DROP COLUMN delta;
ALTER TABLE trust_events DROP COLUMN score_after;
