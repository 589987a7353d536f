-- Confirms a batch: one conditional update joined to the arrays, each row's expected state and size
-- in the join, so of racing confirms of a row exactly one changes it. Instants come as microseconds
-- since the epoch (bigint[]). Each row is found by its whole primary key (id, broadcast_id): a unique
-- key, so the planner looks every entry up through it whatever the table's statistics say (joined on
-- the id alone, which is not a key by itself, a batch of 30 on an unanalyzed table of 100,000 rows was
-- a hash join over the whole table, 19 ms). Returns the confirmed rows, with what identifies an INIT's
-- rendition. The axis the caller named must be the row's (an INIT's confirm releases its waiting playback:
-- a confirm that would not know it confirms an INIT confirms nothing). Binds the arrays: ids, broadcastIds,
-- axes, states, sizes, checksums, confirmedAts.
UPDATE segment_ledger_item t SET state = 'CONFIRMED', checksum = v.checksum,
  confirmed_at = (timestamptz 'epoch' + v.confirmed_us * interval '1 microsecond'), ${noLease}
FROM unnest(:ids::bigint[], :broadcastIds::varchar[], :axes::varchar[], :states::varchar[], :sizes::bigint[],
    :checksums::text[], :confirmedAts::bigint[])
  AS v(id, broadcast_id, axis, expected_state, expected_size, checksum, confirmed_us)
WHERE t.id = v.id AND t.broadcast_id = v.broadcast_id AND t.axis = v.axis AND t.state = v.expected_state AND t.size_bytes = v.expected_size
RETURNING t.id, t.broadcast_id, t.axis, t.rendition, t.sequence, t.media_format
