package dev.segmentledger.core.spi;

/**
 * The SPI's former name of {@link dev.segmentledger.core.SinkException}, kept so that sinks and
 * callers compiled against earlier versions still link: an instance <em>is</em> the API's exception,
 * so a catch of the API name catches it. Throw and catch {@link dev.segmentledger.core.SinkException}
 * instead; this class goes with the next major version.
 *
 * @deprecated throw and catch {@link dev.segmentledger.core.SinkException}
 */
@Deprecated(since = "1.0.0")
public class SinkException extends dev.segmentledger.core.SinkException {
  private static final long serialVersionUID = 1L;

  /**
   * The former kind type.
   *
   * @deprecated use {@link dev.segmentledger.core.SinkException.Kind}
   */
  @Deprecated(since = "1.0.0")
  public enum Kind {
    /** May succeed if tried again later. */
    TRANSIENT,
    /** This item's request will not succeed by trying again. */
    PERMANENT,
    /** The sink's configuration is refused, not the item. */
    CONFIGURATION;

    dev.segmentledger.core.SinkException.Kind toApi() {
      return dev.segmentledger.core.SinkException.Kind.valueOf(name());
    }
  }

  /** A failure: transient if {@code retryable}, else permanent. */
  protected SinkException(String message, Throwable cause, boolean retryable) {
    super(message, cause, retryable);
  }

  /** A failure of the given kind. */
  protected SinkException(String message, Throwable cause, Kind kind) {
    super(message, cause, kind.toApi());
  }

  /** A transient failure. */
  public static SinkException retryable(String message, Throwable cause) {
    return new SinkException(message, cause, Kind.TRANSIENT);
  }

  /** A permanent failure of this item. */
  public static SinkException permanent(String message, Throwable cause) {
    return new SinkException(message, cause, Kind.PERMANENT);
  }

  /** A refusal of the sink's configuration. */
  public static SinkException configuration(String message, Throwable cause) {
    return new SinkException(message, cause, Kind.CONFIGURATION);
  }

  /** Whose fault this failure is, as the former type. */
  public Kind kind() {
    return Kind.valueOf(failureKind().name());
  }
}
