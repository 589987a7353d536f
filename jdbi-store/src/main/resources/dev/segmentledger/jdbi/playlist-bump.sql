-- Common table expressions appended after a CTE named `changed` (broadcast_id, rendition, axis): the
-- rows a statement changed. Increments `wanted` of every playlist the change alters, creating the
-- record if absent: the rendition's media playlist for a PLAYBACK or INIT row, and the broadcast's
-- multivariant one ('') for an INIT row only (a PLAYBACK row alters the multivariant playlist only
-- through its rendition's peak bandwidth, which PlaylistStore.raisePeakBandwidth records); every
-- existing playlist of the broadcast if it has ended (its completion may change them all). The
-- broadcast rows are read FOR SHARE, so that an endBroadcast running at the same time either
-- committed before (its end is seen here) or waits for this transaction (and its own increment then
-- follows this change). The records are locked in one order, the media playlists by rendition
-- before the multivariant one, as PlaylistStore.raisePeakBandwidth locks them (its media playlist,
-- then the multivariant one), so that neither waits for the other in a cycle. Binds: bumpAt.
, ended AS (SELECT b.broadcast_id, b.ended_at FROM segment_ledger_broadcast b
    WHERE b.broadcast_id IN (SELECT c.broadcast_id FROM changed c) FOR SHARE)
, bumped AS (INSERT INTO segment_ledger_playlist AS p (broadcast_id, rendition, wanted, updated_at)
    SELECT t.broadcast_id, t.rendition, 1, :bumpAt FROM (
        SELECT c.broadcast_id, c.rendition::text AS rendition FROM changed c WHERE c.axis <> 'ORIGINAL'
        UNION SELECT c.broadcast_id, '' FROM changed c WHERE c.axis = 'INIT'
        UNION SELECT q.broadcast_id, q.rendition FROM segment_ledger_playlist q
          JOIN ended e ON e.broadcast_id = q.broadcast_id WHERE e.ended_at IS NOT NULL) t
    ORDER BY t.broadcast_id, t.rendition = '', t.rendition
    ON CONFLICT (broadcast_id, rendition) DO UPDATE SET wanted = p.wanted + 1, updated_at = EXCLUDED.updated_at
    RETURNING p.broadcast_id)
