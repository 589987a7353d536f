package dev.segmentledger.core.spi;

/**
 * A failure of an {@link ObjectSink}, classified for the ledger. A {@linkplain #isRetryable()
 * retryable} failure (5xx, throttling, timeout, connection reset, unknown outcome) leaves the row
 * unconfirmed with backoff; a permanent one (access denied, no such bucket, invalid request) makes
 * it terminal with this exception's message as the reason. Sinks must never swallow an error.
 */
public class SinkException extends RuntimeException {
  private final boolean retryable;

  protected SinkException(String message, Throwable cause, boolean retryable) {
    super(message, cause);
    this.retryable = retryable;
  }

  /** A failure that may succeed if tried again later, including an unknown outcome. */
  public static SinkException retryable(String message, Throwable cause) {
    return new SinkException(message, cause, true);
  }

  /** A failure that will not succeed by trying again. */
  public static SinkException permanent(String message, Throwable cause) {
    return new SinkException(message, cause, false);
  }

  /** Whether trying again later may succeed. */
  public boolean isRetryable() {
    return retryable;
  }
}
