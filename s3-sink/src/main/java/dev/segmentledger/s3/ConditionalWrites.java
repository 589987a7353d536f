package dev.segmentledger.s3;

/**
 * Whether an {@link S3ObjectSink} sends {@code If-None-Match: *} with the first {@code PutObject} of
 * a key and with every {@code CompleteMultipartUpload}, so that the server refuses ({@code 412}) to
 * replace an object already at the key instead of overwriting it silently; and whether it writes
 * rewritten objects (the ledger's playlists, {@link S3ObjectSink#putIfMatch}) with {@code If-Match}
 * on the ETag last written, where the server honours it.
 */
public enum ConditionalWrites {
  /**
   * Detect support once, on first use, with {@link ConditionalWriteProbe}: two conditional PUTs of
   * a reserved key under {@value ConditionalWriteProbe#PROBE_PREFIX}, the second of which must be
   * refused with {@code 412}, then {@code If-Match} PUTs (a wrong ETag refused, the right one
   * stored). A server that ignores a header fails that part of the probe; the sink then falls back
   * to what {@link #OFF} does for it.
   */
  AUTO,
  /**
   * Always send {@code If-None-Match: *}; the sink fails with a configuration error if the probe says
   * it is not honoured on both PUT and completion. {@code If-Match} is used where the probe finds it
   * honoured, and not required.
   */
  REQUIRED,
  /**
   * Never send either header: a PUT replaces whatever is at the key, as the {@code ObjectSink}
   * contract describes; only a retry ({@code mayExist}) HEADs first. The default: {@link #AUTO}
   * needs {@code s3:DeleteObject} on the probe prefix, and turns the reconciler's repair of a
   * replaced object into a conflict (docs/bucket.md, "Conditional writes"); choose it per bucket.
   */
  OFF
}
