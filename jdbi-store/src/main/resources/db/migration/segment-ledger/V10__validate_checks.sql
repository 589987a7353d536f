-- Segment Ledger V10: validates the CHECK constraints that V2, V6 and V8 add NOT VALID.
--
-- VALIDATE CONSTRAINT scans the table under SHARE UPDATE EXCLUSIVE, which blocks neither reads nor
-- writes (only other schema changes, VACUUM and ANALYZE), so the ledger keeps registering and
-- uploading while it runs; every row written since the constraint was added was already checked.
-- A constraint validated before (a ledger migrated before these were NOT VALID) is skipped at once.
-- The lock conflicts with nothing the ledger does, so waiting for it holds up no registration: it
-- may wait longer than an ALTER that takes ACCESS EXCLUSIVE (and long enough for an autovacuum in
-- the way to be cancelled, after deadlock_timeout).
SET LOCAL lock_timeout = '10s';
ALTER TABLE segment_ledger_item VALIDATE CONSTRAINT segment_ledger_item_abandoned_attempts;
ALTER TABLE segment_ledger_item VALIDATE CONSTRAINT segment_ledger_item_media_format;
ALTER TABLE segment_ledger_item VALIDATE CONSTRAINT segment_ledger_item_stored_bytes;
ALTER TABLE segment_ledger_item VALIDATE CONSTRAINT segment_ledger_item_blamed_attempts;
