-- Segment Ledger V19: bandwidth caps an operator stores for one node or for every node ('*'), so
-- that the command line and the console can turn the cap of running nodes (StateStore.uplinkCaps,
-- putUplinkCap, removeUplinkCap). Every node reads the table about once a second: a few rows, one
-- per capped node. A new table: no lock on the ledger's other tables.
CREATE TABLE segment_ledger_uplink_cap (
  node varchar(200) NOT NULL PRIMARY KEY,
  bytes_per_second bigint NOT NULL CHECK (bytes_per_second >= 0),
  requests_per_second bigint NOT NULL CHECK (requests_per_second >= 0),
  set_at timestamptz NOT NULL
);
