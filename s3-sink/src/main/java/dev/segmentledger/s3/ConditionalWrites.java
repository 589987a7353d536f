package dev.segmentledger.s3;

/**
 * Whether an {@link S3ObjectSink} sends {@code If-None-Match: *} with the first {@code PutObject} of
 * a key and with every {@code CompleteMultipartUpload}, so that the server refuses ({@code 412}) to
 * replace an object already at the key instead of overwriting it silently.
 */
public enum ConditionalWrites {
  /**
   * Detect support once, on first use, with {@link ConditionalWriteProbe}: two conditional PUTs of
   * a reserved key under {@value ConditionalWriteProbe#PROBE_PREFIX}, the second of which must be
   * refused with {@code 412}. A server that ignores the header fails the probe; the sink then
   * falls back to what {@link #OFF} does.
   */
  AUTO,
  /** Always send the header; the sink fails with a configuration error if the probe says unsupported. */
  REQUIRED,
  /**
   * Never send the header: a PUT replaces whatever is at the key, as the {@code ObjectSink}
   * contract describes; only a retry ({@code mayExist}) HEADs first. The default, for now.
   */
  OFF
}
