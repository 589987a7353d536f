-- Segment Ledger V2: what the upload checks besides the size, and attempts that ended without an outcome.

-- The recorded file's identity at registration (file key and modification time, an opaque text).
-- The upload refuses a file whose identity differs (reason FILE_CHANGED). NULL: not recorded.
ALTER TABLE segment_ledger_item ADD COLUMN file_identity text;

-- Attempts that ended without an outcome: a claim that finds an expired lease of an attempt counts
-- it (its process died or hung). Reset when the row is re-opened.
-- The CHECK is added NOT VALID (no scan of the rows already there under ACCESS EXCLUSIVE); V10
-- validates it.
ALTER TABLE segment_ledger_item ADD COLUMN abandoned_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE segment_ledger_item ADD CONSTRAINT segment_ledger_item_abandoned_attempts
  CHECK (abandoned_attempts >= 0) NOT VALID;

-- Whether the lease covers an upload attempt (taken by a claim, or renewed by its holder right
-- before the upload), not only the row's wait in its registering node's queue (a lease taken at
-- registration): only the former counts as abandoned when found expired.
ALTER TABLE segment_ledger_item ADD COLUMN lease_attempt boolean NOT NULL DEFAULT false;
-- Flyway checksum pin (docs/versions.md, "Schema migrations with Flyway"): FLJLHJK@J@@@
