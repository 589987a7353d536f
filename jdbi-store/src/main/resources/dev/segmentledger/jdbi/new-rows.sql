-- A fragment, not a statement (`${newRows}` in register-batch.sql and register-live.sql): the new rows
-- of a registration, one array per column, in the order of the arrays (`v.ord`). Instants come as
-- microseconds since the epoch (bigint[]; NULL stays NULL). Selects the values of ${insertColumns}.
SELECT v.broadcast_id, v.axis, v.rendition, v.sequence, v.source_path, v.origin_path, v.size_bytes,
v.state, v.reason, v.detail,
(timestamptz 'epoch' + v.registered_us * interval '1 microsecond'),
(timestamptz 'epoch' + v.next_attempt_us * interval '1 microsecond'),
v.lease_owner,
(timestamptz 'epoch' + v.lease_us * interval '1 microsecond'),
v.file_identity, v.media_format,
(timestamptz 'epoch' + v.recorded_us * interval '1 microsecond'), v.storage_group, v.trace_context, v.lane
FROM unnest(:broadcastIds::varchar[], :axes::varchar[], :renditions::varchar[], :sequences::bigint[],
  :sourcePaths::text[], :originPaths::text[], :sizes::bigint[], :states::varchar[], :reasons::varchar[],
  :details::text[], :registeredAts::bigint[], :nextAttemptAts::bigint[], :leaseOwners::varchar[],
  :leaseUntils::bigint[], :fileIdentities::text[], :formats::varchar[], :recordedAts::bigint[],
  :storageGroups::varchar[], :traceContexts::text[], :lanes::varchar[])
WITH ORDINALITY AS v(broadcast_id, axis, rendition, sequence, source_path, origin_path, size_bytes,
  state, reason, detail, registered_us, next_attempt_us, lease_owner, lease_us, file_identity, media_format,
  recorded_us, storage_group, trace_context, lane, ord)
