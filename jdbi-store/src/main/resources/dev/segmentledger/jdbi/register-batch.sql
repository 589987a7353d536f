-- Inserts a batch of new rows from one array per column, in the order of the arrays (ord), skipping
-- the identities that exist. Instants come as microseconds since the epoch (bigint[]; NULL stays
-- NULL). Returns what the caller does not already know of each row it created: the id and the state.
INSERT INTO segment_ledger_item (${insertColumns})
${newRows}
ORDER BY v.ord
ON CONFLICT (broadcast_id, axis, rendition, sequence) DO NOTHING
RETURNING id, broadcast_id, axis, rendition, sequence, media_format, state
