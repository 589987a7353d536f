package dev.segmentledger.core.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.ReconciliationReport.Difference;
import dev.segmentledger.core.ReconciliationReport.Kind;
import dev.segmentledger.core.StoredObjectInfo;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A confirmed row against its object, checksum entry by checksum entry: a row that recorded the
 * server's full-object CRC32C beside the SHA-256 is reported when the bucket's CRC32C differs, even
 * with the SHA-256 metadata intact (other bytes under copied metadata), and not when either side
 * lacks the entry (the integrity setting changed since the confirm).
 */
class ReconcileComparisonsTest {
  private static final String SHA = "sha256:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=";
  private static final ItemId ID = ItemId.original("b1", "720p", 1);

  private static LedgerItem confirmed(String checksum) {
    Instant t = Instant.parse("2026-12-05T00:00:00Z");
    return new LedgerItem(1, ID, "/r/b1/720p/1.ts", null, 3, ItemState.CONFIRMED, 0, null, null, t, t, t, checksum,
        null, null, null, null, null);
  }

  private static Optional<Kind> difference(String rowChecksum, String objectChecksum) {
    return ReconcileComparisons.compare(confirmed(rowChecksum), new StoredObjectInfo(ID.objectKey(), 3, objectChecksum))
        .map(Difference::kind);
  }

  @Test
  void aDifferentFullObjectChecksumUnderTheSameSha256IsAMismatch() {
    assertEquals(Optional.of(Kind.CHECKSUM_MISMATCH), difference(SHA + " crc32c:NCSDzw==", SHA + " crc32c:AAAAAA=="));
  }

  @Test
  void aDifferentSha256IsAMismatchWhateverElseIsRecorded() {
    String otherSha = "sha256:LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=";
    assertEquals(Optional.of(Kind.CHECKSUM_MISMATCH), difference(SHA, otherSha));
    assertEquals(Optional.of(Kind.CHECKSUM_MISMATCH), difference(SHA + " crc32c:NCSDzw==", otherSha));
  }

  @Test
  void anEntryOnOneSideOnlyIsNoDifference() {
    assertEquals(Optional.empty(), difference(SHA + " crc32c:NCSDzw==", SHA + " crc32c:NCSDzw=="));
    assertEquals(Optional.empty(), difference(SHA + " crc32c:NCSDzw==", SHA));
    assertEquals(Optional.empty(), difference(SHA, SHA + " crc32c:NCSDzw=="));
    assertEquals(Optional.empty(), difference(SHA, null));
  }
}
