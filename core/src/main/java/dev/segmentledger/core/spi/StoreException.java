package dev.segmentledger.core.spi;

/**
 * The SPI's former name of {@link dev.segmentledger.core.StoreException}, kept so that stores and
 * callers compiled against earlier versions still link: an instance <em>is</em> the API's exception,
 * so a catch of the API name catches it. Throw and catch {@link dev.segmentledger.core.StoreException}
 * instead; this class goes with the next major version.
 *
 * @deprecated throw and catch {@link dev.segmentledger.core.StoreException}
 */
@Deprecated(since = "1.0.0")
public class StoreException extends dev.segmentledger.core.StoreException {
  private static final long serialVersionUID = 1L;

  /**
   * The former outcome type.
   *
   * @deprecated use {@link dev.segmentledger.core.StoreException.Outcome}
   */
  @Deprecated(since = "1.0.0")
  public enum Outcome {
    /** Nothing of the call was written. */
    NOT_WRITTEN,
    /** The call may have been written. */
    UNKNOWN;

    dev.segmentledger.core.StoreException.Outcome toApi() {
      return dev.segmentledger.core.StoreException.Outcome.valueOf(name());
    }
  }

  /** A failure whose outcome is unknown: the call may have been written. */
  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }

  /** A failure with the given outcome. */
  public StoreException(String message, Throwable cause, Outcome outcome) {
    super(message, cause, outcome.toApi());
  }

  /** Whether the failed call may have written anything, as the former type. */
  public Outcome outcome() {
    return Outcome.valueOf(writeOutcome().name());
  }
}
