-- Segment Ledger V8: the evidence an attempt leaves of itself, so that a death of its process is
-- blamed on a row only when the evidence points at that row (design, "Long work").
--
-- Every statement here changes the catalog only: a column with a constant default reads it from the
-- catalog (no row is rewritten, and NOT NULL needs no scan), and each CHECK is added NOT VALID, which
-- enforces it on every row written from now on without scanning the rows already there under this
-- script's ACCESS EXCLUSIVE lock. V10 validates them, without blocking reads or writes.

-- The greatest number of bytes of the row's object known to be durably stored at the sink (parts of
-- a multipart upload), as the attempts' heartbeats reported it. Kept across attempts: a resumed
-- upload continues from what is stored.
ALTER TABLE segment_ledger_item ADD COLUMN stored_bytes bigint NOT NULL DEFAULT 0;
ALTER TABLE segment_ledger_item ADD CONSTRAINT segment_ledger_item_stored_bytes CHECK (stored_bytes >= 0) NOT VALID;

-- stored_bytes when the current attempt lease began: an attempt that is found abandoned made durable
-- progress if stored_bytes grew past it.
ALTER TABLE segment_ledger_item ADD COLUMN lease_stored_from bigint NOT NULL DEFAULT 0;

-- Whether the attempt under the current lease runs alone in its process (the ledger isolates a
-- suspect row, one whose earlier attempts died without progress, before it runs it).
ALTER TABLE segment_ledger_item ADD COLUMN lease_isolated boolean NOT NULL DEFAULT false;

-- Abandoned attempts blamed on the row: isolated, and without durable progress. A row is rejected
-- (REPEATEDLY_ABANDONED) once they reach LedgerBuilder.maxAbandonedAttempts. Reset by a re-open.
ALTER TABLE segment_ledger_item ADD COLUMN blamed_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE segment_ledger_item ADD CONSTRAINT segment_ledger_item_blamed_attempts CHECK (blamed_attempts >= 0) NOT VALID;
-- Flyway checksum pin (docs/versions.md, "Schema migrations with Flyway"): MOIIDFLJB@@@
