-- Segment Ledger V4: playlist publication in the ledger (issue 17). One row per HLS media playlist
-- (broadcast, rendition) and per multivariant playlist (broadcast, rendition = '': no valid
-- rendition id is empty). `wanted` counts the ledger changes that alter the playlist; it is
-- incremented in the transaction of the change itself (a confirm, a terminal failure or a re-open
-- of a PLAYBACK or INIT row; any row change of an ended broadcast; the end of the broadcast).
-- `published` is the `wanted` the last recorded publication covered. A publisher leases a playlist
-- like a row (lease_owner, lease_until; without an owner lease_until is the backoff), records the
-- entry count it is about to PUT (published_entries, published_final) before the PUT, and never
-- publishes fewer entries than recorded: a reader polling the bucket never sees a playlist shrink.
CREATE TABLE segment_ledger_playlist (
  broadcast_id       varchar(64)  NOT NULL,
  rendition          varchar(64)  NOT NULL,
  wanted             bigint       NOT NULL DEFAULT 0,
  published          bigint       NOT NULL DEFAULT 0,
  published_entries  integer      NOT NULL DEFAULT 0,
  published_final    boolean      NOT NULL DEFAULT false,
  published_checksum text,
  lease_owner        varchar(200),
  lease_until        timestamptz,
  attempts           integer      NOT NULL DEFAULT 0,
  last_error         text,
  updated_at         timestamptz  NOT NULL,
  CONSTRAINT segment_ledger_playlist_pk PRIMARY KEY (broadcast_id, rendition)
);

-- The playlists awaiting publication, and only those: the publisher's claim and the stats count
-- read it, so their cost grows with the playlists behind, never with the published ones.
CREATE INDEX segment_ledger_playlist_awaiting
  ON segment_ledger_playlist (updated_at) INCLUDE (lease_until)
  WHERE wanted > published;
