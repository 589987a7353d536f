-- Extends many leases of one owner: one conditional update joined to the arrays, each row's lease
-- as its holder gave it (held_us) in the join, so a lease another owner took over, or one extended
-- meanwhile, is left alone. A lease never stops covering an attempt (lease_attempt only turns true).
-- Instants come as microseconds since the epoch (bigint[]). Returns the extended rows' ids.
-- Binds: owner, and the arrays ids, helds, untils, attempts.
UPDATE segment_ledger_item t
SET lease_until = (timestamptz 'epoch' + v.until_us * interval '1 microsecond'),
  next_attempt_at = (timestamptz 'epoch' + v.until_us * interval '1 microsecond'),
  lease_attempt = t.lease_attempt OR v.attempt
FROM unnest(:ids::bigint[], :helds::bigint[], :untils::bigint[], :attempts::boolean[])
  AS v(id, held_us, until_us, attempt)
WHERE t.id = v.id AND t.state = 'PENDING' AND t.lease_owner = :owner
  AND t.lease_until = (timestamptz 'epoch' + v.held_us * interval '1 microsecond')
RETURNING t.id
