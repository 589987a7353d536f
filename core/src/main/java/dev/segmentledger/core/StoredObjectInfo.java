package dev.segmentledger.core;

import java.util.Objects;

/**
 * What a sink knows of one stored object.
 *
 * @param key the object key (without any sink-level prefix)
 * @param sizeBytes the stored size
 * @param checksum the checksum the sink computed or the server returned: one or more entries {@code
 *     <algorithm>:<value>} separated by spaces (for example {@code sha256:<base64>}, or {@code
 *     sha256:<base64> crc32c:<base64>}), which the ledger records on confirm and compares entry by
 *     entry ({@link Checksums}); {@code null} if the sink has none
 */
public record StoredObjectInfo(String key, long sizeBytes, String checksum) {
  public StoredObjectInfo {
    Objects.requireNonNull(key, "key");
    if (sizeBytes < 0) {
      throw new IllegalArgumentException("sizeBytes must be >= 0, got " + sizeBytes);
    }
  }
}
