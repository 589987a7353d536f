-- Segment Ledger V14: the indexes of the recorder's disk, over V13's column local_file_done_at. A
-- migration of its own, so that the build holds only a SHARE lock (reads go on, writes wait), not the
-- ACCESS EXCLUSIVE lock V13's ALTER TABLE holds until its transaction ends.

-- The rows whose produced file may still lie on a recorder's disk: confirmed, produced by the
-- ledger, not yet done with. The sweep reads them in id order past a cursor, a bounded page per
-- round, so its cost grows with the files still to delete, never with the confirmed rows whose files
-- are gone. The rows confirmed before this version start in the index: the first rounds after the
-- upgrade delete what earlier versions left behind, a page at a time.
--
-- Migrations run in one transaction, so this index is built without CONCURRENTLY: the build blocks
-- writes to the table while it scans it. On a large ledger, create it beforehand (after V13, which
-- adds the column) with the same statement as CREATE INDEX CONCURRENTLY (outside a transaction);
-- this migration then finds it.
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
--
-- Built without CONCURRENTLY, as the index above (writes blocked during the scan). On a large ledger,
-- create it beforehand (after V13) with the same statement as CREATE INDEX CONCURRENTLY (outside a
-- transaction); this migration then finds it.
CREATE INDEX IF NOT EXISTS segment_ledger_item_original_undone
  ON segment_ledger_item ((COALESCE(storage_group, '')), confirmed_at, id)
  WHERE axis = 'ORIGINAL' AND state = 'CONFIRMED' AND local_file_done_at IS NULL;

-- Local retention keeps an original's file while another row registered with the same file is not
-- confirmed (StateStore.hasUnconfirmedRowWithSourcePath, asked right before each deletion): nothing
-- makes a source path unique. The rows that are not confirmed, by source path, so that the question
-- costs one probe whatever the size of the ledger. A hash index: it stores a hash of the path, so a
-- path of any length fits (a B-tree entry is limited to about 2.7 kB); it answers only equality,
-- all the question needs. Built as the two above (create it beforehand CONCURRENTLY on a large ledger,
-- after V13); it holds only the rows not confirmed, so it stays as small as the backlog.
CREATE INDEX IF NOT EXISTS segment_ledger_item_unconfirmed_source
  ON segment_ledger_item USING hash (source_path)
  WHERE state <> 'CONFIRMED';
