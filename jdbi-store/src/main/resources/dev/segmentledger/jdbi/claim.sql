-- Claims one due PENDING row (or renews the caller's own lease on it) for a lease until :until.
-- The row is locked FOR UPDATE, which serializes racing claims, and the update reads the lease it
-- replaces from that locked row: a lease that ran out during an attempt counts as an abandoned attempt.
-- Returns what it took over and the row as claimed. Binds: id, owner, until, now (instants truncated to
-- microseconds).
WITH old AS (SELECT id, lease_owner,
    (lease_owner IS NOT NULL AND lease_until <= :now AND lease_attempt) AS abandoned
  FROM segment_ledger_item
  WHERE id = :id AND state = 'PENDING' AND (next_attempt_at <= :now OR lease_owner = :owner) FOR UPDATE)
UPDATE segment_ledger_item t SET lease_owner = :owner, lease_until = :until, next_attempt_at = :until,
  lease_attempt = true, attempts = t.attempts + CASE WHEN old.abandoned THEN 1 ELSE 0 END,
  abandoned_attempts = t.abandoned_attempts + CASE WHEN old.abandoned THEN 1 ELSE 0 END,
  reason = CASE WHEN old.abandoned THEN 'ATTEMPT_ABANDONED' ELSE t.reason END,
  last_error = CASE WHEN old.abandoned
    THEN 'the attempt of ' || old.lease_owner || ' ended without an outcome: its process died or hung past its lease'
    ELSE t.last_error END
FROM old WHERE t.id = old.id
RETURNING old.abandoned, ${claimedColumns}
