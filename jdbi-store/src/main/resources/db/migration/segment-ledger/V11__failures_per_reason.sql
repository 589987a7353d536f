-- Segment Ledger V11: the failures of a row counted per reason, for the reasons the ledger caps
-- (LedgerBuilder.maxErrorAttempts): an internal error or a repackager failure that keeps coming back
-- ends the row, and the cap counts that reason's failures only, never the row's other attempts (S3
-- throttling, kills) nor a failure of the store itself. Reset by a re-open. No CHECK and a constant
-- default: adding them only changes the catalog, without a scan or a rewrite of the table.
ALTER TABLE segment_ledger_item ADD COLUMN internal_errors integer NOT NULL DEFAULT 0;
ALTER TABLE segment_ledger_item ADD COLUMN repackage_failures integer NOT NULL DEFAULT 0;
