-- Segment Ledger V17: the ETags of the playlist objects as last published (PlaylistRecord.liveEtag,
-- fullEtag), so that the next publication writes each object only over that version (S3's If-Match,
-- If-None-Match: * for an object never published): two nodes whose leases overlap can never publish
-- a playlist out of order (docs/bucket.md, "Conditional writes").
--
-- Only segment_ledger_playlist changes (one record per playlist, a few per broadcast); the items are
-- not touched. Two nullable columns without a default: a catalog change under ACCESS EXCLUSIVE for
-- its own instant, no rewrite, no scan. The existing records have no ETag known: their next
-- conditional publication expects no object, is refused by the one there, records its ETag and
-- publishes over it in the round after.
ALTER TABLE segment_ledger_playlist ADD COLUMN live_etag text;
ALTER TABLE segment_ledger_playlist ADD COLUMN full_etag text;
