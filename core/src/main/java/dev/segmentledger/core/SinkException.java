package dev.segmentledger.core;

import java.util.Objects;

/**
 * A failure of an {@link dev.segmentledger.core.spi.ObjectSink}, classified for the ledger by its {@link #failureKind()}:
 *
 * <ul>
 *   <li>{@link Kind#TRANSIENT} (5xx, throttling, timeout, connection reset, unknown outcome): the
 *       row stays unconfirmed with backoff, and the failure counts against the sink's circuit
 *       breaker;
 *   <li>{@link Kind#PERMANENT} (this item's request is refused: an invalid request, an object the
 *       sink cannot store): the row becomes terminal with this exception's message as the reason;
 *   <li>{@link Kind#CONFIGURATION} (the sink's configuration is refused, whatever the item: access
 *       denied, unknown credentials, a bad signature, a missing bucket, an unusable encryption
 *       key): the row stays unconfirmed with backoff, like a transient failure, and the failure
 *       counts against the circuit breaker, so that a wrong setting pauses uploads instead of
 *       rejecting every row. Once the configuration is fixed, the rows are uploaded.
 * </ul>
 *
 * Sinks must never swallow an error. Immutable once thrown.
 *
 * <p>This is the name to throw and catch. The SPI's {@code dev.segmentledger.core.SinkException}
 * of earlier versions is a deprecated subclass kept so that sinks and callers compiled against it
 * still link.
 */
public class SinkException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Whose fault a sink failure is, which decides what the ledger does with the row. */
  public enum Kind {
    /** May succeed if tried again later, including an unknown outcome. */
    TRANSIENT,
    /** This item's request will not succeed by trying again. */
    PERMANENT,
    /**
     * The sink's configuration (credentials, bucket, permissions, encryption key, an option the
     * server does not implement) is refused, not the item: every item would fail the same way
     * until someone fixes the configuration, after which every item may succeed.
     */
    CONFIGURATION
  }

  private final Kind failureKind;

  /** A failure of the given kind: {@link Kind#TRANSIENT} if {@code retryable}, else {@link Kind#PERMANENT}. */
  protected SinkException(String message, Throwable cause, boolean retryable) {
    this(message, cause, retryable ? Kind.TRANSIENT : Kind.PERMANENT);
  }

  /** A failure of the given kind. */
  protected SinkException(String message, Throwable cause, Kind kind) {
    super(message, cause);
    this.failureKind = Objects.requireNonNull(kind, "kind");
  }

  /** A failure that may succeed if tried again later, including an unknown outcome ({@link Kind#TRANSIENT}). */
  public static SinkException retryable(String message, Throwable cause) {
    return new SinkException(message, cause, Kind.TRANSIENT);
  }

  /** A failure of this item that will not succeed by trying again ({@link Kind#PERMANENT}). */
  public static SinkException permanent(String message, Throwable cause) {
    return new SinkException(message, cause, Kind.PERMANENT);
  }

  /**
   * A refusal of the sink's configuration, not of the item ({@link Kind#CONFIGURATION}); the
   * message should name the cause (for example the S3 error code) but never a credential.
   */
  public static SinkException configuration(String message, Throwable cause) {
    return new SinkException(message, cause, Kind.CONFIGURATION);
  }

  /**
   * Whose fault this failure is. (Named so, not {@code kind()}, because the deprecated SPI subclass
   * keeps its own {@code kind()} for the callers compiled against it.)
   */
  public Kind failureKind() {
    return failureKind;
  }

  /**
   * Whether trying again later may succeed: {@code true} for {@link Kind#TRANSIENT} and for
   * {@link Kind#CONFIGURATION} (once the configuration is fixed), {@code false} for
   * {@link Kind#PERMANENT}.
   */
  public boolean isRetryable() {
    return failureKind != Kind.PERMANENT;
  }
}
