package dev.segmentledger.core;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How the ledger compares two checksums in the notation of {@link StoredObjectInfo#checksum()}: one
 * or more entries {@code <algorithm>:<value>} separated by single spaces, for example {@code
 * sha256:<base64>} ({@link Sha256Checksum}) or {@code sha256:<base64> crc32c:<base64>} (the S3 sink
 * in its checksum mode adds the object's full-object CRC32C, as the server stores it). A checksum
 * without a {@code :} is opaque: a single entry compared as a whole.
 *
 * <p>Two checksums <em>contradict</em> each other when an algorithm both name has different values:
 * the objects they describe differ (what the {@link Reconciler} reports as a checksum mismatch).
 * They <em>agree</em> when they name at least one algorithm in common and none contradicts: the
 * same bytes. Neither, when they share no algorithm (a row confirmed before a sink recorded a
 * second algorithm, say): nothing is known, as when one of them is missing. So a row's checksum and
 * its object's can gain or lose an entry, as sinks and settings change, without being reported as
 * different. Stateless and thread-safe.
 */
public final class Checksums {
  private static final String OPAQUE = "";

  private Checksums() {}

  /**
   * Whether {@code a} and {@code b} name one algorithm with different values; {@code false} if either
   * is {@code null}.
   */
  public static boolean contradict(String a, String b) {
    if (a == null || b == null) {
      return false;
    }
    Map<String, String> left = entries(a);
    Map<String, String> right = entries(b);
    return left.entrySet().stream()
        .anyMatch(e -> right.containsKey(e.getKey()) && !right.get(e.getKey()).equals(e.getValue()));
  }

  /**
   * Whether {@code a} and {@code b} name at least one algorithm in common and agree on every one they
   * share; {@code false} if either is {@code null}.
   */
  public static boolean agree(String a, String b) {
    if (a == null || b == null) {
      return false;
    }
    Map<String, String> left = entries(a);
    Map<String, String> right = entries(b);
    return left.keySet().stream().anyMatch(right::containsKey) && !contradict(a, b);
  }

  /**
   * The value of {@code algorithm}'s entry in {@code checksum} (for {@code sha256:abc} and {@code
   * sha256}, {@code abc}); empty if it has none or {@code checksum} is {@code null}.
   */
  public static Optional<String> valueOf(String checksum, String algorithm) {
    Objects.requireNonNull(algorithm, "algorithm");
    return checksum == null ? Optional.empty() : Optional.ofNullable(entries(checksum).get(algorithm));
  }

  /**
   * {@code checksum} with an entry {@code algorithm:value} appended.
   *
   * @throws IllegalArgumentException if {@code checksum} already names {@code algorithm}, or if the
   *     algorithm or value is empty or holds a space (or the algorithm a {@code :})
   */
  public static String with(String checksum, String algorithm, String value) {
    Objects.requireNonNull(checksum, "checksum");
    if (algorithm.isEmpty() || algorithm.contains(" ") || algorithm.contains(":") || value.isEmpty()
        || value.contains(" ")) {
      throw new IllegalArgumentException("not a checksum entry: " + algorithm + ":" + value);
    }
    if (entries(checksum).containsKey(algorithm)) {
      throw new IllegalArgumentException(checksum + " already has a " + algorithm + " entry");
    }
    return checksum + " " + algorithm + ":" + value;
  }

  private static Map<String, String> entries(String checksum) {
    Map<String, String> entries = new LinkedHashMap<>();
    for (String entry : checksum.split(" ")) {
      int colon = entry.indexOf(':');
      if (colon <= 0) {
        entries.put(OPAQUE, entry);
      } else {
        entries.put(entry.substring(0, colon), entry.substring(colon + 1));
      }
    }
    return entries;
  }
}
