-- The next broadcast the purge may empty: ended before :completedBefore, not purged yet, and complete
-- (no unconfirmed row: one probe of segment_ledger_item_unconfirmed_by_broadcast, whose predicate
-- "sequence >= 0", always true, is stated here to reach that index), oldest end first.
-- Its record is locked for the rest of the transaction; one another purge holds is skipped, so
-- purges on several nodes work on different broadcasts. Binds: completedBefore.
SELECT b.broadcast_id
FROM segment_ledger_broadcast b
WHERE b.ended_at IS NOT NULL AND b.purged_at IS NULL AND b.ended_at < :completedBefore
  AND NOT EXISTS (SELECT 1 FROM segment_ledger_item i
    WHERE i.broadcast_id = b.broadcast_id AND i.state IN ('PENDING', 'WAITING') AND i.sequence >= 0)
ORDER BY b.ended_at, b.broadcast_id
LIMIT 1
FOR UPDATE OF b SKIP LOCKED
