package dev.segmentledger.core.spi;

/**
 * The former name of {@link dev.segmentledger.core.Sha256Checksum}, which it delegates to; kept so
 * that sinks compiled against earlier versions still link.
 *
 * @deprecated use {@link dev.segmentledger.core.Sha256Checksum}
 */
@Deprecated(since = "1.0.0")
public final class Sha256Checksum {
  /** The prefix of every checksum in this notation: {@link dev.segmentledger.core.Sha256Checksum#PREFIX}. */
  public static final String PREFIX = dev.segmentledger.core.Sha256Checksum.PREFIX;

  private Sha256Checksum() {}

  /** See {@link dev.segmentledger.core.Sha256Checksum#of}. */
  public static String of(byte[] digest) {
    return dev.segmentledger.core.Sha256Checksum.of(digest);
  }
}
