-- Leases up to :limit playlists that have work and are due (no lease, or one ended by :now; not in
-- backoff) to :owner until :leaseUntil, oldest change first. A playlist has work if it awaits
-- publication (wanted > published: the partial index segment_ledger_playlist_awaiting, ordered by
-- updated_at) or if its full playlist, left behind its live window, is due (full_due_at <= :now:
-- the partial index segment_ledger_playlist_full_due, ordered by full_due_at; its few due records
-- are sorted). Each kind is a range of its own index: the oldest :limit of that kind, locked as
-- they are read, a record another publisher (or a confirm's increment) holds skipped, not waited
-- for, and the next one taken. Neither range reads the published bulk nor every record with work,
-- and the planner has no OR to answer with a scan of the table. The two ranges are merged in
-- updated_at order (a playlist of both kinds once) and the first :limit are leased: the oldest
-- changes with work that no one else holds, as one range over both kinds would give. The others,
-- at most :limit, stay locked only until the claim commits, and are not leased.
-- Each CTE is materialized, read once (see Transitions.PICKED); the UPDATE checks work and lease
-- again on the records it changes.
WITH awaiting AS MATERIALIZED (SELECT a.broadcast_id, a.rendition, a.updated_at FROM segment_ledger_playlist a
    WHERE a.wanted > a.published AND (a.lease_until IS NULL OR a.lease_until <= :now)
    ORDER BY a.updated_at LIMIT :limit FOR UPDATE SKIP LOCKED),
full_due AS MATERIALIZED (SELECT f.broadcast_id, f.rendition, f.updated_at FROM segment_ledger_playlist f
    WHERE f.full_due_at <= :now AND (f.lease_until IS NULL OR f.lease_until <= :now)
    ORDER BY f.updated_at LIMIT :limit FOR UPDATE SKIP LOCKED),
picked AS MATERIALIZED (SELECT broadcast_id, rendition FROM (SELECT * FROM awaiting UNION SELECT * FROM full_due) c
    ORDER BY updated_at LIMIT :limit)
UPDATE segment_ledger_playlist p
SET lease_owner = :owner, lease_until = :leaseUntil
WHERE (p.broadcast_id, p.rendition) IN (SELECT broadcast_id, rendition FROM picked)
  AND (p.wanted > p.published OR p.full_due_at <= :now) AND (p.lease_until IS NULL OR p.lease_until <= :now)
RETURNING ${playlistColumns}
