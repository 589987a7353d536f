package dev.segmentledger.core.spi;

/**
 * Where the ledger reports its spans: around a registration, an upload attempt and its
 * repackaging, PUT (and each multipart part), confirm, and a playlist publication. An adapter
 * implements it over a tracing library (the micrometer module's {@code ObservationTracing} over
 * Micrometer Observation, which Spring Boot wires to Brave or OpenTelemetry).
 *
 * <p><b>One trace from register to confirm, across processes.</b> The span of a registration is a
 * child of the span current on the registering thread; its {@linkplain Span#context() context} is
 * stored with the rows the registration writes, and the upload of each row starts as a child of
 * that stored context, whichever node uploads it and however many restarts later. Children of an
 * upload (repackage, PUT, its parts, confirm) are made from their parent {@link Span}, never from
 * thread-local state, so a part sent on another thread or a confirm committed by another worker
 * still lands in its upload's trace.
 *
 * <p>Implementations must be thread-safe, cheap when nothing records the spans, and must never
 * throw: a tracing failure must not fail an upload. {@link #NONE} records nothing.
 */
public interface Tracing {

  /** Records nothing; every span is {@link Span#NONE}. */
  Tracing NONE = new Tracing() {
    @Override
    public Span registration(int files) {
      return Span.NONE;
    }

    @Override
    public Span upload(String storedContext, String name) {
      return Span.NONE;
    }

    @Override
    public Span root(String name) {
      return Span.NONE;
    }
  };

  /**
   * Starts the span of a registration of {@code files} files, a child of the span current on the
   * calling thread (if any); its {@link Span#context()} is what the rows store.
   */
  Span registration(int files);

  /**
   * Starts a span named {@code name} (an upload attempt) as a child of {@code storedContext}, the
   * context a registration stored with the row; a new trace if it is {@code null} or cannot be read.
   */
  Span upload(String storedContext, String name);

  /** Starts a span named {@code name} in a trace of its own (work no caller asked for, as a playlist). */
  Span root(String name);

  /** One span; ended once. Thread-safe. */
  interface Span {
    /** A span that records nothing. */
    Span NONE = new Span() {
      @Override
      public String context() {
        return null;
      }

      @Override
      public Span child(String name) {
        return this;
      }

      @Override
      public Span tag(String key, String value) {
        return this;
      }

      @Override
      public void end(Throwable failure) {}
    };

    /**
     * This span's context, serialized for storage (for example the W3C {@code traceparent}
     * header), or {@code null} if nothing records it.
     */
    String context();

    /** Starts a span named {@code name} as a child of this one, on any thread. */
    Span child(String name);

    /** Adds a tag (an identifier, a size: high cardinality, for traces only). Returns this span. */
    Span tag(String key, String value);

    /** Ends the span; {@code failure} (may be {@code null}) marks it failed. */
    void end(Throwable failure);

    /** Ends the span without a failure. */
    default void end() {
      end(null);
    }
  }
}
