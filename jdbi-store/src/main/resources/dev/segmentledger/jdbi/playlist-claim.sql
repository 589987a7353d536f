-- Leases up to :limit playlists awaiting publication that are due (no lease, or one ended by :now;
-- not in backoff) to :owner until :leaseUntil, oldest change first, through the partial index of
-- playlists awaiting publication. Rows another publisher is claiming are skipped, not waited for.
-- The picked playlists are a materialized CTE, read once (see Transitions.PICKED).
WITH picked AS MATERIALIZED (SELECT q.broadcast_id, q.rendition FROM segment_ledger_playlist q
    WHERE q.wanted > q.published AND (q.lease_until IS NULL OR q.lease_until <= :now)
    ORDER BY q.updated_at LIMIT :limit FOR UPDATE SKIP LOCKED)
UPDATE segment_ledger_playlist p
SET lease_owner = :owner, lease_until = :leaseUntil
WHERE (p.broadcast_id, p.rendition) IN (SELECT broadcast_id, rendition FROM picked)
  AND p.wanted > p.published AND (p.lease_until IS NULL OR p.lease_until <= :now)
RETURNING ${playlistColumns}
