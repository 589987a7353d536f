-- Segment Ledger V7: storage groups, for recorder hosts with local disks (LedgerBuilder.storageGroup).
-- (V6 is another migration's number; versions need not be contiguous.)

-- The group of the node that registered the row: only nodes of that group can read its file, so only
-- they sweep, claim and upload it. NULL: shared storage (every node without a group reads it), which
-- is every row written before this version and every row of a ledger that uses no groups.
ALTER TABLE segment_ledger_item ADD COLUMN storage_group varchar(64);

-- The sweep page now names the group: a node of group G reads the due rows of G and those of no
-- group (two ordered ranges of this index, merged), a node without a group those of no group. The
-- group sits between the axis and the id, so each range is still one ordered, bounded scan past the
-- cursor, whatever the backlog of the other groups. It replaces segment_ledger_item_due (axis, id),
-- whose range would walk every other group's due rows. The key holds COALESCE(storage_group, ''),
-- not the column: the planner knows that rows matching "key = constant" come out in id order, but
-- not rows matching "key IS NULL" (it would sort them, or walk another index); '' is no valid group.
--
-- Migrations run in one transaction, so this index is built without CONCURRENTLY: the build blocks
-- writes to the table while it scans it (an index of PENDING rows only, so its cost is the backlog's,
-- after one scan of the table). On a large ledger, create it beforehand with the same statement as
-- CREATE INDEX CONCURRENTLY (outside a transaction); this migration then finds it.
CREATE INDEX IF NOT EXISTS segment_ledger_item_due_by_group
  ON segment_ledger_item (axis, (COALESCE(storage_group, '')), id) INCLUDE (next_attempt_at)
  WHERE state = 'PENDING';
DROP INDEX IF EXISTS segment_ledger_item_due;
