-- Segment Ledger V6: originals that are not MPEG-TS, and the recording time of a file.

-- The container of an ORIGINAL (MediaFormat), which fixes the extension of its key: NULL for the
-- axis's default (MPEG-TS for an original, the only format of PLAYBACK and INIT), so that every row
-- written before this version reads back as it was, and no existing row is rewritten. Not part of
-- the unique identity: a position registered again with another format is a conflict, never a
-- second row. The CHECK is added NOT VALID (no scan of the rows already there under ACCESS
-- EXCLUSIVE); V10 validates it.
ALTER TABLE segment_ledger_item ADD COLUMN media_format varchar(16);
ALTER TABLE segment_ledger_item ADD CONSTRAINT segment_ledger_item_media_format
  CHECK (media_format IS NULL OR (axis = 'ORIGINAL' AND media_format IN ('MPEG_TS', 'FMP4', 'MP4'))) NOT VALID;

-- When the recording of the original's media began, as the recorder gave it at registration
-- (PLAYBACK and INIT rows carry their original's). NULL: not given. The published media playlist
-- gives it as #EXT-X-PROGRAM-DATE-TIME.
ALTER TABLE segment_ledger_item ADD COLUMN recorded_at timestamptz;
-- Flyway checksum pin (docs/versions.md, "Schema migrations with Flyway"): FELBIEHH@@@@
