-- Segment Ledger V15: validates the CHECK constraint that V12 adds NOT VALID on the playlists'
-- peak bandwidth, in a transaction of its own. VALIDATE CONSTRAINT scans the table under SHARE
-- UPDATE EXCLUSIVE, which blocks neither reads nor writes, so confirms keep incrementing playlists
-- while it runs (see V10, which does the same for older checks of segment_ledger_item).
SET LOCAL lock_timeout = '10s';
ALTER TABLE segment_ledger_playlist VALIDATE CONSTRAINT segment_ledger_playlist_peak_bandwidth;
