-- Confirms a batch: one conditional update joined to the arrays, each row's expected state and size
-- in the join, so of racing confirms of a row exactly one changes it. Instants come as microseconds
-- since the epoch (bigint[]). Returns the confirmed rows, with what identifies an INIT's rendition.
-- Binds the arrays: ids, states, sizes, checksums, confirmedAts.
UPDATE segment_ledger_item t SET state = 'CONFIRMED', checksum = v.checksum,
  confirmed_at = (timestamptz 'epoch' + v.confirmed_us * interval '1 microsecond'), ${noLease}
FROM unnest(:ids::bigint[], :states::varchar[], :sizes::bigint[], :checksums::text[], :confirmedAts::bigint[])
  AS v(id, expected_state, expected_size, checksum, confirmed_us)
WHERE t.id = v.id AND t.state = v.expected_state AND t.size_bytes = v.expected_size
RETURNING t.id, t.broadcast_id, t.axis, t.rendition, t.sequence, t.media_format
