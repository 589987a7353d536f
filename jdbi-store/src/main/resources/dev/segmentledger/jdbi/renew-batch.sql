-- Extends many leases of one owner: one conditional update joined to the arrays, each row's lease
-- as its holder gave it (held_us) in the join, so a lease another owner took over, or one extended
-- meanwhile, is left alone. A lease never stops covering an attempt (lease_attempt only turns true);
-- one that turns into the lease of an attempt here begins it (its progress counts from the row's
-- stored bytes now). For the lease of an attempt the entry is its heartbeat: the greatest stored
-- bytes reported are kept, and whether it runs isolated; bytes stored beyond what was stored clear
-- the counts of deaths without progress (design, "Long work").
-- Each row is found by its whole primary key (id, broadcast_id): a unique key, so the planner looks
-- every entry up through it whatever the table's statistics say (with the id alone, which is not a
-- key by itself, an unanalyzed table was read whole for a large batch).
-- Instants come as microseconds since the epoch (bigint[]). Returns the extended rows' ids.
-- Binds: owner, and the arrays ids, broadcastIds, helds, untils, attempts, storeds, isolateds.
-- Leases.java derives from it the renewal judged by the database's clock (StateStore.renewAllFor):
-- untils are then durations added to statement_timestamp(), and the new lease ends are returned.
UPDATE segment_ledger_item t
SET lease_until = (timestamptz 'epoch' + v.until_us * interval '1 microsecond'),
  next_attempt_at = (timestamptz 'epoch' + v.until_us * interval '1 microsecond'),
  lease_stored_from = CASE WHEN v.attempt AND NOT t.lease_attempt THEN t.stored_bytes ELSE t.lease_stored_from END,
  lease_attempt = t.lease_attempt OR v.attempt,
  stored_bytes = CASE WHEN v.attempt THEN GREATEST(t.stored_bytes, v.stored) ELSE t.stored_bytes END,
  abandoned_attempts = CASE WHEN v.attempt AND v.stored > t.stored_bytes THEN 0 ELSE t.abandoned_attempts END,
  blamed_attempts = CASE WHEN v.attempt AND v.stored > t.stored_bytes THEN 0 ELSE t.blamed_attempts END,
  lease_isolated = CASE WHEN v.attempt THEN v.isolated ELSE t.lease_isolated END
FROM unnest(:ids::bigint[], :broadcastIds::varchar[], :helds::bigint[], :untils::bigint[], :attempts::boolean[],
    :storeds::bigint[], :isolateds::boolean[])
  AS v(id, broadcast_id, held_us, until_us, attempt, stored, isolated)
WHERE t.id = v.id AND t.broadcast_id = v.broadcast_id AND t.state = 'PENDING' AND t.lease_owner = :owner
  AND t.lease_until = (timestamptz 'epoch' + v.held_us * interval '1 microsecond')
RETURNING t.id
