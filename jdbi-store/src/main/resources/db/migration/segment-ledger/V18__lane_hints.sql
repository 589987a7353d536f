-- Segment Ledger V18: the recorder's lane hints, stored so that every node of the ledger, and a node
-- after a restart, queues a row in the lane the recorder asked for (Ledger.prioritize, and
-- Ledger.register with a lane). A segment's hint is kept with its rows (segment_ledger_item.lane,
-- written at registration and never changed); a broadcast's on its record (segment_ledger_broadcast.lane,
-- set and cleared by StateStore.prioritize). A row's own hint takes precedence over its broadcast's.
-- NULL: no hint (the row's lane follows from its axis and its broadcast's phase), which is every row
-- and every broadcast written before this version.
-- (V17 is another migration's number; versions need not be contiguous.)
--
-- The columns are added without defaults and without CHECKs: a catalog change, no rewrite and no scan
-- under ACCESS EXCLUSIVE, and no constraint left for a later version to validate. The store writes
-- only the names of the lanes (LIVE, ORIGINAL, BACKFILL); a value it does not know reads as no hint.
ALTER TABLE segment_ledger_item ADD COLUMN lane varchar(16);
ALTER TABLE segment_ledger_broadcast ADD COLUMN lane varchar(16);
