-- Segment Ledger V3: what operators ask of the ledger across every broadcast (StateStore.findRows
-- and StateStore.backlog), answered without reading the confirmed bulk of the table.

-- Every row that is not confirmed: unconfirmed (PENDING, WAITING) and terminal problems (REJECTED,
-- EXCLUDED), keyed by state then id. A confirmed row is not in it, so it stays as small as the
-- backlog plus the rejected and excluded rows, however many rows the table holds.
--
-- Listings ("REJECTED rows, newest first, after id 123"): one ordered range scan per state from the
-- keyset cursor, each state named as a literal so that the planner proves the index usable.
-- Backlog figures: the PENDING and WAITING ranges of the index, aggregated per axis from the
-- included columns (an index-only scan where the visibility map allows).
--
-- The sweep page (WHERE axis = ? AND state = 'PENDING' AND id > ? ...) keeps its own index,
-- segment_ledger_item_due, whose key (axis, id) matches it better: SweepIndexPlanTest checks that
-- the planner still chooses it.
--
-- Migrations run in one transaction, so this index is built without CONCURRENTLY: the build blocks
-- writes to the table while it scans it. On a large ledger, create it beforehand with the same
-- statement as CREATE INDEX CONCURRENTLY (outside a transaction); this migration then finds it.
CREATE INDEX IF NOT EXISTS segment_ledger_item_open
  ON segment_ledger_item (state, id) INCLUDE (axis, registered_at, next_attempt_at, lease_until)
  WHERE state <> 'CONFIRMED';
