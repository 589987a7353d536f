-- Segment Ledger V16: running totals on sealed playlist parts, so that a publication of a media
-- playlist's live window reads one part (the rendition's last) instead of every part
-- (PlaylistStore.sealedSummary).
--
-- Only segment_ledger_playlist_part changes (one row per 100 entries of a rendition; the items are
-- not touched). Each part carries the totals of its rendition's chain through it: the chain's first
-- sequence, and the entries, discontinuities, longest target and highest peak of every part from
-- that first sequence to this one. A seal computes them from the part it follows, in its statement.
--
-- The columns are added without defaults (a catalog change, no rewrite), then filled by one UPDATE
-- under ROW EXCLUSIVE (seals and re-opens wait only on the rows it writes). Their CHECK is added NOT
-- VALID (no scan under ACCESS EXCLUSIVE): every part written from now on is checked, and the
-- existing ones are filled below. It is left for a later migration to validate.
ALTER TABLE segment_ledger_playlist_part ADD COLUMN chain_first_sequence bigint;
ALTER TABLE segment_ledger_playlist_part ADD COLUMN total_entries bigint;
ALTER TABLE segment_ledger_playlist_part ADD COLUMN total_discontinuities bigint;
ALTER TABLE segment_ledger_playlist_part ADD COLUMN total_target_seconds integer;
ALTER TABLE segment_ledger_playlist_part ADD COLUMN total_peak_bandwidth bigint;
ALTER TABLE segment_ledger_playlist_part ADD CONSTRAINT segment_ledger_playlist_part_totals
  CHECK (chain_first_sequence IS NOT NULL AND chain_first_sequence <= first_sequence
    AND total_entries >= entries AND total_discontinuities >= discontinuities
    AND total_target_seconds >= target_seconds AND total_peak_bandwidth >= peak_bandwidth) NOT VALID;

-- From now on a rendition's parts follow each other from its first part without a hole. A part
-- after a hole (left by a re-open under V12, which removed only the part covering its row) is
-- removed: its totals could not count the missing entries. Parts are a cache of settled rows; the
-- next publication reads those rows and seals them again.
DELETE FROM segment_ledger_playlist_part p
USING (
  SELECT broadcast_id, rendition, first_sequence,
    count(*) FILTER (WHERE previous_next IS NOT NULL AND previous_next <> first_sequence)
      OVER (PARTITION BY broadcast_id, rendition ORDER BY first_sequence) AS holes_before
  FROM (SELECT broadcast_id, rendition, first_sequence, next_sequence,
          lag(next_sequence) OVER (PARTITION BY broadcast_id, rendition ORDER BY first_sequence) AS previous_next
        FROM segment_ledger_playlist_part) chained
) c
WHERE c.holes_before > 0 AND p.broadcast_id = c.broadcast_id AND p.rendition = c.rendition
  AND p.first_sequence = c.first_sequence;

-- The running totals of each rendition's chain, in sequence order.
UPDATE segment_ledger_playlist_part p
SET chain_first_sequence = t.chain_first_sequence, total_entries = t.total_entries,
    total_discontinuities = t.total_discontinuities, total_target_seconds = t.total_target_seconds,
    total_peak_bandwidth = t.total_peak_bandwidth
FROM (
  SELECT broadcast_id, rendition, first_sequence,
    min(first_sequence) OVER w AS chain_first_sequence,
    sum(entries) OVER w AS total_entries,
    sum(discontinuities) OVER w AS total_discontinuities,
    max(target_seconds) OVER w AS total_target_seconds,
    max(peak_bandwidth) OVER w AS total_peak_bandwidth
  FROM segment_ledger_playlist_part
  WINDOW w AS (PARTITION BY broadcast_id, rendition ORDER BY first_sequence
    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
) t
WHERE p.broadcast_id = t.broadcast_id AND p.rendition = t.rendition AND p.first_sequence = t.first_sequence;
