-- Segment Ledger V5: retention (StateStore.purge) and keys ready for distribution by broadcast.

-- Retention keeps the record of a purged broadcast as a tombstone (a late registration under its id
-- is still refused as ended) and marks when its last row was deleted. NULL: rows may remain.
ALTER TABLE segment_ledger_broadcast ADD COLUMN purged_at timestamptz;

-- The purge's candidates: ended broadcasts whose rows have not all been deleted, oldest end first.
-- One entry per broadcast, not per row; a purged broadcast leaves the index.
CREATE INDEX segment_ledger_broadcast_purgeable
  ON segment_ledger_broadcast (ended_at)
  WHERE ended_at IS NOT NULL AND purged_at IS NULL;

-- Whether a broadcast still has a row to upload (it is then not complete and keeps every row):
-- one probe of an index holding only unconfirmed rows, keyed by broadcast, instead of a walk over
-- every row of the broadcast for each batch the purge deletes. It holds exactly the rows of the
-- backlog, so it stays as small as the due index.
--
-- The index is reserved for that probe. Its predicate adds "sequence >= 0", always true (CHECK
-- segment_ledger_item_sequence) but stated by no other statement: the planner can only use a partial
-- index for a query whose conditions imply the predicate, so the sweep page, the backlog and the
-- cutoff, whose conditions imply "state IN ('PENDING', 'WAITING')" alone, keep the indexes built
-- for them (SweepIndexPlanTest, OperationsIndexPlanTest) instead of scanning this one and sorting.
-- purge-candidate.sql states the same condition to reach it.
CREATE INDEX segment_ledger_item_unconfirmed_by_broadcast
  ON segment_ledger_item (broadcast_id)
  WHERE state IN ('PENDING', 'WAITING') AND sequence >= 0;

-- Distribution by broadcast (Citus, docs/scaling.md): a distributed table may only have primary
-- keys and unique constraints that include its distribution column. The identity constraint
-- (broadcast_id, axis, rendition, sequence) and the broadcast table's key already do; the row id's
-- primary key becomes (id, broadcast_id). The id still comes from the identity sequence, so it
-- remains unique by itself; with id as the leading column every lookup by row id (confirm, claim,
-- findByRowId) still uses this index. The cost: the index also carries the broadcast id.
--
-- Rebuilding the key scans the table and blocks writes while it runs (migrations run in one
-- transaction). On a large ledger, build the index beforehand with
--   CREATE UNIQUE INDEX CONCURRENTLY segment_ledger_item_id_broadcast ON segment_ledger_item (id, broadcast_id);
-- this migration then only swaps the constraint onto it.
CREATE UNIQUE INDEX IF NOT EXISTS segment_ledger_item_id_broadcast ON segment_ledger_item (id, broadcast_id);
ALTER TABLE segment_ledger_item DROP CONSTRAINT segment_ledger_item_pkey;
ALTER TABLE segment_ledger_item ADD CONSTRAINT segment_ledger_item_pkey
  PRIMARY KEY USING INDEX segment_ledger_item_id_broadcast;
