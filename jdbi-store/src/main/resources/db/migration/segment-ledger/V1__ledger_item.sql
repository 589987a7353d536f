-- Segment Ledger V1: the ledger table, one row per (broadcast, axis, rendition, sequence), and the
-- broadcast lifecycle. Each axis is its own ledger: its own row, state and compare-and-set confirm.

CREATE TABLE segment_ledger_broadcast (
  broadcast_id varchar(64) PRIMARY KEY,
  created_at   timestamptz NOT NULL,
  ended_at     timestamptz
);

CREATE TABLE segment_ledger_item (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  broadcast_id    varchar(64) NOT NULL,
  axis            varchar(16) NOT NULL,
  rendition       varchar(64) NOT NULL,
  sequence        bigint      NOT NULL,
  source_path     text        NOT NULL,
  origin_path     text,
  size_bytes      bigint      NOT NULL,
  state           varchar(16) NOT NULL,
  attempts        integer     NOT NULL DEFAULT 0,
  reason          varchar(32),
  last_error      text,
  registered_at   timestamptz NOT NULL,
  next_attempt_at timestamptz NOT NULL,
  confirmed_at    timestamptz,
  terminal_at     timestamptz,
  checksum        text,
  media_duration_micros bigint,
  -- The lease of the ledger instance uploading the row now (StateStore.claim). While it is valid,
  -- next_attempt_at = lease_until, so the sweep page skips the row through the due index alone and
  -- the row is due again by itself when the lease expires. Cleared by confirm, failure, terminal.
  lease_owner     varchar(200),
  lease_until     timestamptz,
  CONSTRAINT segment_ledger_item_identity UNIQUE (broadcast_id, axis, rendition, sequence),
  CONSTRAINT segment_ledger_item_axis CHECK (axis IN ('ORIGINAL', 'PLAYBACK', 'INIT')),
  CONSTRAINT segment_ledger_item_state CHECK (state IN ('PENDING', 'WAITING', 'CONFIRMED', 'REJECTED', 'EXCLUDED')),
  CONSTRAINT segment_ledger_item_sequence CHECK (sequence >= 0 AND (axis <> 'INIT' OR sequence = 0)),
  -- -1: a PLAYBACK or INIT file not produced yet.
  CONSTRAINT segment_ledger_item_size CHECK (size_bytes >= 0 OR (size_bytes = -1 AND axis <> 'ORIGINAL')),
  CONSTRAINT segment_ledger_item_attempts CHECK (attempts >= 0),
  CONSTRAINT segment_ledger_item_lease CHECK ((lease_owner IS NULL) = (lease_until IS NULL))
);

-- The sweep page: WHERE axis = ? AND state = 'PENDING' AND id > ? AND next_attempt_at <= ?
-- ORDER BY id LIMIT ?. Only unconfirmed rows are in this index, so the page is a bounded range
-- scan however many confirmed rows the table holds. Rows in backoff and rows under a valid lease
-- both have next_attempt_at > now: filtered from the index tuple, they take no slot of the page.
CREATE INDEX segment_ledger_item_due
  ON segment_ledger_item (axis, id) INCLUDE (next_attempt_at)
  WHERE state = 'PENDING';

-- The cutoff walks the unconfirmed rows through the two partial indexes (due and waiting); it has
-- no index of its own on purpose: a partial index on unconfirmed rows would also qualify for the
-- sweep query, and the planner may then prefer it and sort, losing the bounded ordered scan.

-- The init gate: playback rows waiting for the init of their (broadcast, rendition).
CREATE INDEX segment_ledger_item_waiting
  ON segment_ledger_item (broadcast_id, rendition)
  WHERE state = 'WAITING' AND axis = 'PLAYBACK';

-- Reads of one broadcast (status, playback view, checks) use the identity constraint's index,
-- whose leading column is broadcast_id.

-- Leases held by one node, released when that node starts again (StateStore.releaseAllOf). Only
-- rows being uploaded carry a lease, so this index stays tiny.
CREATE INDEX segment_ledger_item_lease_owner
  ON segment_ledger_item (lease_owner)
  WHERE lease_owner IS NOT NULL;
