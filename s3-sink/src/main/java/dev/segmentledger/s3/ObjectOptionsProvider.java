package dev.segmentledger.s3;

/**
 * Chooses the {@link ObjectOptions} of each object {@link S3ObjectSink} writes, set with
 * {@link S3ObjectSink.Builder#objectOptions}. Called once per upload attempt (single or
 * multipart), before any request is sent, with the ledger's key (without the sink's
 * {@linkplain S3ObjectSink.Builder#prefix prefix}, for example {@code b42/720p/original/0000000007.ts};
 * {@link dev.segmentledger.core.ObjectKeys#idOf} turns it back into its
 * {@link dev.segmentledger.core.ItemId}) and the sink's defaults for it
 * ({@link ObjectOptions#defaultsFor}: the content type by extension). Return the defaults, a
 * changed copy ({@code defaults.toBuilder()...build()}) or other options.
 *
 * <p>Implementations are called from several upload threads at once and must be thread-safe, fast
 * and free of I/O. They must be a function of the key: a retry of the same key should get the same
 * options. An exception thrown (or {@code null} returned) fails the upload as a
 * {@linkplain dev.segmentledger.core.SinkException.Kind#CONFIGURATION configuration failure}:
 * the row stays pending and the ledger's circuit breaker reports it.
 */
@FunctionalInterface
public interface ObjectOptionsProvider {
  /**
   * The options for {@code key}.
   *
   * @param key the ledger's object key, without the sink's prefix
   * @param defaults the sink's default options for {@code key}
   * @return the options to send, never {@code null}
   */
  ObjectOptions optionsFor(String key, ObjectOptions defaults);

  /** The sink's defaults unchanged: each object gets its content type, and nothing else is sent. */
  static ObjectOptionsProvider defaults() {
    return (key, defaults) -> defaults;
  }
}
