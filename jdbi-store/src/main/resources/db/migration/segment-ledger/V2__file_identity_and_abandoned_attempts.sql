-- Segment Ledger V2: what the upload checks besides the size, and attempts that ended without an outcome.

-- The recorded file's identity at registration (file key and modification time, an opaque text).
-- The upload refuses a file whose identity differs (reason FILE_CHANGED). NULL: not recorded.
ALTER TABLE segment_ledger_item ADD COLUMN file_identity text;

-- Attempts that ended without an outcome: a claim that finds an expired lease counts the attempt
-- that lease covered (its process died or hung). Reset when the row is re-opened.
ALTER TABLE segment_ledger_item ADD COLUMN abandoned_attempts integer NOT NULL DEFAULT 0
  CONSTRAINT segment_ledger_item_abandoned_attempts CHECK (abandoned_attempts >= 0);
