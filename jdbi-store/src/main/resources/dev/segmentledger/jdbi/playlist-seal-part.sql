-- Stores a sealed part of a media playlist unless a part of that playlist overlaps it (an equal
-- part, sealed by another publisher, included), or a PLAYBACK row it covers is open (PENDING or
-- WAITING: re-opened since the publisher read it; the part would list the row as it was), or the
-- CONFIRMED rows it covers are not exactly its segment entries (:segments, its entries less its
-- gaps: a row read CONFIRMED was re-opened and rejected, or the reverse, before this seal). Run in
-- the transaction that has locked the playlist's record (PlaylistParts.seal), after that lock: a
-- re-open increments that record before it deletes the parts covering its row, in its own
-- transaction, so a re-open and a seal of the same rows are ordered, and the later sees the earlier.
-- The open rows are probed through segment_ledger_item_unconfirmed_by_broadcast or the identity
-- index, whichever the planner finds cheaper ("sequence >= 0", always true, lets it use the
-- former). Binds: broadcastId, rendition, first, next, segments, entries, discontinuities, target, peak, text.
INSERT INTO segment_ledger_playlist_part (broadcast_id, rendition, first_sequence, next_sequence, entries,
    discontinuities, target_seconds, peak_bandwidth, text)
SELECT :broadcastId, :rendition, :first, :next, :entries, :discontinuities, :target, :peak, :text
WHERE NOT EXISTS (SELECT 1 FROM segment_ledger_playlist_part s
    WHERE s.broadcast_id = :broadcastId AND s.rendition = :rendition
      AND s.first_sequence < :next AND s.next_sequence > :first)
  AND NOT EXISTS (SELECT 1 FROM segment_ledger_item i
    WHERE i.broadcast_id = :broadcastId AND i.axis = 'PLAYBACK' AND i.rendition = :rendition
      AND i.sequence >= :first AND i.sequence < :next AND i.state IN ('PENDING', 'WAITING') AND i.sequence >= 0)
  AND (SELECT count(*) FROM segment_ledger_item i
    WHERE i.broadcast_id = :broadcastId AND i.axis = 'PLAYBACK' AND i.rendition = :rendition
      AND i.sequence >= :first AND i.sequence < :next AND i.state = 'CONFIRMED') = :segments
ON CONFLICT (broadcast_id, rendition, first_sequence) DO NOTHING
