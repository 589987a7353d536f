-- The backlog: one aggregate over the unconfirmed rows, grouped by axis. It reads only the partial
-- index segment_ledger_item_open, whose key starts with the state, and the heap of those rows for
-- size_bytes, which the index does not include (the bytes to upload; -1, a size not known yet,
-- counts 0): its cost is the backlog's, never the confirmed rows'. Binds: now.
SELECT axis, count(*) AS unconfirmed, min(registered_at) AS oldest,
  count(*) FILTER (WHERE state = 'PENDING' AND next_attempt_at <= :now) AS due,
  count(*) FILTER (WHERE state = 'PENDING' AND next_attempt_at > :now AND lease_until > :now) AS leased,
  count(*) FILTER (WHERE state = 'PENDING' AND next_attempt_at > :now
    AND (lease_until IS NULL OR lease_until <= :now)) AS backoff,
  count(*) FILTER (WHERE state = 'WAITING') AS waiting,
  coalesce(sum(greatest(size_bytes, 0)), 0) AS bytes
FROM segment_ledger_item WHERE state IN ('PENDING', 'WAITING') GROUP BY axis
