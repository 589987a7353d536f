-- Claims one due PENDING row (or renews the caller's own lease on it) for a lease until :until.
-- The row is locked FOR UPDATE, which serializes racing claims, and the update reads the lease it
-- replaces from that locked row: a lease that ran out during an attempt is an abandoned attempt,
-- weighed by the evidence its heartbeats left (design, "Long work"): counted in attempts always; in
-- abandoned_attempts if it stored nothing more of the object (stored_bytes did not grow past
-- lease_stored_from); in blamed_attempts if, besides, it ran isolated in its process. One that made
-- progress clears both: they count the deaths since the row last made progress. The new lease
-- covers an attempt, not isolated, whose progress counts from the stored bytes now.
-- Returns what it took over, the counts, and the row as claimed. Binds: id, owner, until, now
-- (instants truncated to microseconds). Leases.java derives from it the claim judged by the
-- database's clock (StateStore.claimFor): :now becomes statement_timestamp(), :until that plus the
-- lease duration.
WITH old AS (SELECT id, lease_owner,
    (lease_owner IS NOT NULL AND lease_until <= :now AND lease_attempt) AS abandoned,
    (lease_owner IS NOT NULL AND lease_until <= :now AND lease_attempt AND stored_bytes <= lease_stored_from)
      AS stalled,
    (lease_owner IS NOT NULL AND lease_until <= :now AND lease_attempt AND stored_bytes <= lease_stored_from
      AND lease_isolated) AS blamed
  FROM segment_ledger_item
  WHERE id = :id AND state = 'PENDING' AND (next_attempt_at <= :now OR lease_owner = :owner) FOR UPDATE)
UPDATE segment_ledger_item t SET lease_owner = :owner, lease_until = :until, next_attempt_at = :until,
  lease_attempt = true, lease_stored_from = t.stored_bytes, lease_isolated = false,
  attempts = t.attempts + CASE WHEN old.abandoned THEN 1 ELSE 0 END,
  abandoned_attempts = CASE WHEN old.stalled THEN t.abandoned_attempts + 1
    WHEN old.abandoned THEN 0 ELSE t.abandoned_attempts END,
  blamed_attempts = CASE WHEN old.blamed THEN t.blamed_attempts + 1
    WHEN old.abandoned AND NOT old.stalled THEN 0 ELSE t.blamed_attempts END,
  reason = CASE WHEN old.abandoned THEN 'ATTEMPT_ABANDONED' ELSE t.reason END,
  last_error = CASE WHEN old.abandoned
    THEN 'the attempt of ' || old.lease_owner || ' ended without an outcome: its process died or froze past its lease'
      || CASE WHEN NOT old.stalled THEN ' (it had stored ' || t.stored_bytes || ' bytes: progress, not blamed)'
              WHEN old.blamed THEN ' (it ran alone and stored nothing more: blamed on this row)'
              ELSE ' (it stored nothing more, beside other work: a suspect, not blamed)' END
    ELSE t.last_error END
FROM old WHERE t.id = old.id
RETURNING old.abandoned, ${claimedColumns}
