-- Registration: creates the broadcast's row unless it exists, and reads and locks it FOR SHARE (against
-- endBroadcast) until the transaction ends, in one round trip. created: this statement inserted the row
-- (its own, not ended; the locking read cannot see it, a data-modifying WITH is not visible to its
-- statement). ended: NULL when the row is not visible to this statement's snapshot (another transaction
-- committed it while the insert waited): the caller then reads it again in a statement of its own.
-- A non-NULL :planMode also sets plan_cache_mode for the rest of the transaction (SET LOCAL).
WITH inserted AS (
  INSERT INTO segment_ledger_broadcast (broadcast_id, created_at) VALUES (:id, :at)
  ON CONFLICT (broadcast_id) DO NOTHING
  RETURNING broadcast_id
)
SELECT EXISTS (SELECT 1 FROM inserted) AS created,
  (SELECT b.ended_at IS NOT NULL FROM segment_ledger_broadcast b WHERE b.broadcast_id = :id FOR SHARE) AS ended,
  CASE WHEN CAST(:planMode AS text) IS NULL THEN NULL
    ELSE set_config('plan_cache_mode', CAST(:planMode AS text), true) END AS plan_mode
