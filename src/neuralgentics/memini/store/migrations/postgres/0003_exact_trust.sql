-- Trust in exact thousandths (issue 13): a score was updated by adding float deltas, so a
-- replay of 0.5 + 0.05 + 0.10 - 0.15 read back as 0.5000000000000006. From here on every
-- update computes in integer thousandths and stores k / 1000 (the double nearest to it, which
-- reads back as the decimal written); trust events keep their delta and the score after it as
-- integers. Existing rows are converted: scores snapped to the nearest thousandth (only the
-- rows that drifted are rewritten, so the vector index is not rebuilt for the rest), event
-- values rounded to integer thousandths.

UPDATE memories SET trust_score = round(trust_score * 1000)::int::float8 / 1000
    WHERE trust_score <> round(trust_score * 1000)::int::float8 / 1000;

ALTER TABLE trust_events
    ADD COLUMN delta_milli INT,
    ADD COLUMN score_after_milli INT;
UPDATE trust_events SET
    delta_milli = round(delta * 1000)::int,
    score_after_milli = round(LEAST(1, GREATEST(0, score_after)) * 1000)::int;
ALTER TABLE trust_events
    ALTER COLUMN delta_milli SET NOT NULL,
    ALTER COLUMN score_after_milli SET NOT NULL,
    ADD CONSTRAINT trust_events_score_after_milli_range CHECK (score_after_milli BETWEEN 0 AND 1000),
    DROP COLUMN delta,
    DROP COLUMN score_after;
