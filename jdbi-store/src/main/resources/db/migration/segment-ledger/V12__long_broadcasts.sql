-- Segment Ledger V12: playlists of long broadcasts, at a constant cost per new segment
-- (PlaylistStore.recordLivePublished, raisePeakBandwidth, parts, sealPart).
--
-- Only the playlist tables change; segment_ledger_item is not touched. The playlist table holds one
-- record per playlist (a few per broadcast): the ALTERs hold ACCESS EXCLUSIVE on it for the time of a
-- catalog change and a check of its few records, and wait at most lock_timeout for that lock (a
-- confirm's increment of a playlist waits behind a waiting ALTER, never a registration).

-- When the full media playlist, left behind its live window by a publication of that window only,
-- is due again even without a further change; NULL while the full playlist is up to date.
ALTER TABLE segment_ledger_playlist ADD COLUMN full_due_at timestamptz;

-- The highest bit rate of a media playlist's confirmed segments (bits per second; 0: unknown), as
-- the multivariant playlist announces it. A constant default: a catalog change, no rewrite. Its
-- CHECK is added NOT VALID (no scan of the existing records under ACCESS EXCLUSIVE; every record
-- written from now on is checked, and the existing ones hold the default 0). It is left for a later
-- migration to validate under SHARE UPDATE EXCLUSIVE, as V10 does for the checks of V2, V6 and V8.
ALTER TABLE segment_ledger_playlist ADD COLUMN peak_bandwidth bigint NOT NULL DEFAULT 0;
ALTER TABLE segment_ledger_playlist ADD CONSTRAINT segment_ledger_playlist_peak_bandwidth
  CHECK (peak_bandwidth >= 0) NOT VALID;

-- The publisher's claim takes the records awaiting publication (wanted > published, through
-- segment_ledger_playlist_awaiting, which the count of playlists awaiting publication keeps reading
-- alone) or whose full playlist is due (full_due_at <= now, through this index): the two ranges are
-- merged, each from an index holding only records with work, never the published bulk.
-- Migrations run in one transaction, so it is built without CONCURRENTLY, and it cannot be created
-- beforehand (as V3's and V7's can) since its column is new here: the build scans the playlist
-- table (one record per playlist, not per row) under a SHARE lock, which holds up the playlist
-- increments of confirms for the time of that scan; every key is NULL then, so the index starts empty.
CREATE INDEX segment_ledger_playlist_full_due
  ON segment_ledger_playlist (full_due_at) INCLUDE (lease_until)
  WHERE full_due_at IS NOT NULL;

-- Sealed runs of a media playlist's entries ([first_sequence, next_sequence) of one rendition),
-- rendered as the full playlist lists them: a publication of the full playlist reads these and the
-- rows after the last one, not every row of the broadcast. A re-open of a PLAYBACK row deletes the
-- part covering it in its own transaction; the purge deletes a broadcast's parts once it emptied
-- its rows. Keyed by broadcast first, so the table can be distributed with the items (V5).
CREATE TABLE segment_ledger_playlist_part (
  broadcast_id    varchar(64) NOT NULL,
  rendition       varchar(64) NOT NULL,
  first_sequence  bigint      NOT NULL,
  next_sequence   bigint      NOT NULL,
  entries         integer     NOT NULL,
  discontinuities integer     NOT NULL,
  target_seconds  integer     NOT NULL,
  peak_bandwidth  bigint      NOT NULL,
  text            text        NOT NULL,
  CONSTRAINT segment_ledger_playlist_part_pk PRIMARY KEY (broadcast_id, rendition, first_sequence),
  CONSTRAINT segment_ledger_playlist_part_range CHECK (first_sequence >= 0 AND next_sequence > first_sequence
    AND entries > 0 AND entries <= next_sequence - first_sequence AND discontinuities >= 0
    AND target_seconds >= 1 AND peak_bandwidth >= 0)
);
