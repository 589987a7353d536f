-- Segment Ledger V9: the trace context of the registration that wrote the row (a W3C traceparent,
-- or whatever the ledger's Tracing serializes), so that the row's upload, on whichever node and
-- after however many restarts, continues the registration's trace. NULL: no tracing, or a row
-- written before this version.
ALTER TABLE segment_ledger_item ADD COLUMN trace_context text;
