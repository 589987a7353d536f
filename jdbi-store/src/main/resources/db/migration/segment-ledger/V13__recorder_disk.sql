-- Segment Ledger V13: the recorder's disk. The ledger deletes the files it produced itself (the
-- PLAYBACK and INIT files the repackager wrote: rows with an origin path) once their rows are
-- confirmed, and records here that it is done with a row's local file: deleted, found gone already,
-- or refused for good (a WARN and a counted refusal name why). NULL: not yet, or not a file the
-- ledger deletes. A re-open sets it back to NULL: the file is produced and confirmed again, and then
-- deleted again. A nullable column without a default: adding it only changes the catalog.
-- (V12 is another migration's number; this one references nothing of it.)
ALTER TABLE segment_ledger_item ADD COLUMN local_file_done_at timestamptz;

-- The rows whose produced file may still lie on a recorder's disk: confirmed, produced by the
-- ledger, not yet done with. The sweep reads them in id order past a cursor, a bounded page per
-- round, so its cost grows with the files still to delete, never with the confirmed rows whose files
-- are gone. The rows confirmed before this version start in the index: the first rounds after the
-- upgrade delete what earlier versions left behind, a page at a time.
--
-- Migrations run in one transaction, so this index is built without CONCURRENTLY (one scan of the
-- table, writes blocked meanwhile). On a large ledger, create it beforehand with the same statement
-- as CREATE INDEX CONCURRENTLY (outside a transaction); this migration then finds it.
CREATE INDEX IF NOT EXISTS segment_ledger_item_local_file_undone
  ON segment_ledger_item (id)
  WHERE state = 'CONFIRMED' AND origin_path IS NOT NULL AND local_file_done_at IS NULL;

-- Opt-in local retention of originals (LedgerBuilder.localRetention): the confirmed originals whose
-- file is not handled yet, per storage group (only the group that owns the disk deletes) in the
-- order they were confirmed. The sweep of a group reads those confirmed before the retention's
-- cutoff past a (confirmed_at, id) cursor, one page per round; a deleted original leaves the index.
-- The group is keyed as COALESCE(storage_group, '') (as in V7), so that one equality reaches it.
-- Without local retention nothing reads it; it then holds every confirmed original (one entry per
-- original confirmed), the price of finding old ones without a scan.
CREATE INDEX IF NOT EXISTS segment_ledger_item_original_undone
  ON segment_ledger_item ((COALESCE(storage_group, '')), confirmed_at, id)
  WHERE axis = 'ORIGINAL' AND state = 'CONFIRMED' AND local_file_done_at IS NULL;
