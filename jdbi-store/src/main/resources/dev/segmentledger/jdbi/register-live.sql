-- Registration in one statement, for a batch none of whose rows waits for an INIT (one round trip, run
-- as its own transaction): creates the batch's broadcasts unless they exist, reads and locks them FOR
-- SHARE against endBroadcast (in broadcast order), and inserts the rows from one array per column of
-- ${insertColumns}, in the order of the arrays, skipping identities that exist, only if every broadcast
-- of the batch is live.
-- A broadcast is live if this statement created it (its own row: the locking read cannot see it, a
-- data-modifying WITH is not visible to its statement) or if the locking read found it not ended. A
-- broadcast that another transaction committed while the insert waited for it is in neither (the read's
-- snapshot predates it): `unseen` names it, no row is inserted, and the caller registers the batch again
-- the way that reads the broadcast in a statement of its own.
-- Returns one row per inserted row (id, identity, state) with the gate's outcome (`ended`, `unseen`: the
-- broadcasts that stopped the batch, comma-separated, NULL if none), or the gate alone if nothing was
-- inserted. Instants come as microseconds since the epoch (bigint[]; NULL stays NULL).
-- Binds: broadcasts (the batch's distinct broadcast ids), createdAt, and the row arrays.
WITH created AS (
  INSERT INTO segment_ledger_broadcast (broadcast_id, created_at)
  SELECT b, (timestamptz 'epoch' + :createdAt * interval '1 microsecond')
  FROM unnest(:broadcasts::varchar[]) AS b ORDER BY b
  ON CONFLICT (broadcast_id) DO NOTHING
  RETURNING broadcast_id
), locked AS (
  SELECT b.broadcast_id, b.ended_at IS NOT NULL AS ended FROM segment_ledger_broadcast b
  WHERE b.broadcast_id = ANY (:broadcasts::varchar[]) ORDER BY b.broadcast_id FOR SHARE
), gate AS (
  SELECT string_agg(d.b, ',' ORDER BY d.b) FILTER (WHERE l.ended) AS ended,
    string_agg(d.b, ',' ORDER BY d.b) FILTER (WHERE c.broadcast_id IS NULL AND l.broadcast_id IS NULL) AS unseen
  FROM unnest(:broadcasts::varchar[]) AS d(b)
  LEFT JOIN created c ON c.broadcast_id = d.b
  LEFT JOIN locked l ON l.broadcast_id = d.b
), inserted AS (
  INSERT INTO segment_ledger_item (${insertColumns})
  ${newRows}
  CROSS JOIN gate g
  WHERE g.ended IS NULL AND g.unseen IS NULL
  ORDER BY v.ord
  ON CONFLICT (broadcast_id, axis, rendition, sequence) DO NOTHING
  RETURNING id, broadcast_id, axis, rendition, sequence, media_format, state
)
SELECT g.ended, g.unseen, i.id, i.broadcast_id, i.axis, i.rendition, i.sequence, i.media_format, i.state
FROM gate g LEFT JOIN inserted i ON true
