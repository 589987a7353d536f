-- Excludes up to :limit unconfirmed rows registered before :threshold (reason PAST_CUTOFF), skipping
-- rows another transaction holds locked and rows under a live lease. An INIT is kept while a PLAYBACK
-- row of its rendition registered after the threshold still waits on it or is still to upload.
-- The picked rows are a materialized CTE, read once (see Transitions.PICKED).
-- Binds: at, threshold, thresholdText (the threshold as text, for last_error), limit.
WITH picked AS MATERIALIZED (SELECT i.id FROM segment_ledger_item i
    WHERE (i.state = 'PENDING' OR (i.state = 'WAITING' AND i.axis = 'PLAYBACK'))
    AND i.registered_at < :threshold
    AND (i.axis <> 'INIT' OR NOT EXISTS (SELECT 1 FROM segment_ledger_item p
      WHERE p.axis = 'PLAYBACK' AND p.broadcast_id = i.broadcast_id AND p.rendition = i.rendition
      AND p.state IN ('PENDING', 'WAITING') AND p.registered_at >= :threshold))
    AND (i.lease_owner IS NULL OR i.lease_until <= :at)
    LIMIT :limit FOR UPDATE SKIP LOCKED)
UPDATE segment_ledger_item
SET state = 'EXCLUDED', reason = 'PAST_CUTOFF', terminal_at = :at, ${noLease},
  last_error = 'registered at ' || registered_at || ', before the cutoff ' || :thresholdText
WHERE id IN (SELECT id FROM picked)
  AND state IN ('PENDING', 'WAITING')
