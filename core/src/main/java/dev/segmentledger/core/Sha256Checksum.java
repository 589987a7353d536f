package dev.segmentledger.core;

import java.util.Base64;

/**
 * The SHA-256 notation of checksums, {@code sha256:<base64>}: the prefix {@value #PREFIX} and the
 * standard Base64 (with padding) of the 32-byte digest, for example
 * {@code sha256:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=} for the bytes {@code abc}.
 *
 * <p>It is the first entry of a {@link StoredObjectInfo#checksum()} in the project's sinks (s3-sink's
 * {@code S3ObjectSink}, the testkit's fakes), which the ledger compares entry by entry ({@link
 * Checksums}: a row's with its object's, in the {@code Reconciler}); sinks that write this entry
 * therefore agree on the same bytes.
 */
public final class Sha256Checksum {
  /** The prefix of every checksum in this notation. */
  public static final String PREFIX = "sha256:";

  private static final int DIGEST_LENGTH = 32;

  private Sha256Checksum() {}

  /**
   * The checksum of a SHA-256 digest in this notation.
   *
   * @param digest the 32 bytes of a SHA-256 digest ({@code MessageDigest.getInstance("SHA-256").digest()})
   * @return {@code sha256:} and the Base64 of {@code digest}
   * @throws IllegalArgumentException if {@code digest} is not 32 bytes long
   */
  public static String of(byte[] digest) {
    if (digest.length != DIGEST_LENGTH) {
      throw new IllegalArgumentException("a SHA-256 digest has " + DIGEST_LENGTH + " bytes, got " + digest.length);
    }
    return PREFIX + Base64.getEncoder().encodeToString(digest);
  }
}
