-- Stores a sealed part of a media playlist at the end of its rendition's chain: only if the
-- rendition has no part yet, or its last part (the one with the greatest first sequence, one probe
-- of the key) ends exactly at :first. So an equal part sealed by another publisher, an overlap or a
-- hole are refused, and the new part's running totals (V16) are those of that last part plus its
-- own, computed here. Also refused if a PLAYBACK row it covers is open (PENDING or WAITING:
-- re-opened since the publisher read it; the part would list the row as it was), or the
-- CONFIRMED rows it covers are not exactly its segment entries (:segments, its entries less its
-- gaps: a row read CONFIRMED was re-opened and rejected, or the reverse, before this seal). Run in
-- the transaction that has locked the playlist's record (PlaylistParts.seal), after that lock: a
-- re-open increments that record before it deletes the parts covering its row and every later
-- part, in its own transaction, so a re-open and a seal of the same rows are ordered, and the
-- later sees the earlier.
-- The open rows are probed through segment_ledger_item_unconfirmed_by_broadcast or the identity
-- index, whichever the planner finds cheaper ("sequence >= 0", always true, lets it use the
-- former). Binds: broadcastId, rendition, first, next, segments, entries, discontinuities, target, peak, text.
INSERT INTO segment_ledger_playlist_part (broadcast_id, rendition, first_sequence, next_sequence, entries,
    discontinuities, target_seconds, peak_bandwidth, text, chain_first_sequence, total_entries,
    total_discontinuities, total_target_seconds, total_peak_bandwidth)
SELECT :broadcastId, :rendition, :first, :next, :entries, :discontinuities, :target, :peak, :text,
    coalesce(last.chain_first_sequence, :first), coalesce(last.total_entries, 0) + :entries,
    coalesce(last.total_discontinuities, 0) + :discontinuities,
    greatest(coalesce(last.total_target_seconds, 0), :target), greatest(coalesce(last.total_peak_bandwidth, 0), :peak)
FROM (SELECT 1) one
LEFT JOIN LATERAL (SELECT s.next_sequence, s.chain_first_sequence, s.total_entries, s.total_discontinuities,
      s.total_target_seconds, s.total_peak_bandwidth
    FROM segment_ledger_playlist_part s
    WHERE s.broadcast_id = :broadcastId AND s.rendition = :rendition
    ORDER BY s.first_sequence DESC LIMIT 1) last ON true
WHERE (last.next_sequence IS NULL OR (last.next_sequence = :first AND last.total_entries IS NOT NULL))
  AND NOT EXISTS (SELECT 1 FROM segment_ledger_item i
    WHERE i.broadcast_id = :broadcastId AND i.axis = 'PLAYBACK' AND i.rendition = :rendition
      AND i.sequence >= :first AND i.sequence < :next AND i.state IN ('PENDING', 'WAITING') AND i.sequence >= 0)
  AND (SELECT count(*) FROM segment_ledger_item i
    WHERE i.broadcast_id = :broadcastId AND i.axis = 'PLAYBACK' AND i.rendition = :rendition
      AND i.sequence >= :first AND i.sequence < :next AND i.state = 'CONFIRMED') = :segments
ON CONFLICT (broadcast_id, rendition, first_sequence) DO NOTHING
