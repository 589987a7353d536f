-- Deletes up to :limit terminal rows of one broadcast, in identity order (the identity index, whose
-- leading column is broadcast_id: a range scan of that broadcast only). The outer condition checks
-- the state again on each row as it is deleted, after any wait for its lock: a row re-opened
-- meanwhile is PENDING and is kept. Both conditions name the broadcast, so on a table distributed
-- by broadcast_id the statement runs on one shard. The picked rows are a materialized CTE, read
-- once (see Transitions.PICKED). Binds: broadcastId, limit.
WITH picked AS MATERIALIZED (SELECT t.id FROM segment_ledger_item t
    WHERE t.broadcast_id = :broadcastId AND t.state IN ('CONFIRMED', 'REJECTED', 'EXCLUDED')
    ORDER BY t.axis, t.rendition, t.sequence
    LIMIT :limit)
DELETE FROM segment_ledger_item
WHERE broadcast_id = :broadcastId
  AND state IN ('CONFIRMED', 'REJECTED', 'EXCLUDED')
  AND id IN (SELECT id FROM picked)
