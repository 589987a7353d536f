-- Leases up to :limit playlists that have work and are due (no lease, or one ended by :now; not in
-- backoff) to :owner until :leaseUntil, oldest change first. A playlist has work if it awaits
-- publication (wanted > published: the partial index segment_ledger_playlist_awaiting) or if its
-- full playlist, left behind its live window, is due (full_due_at <= :now: the partial index
-- segment_ledger_playlist_full_due); the two index ranges are merged, neither holds a published
-- playlist without work. Rows another publisher is claiming are skipped, not waited for.
-- The picked playlists are a materialized CTE, read once (see Transitions.PICKED).
WITH picked AS MATERIALIZED (SELECT q.broadcast_id, q.rendition FROM segment_ledger_playlist q
    WHERE (q.wanted > q.published OR q.full_due_at <= :now) AND (q.lease_until IS NULL OR q.lease_until <= :now)
    ORDER BY q.updated_at LIMIT :limit FOR UPDATE SKIP LOCKED)
UPDATE segment_ledger_playlist p
SET lease_owner = :owner, lease_until = :leaseUntil
WHERE (p.broadcast_id, p.rendition) IN (SELECT broadcast_id, rendition FROM picked)
  AND (p.wanted > p.published OR p.full_due_at <= :now) AND (p.lease_until IS NULL OR p.lease_until <= :now)
RETURNING ${playlistColumns}
