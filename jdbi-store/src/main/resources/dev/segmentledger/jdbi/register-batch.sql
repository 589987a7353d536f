-- Inserts a batch of new rows from one array per column, in the order of the arrays (ord), skipping
-- the identities that exist. Instants come as microseconds since the epoch (bigint[]; NULL stays
-- NULL). Returns what the caller does not already know of each row it created: the id and the state.
INSERT INTO segment_ledger_item (${insertColumns})
SELECT v.broadcast_id, v.axis, v.rendition, v.sequence, v.source_path, v.origin_path, v.size_bytes,
  v.state, v.reason, v.detail,
  (timestamptz 'epoch' + v.registered_us * interval '1 microsecond'),
  (timestamptz 'epoch' + v.next_attempt_us * interval '1 microsecond'),
  v.lease_owner,
  (timestamptz 'epoch' + v.lease_us * interval '1 microsecond'),
  v.file_identity, v.media_format,
  (timestamptz 'epoch' + v.recorded_us * interval '1 microsecond'), v.storage_group
FROM unnest(:broadcastIds::varchar[], :axes::varchar[], :renditions::varchar[], :sequences::bigint[],
    :sourcePaths::text[], :originPaths::text[], :sizes::bigint[], :states::varchar[], :reasons::varchar[],
    :details::text[], :registeredAts::bigint[], :nextAttemptAts::bigint[], :leaseOwners::varchar[],
    :leaseUntils::bigint[], :fileIdentities::text[], :formats::varchar[], :recordedAts::bigint[],
    :storageGroups::varchar[])
  WITH ORDINALITY AS v(broadcast_id, axis, rendition, sequence, source_path, origin_path, size_bytes,
    state, reason, detail, registered_us, next_attempt_us, lease_owner, lease_us, file_identity, media_format,
    recorded_us, storage_group, ord)
ORDER BY v.ord
ON CONFLICT (broadcast_id, axis, rendition, sequence) DO NOTHING
RETURNING id, broadcast_id, axis, rendition, sequence, media_format, state
