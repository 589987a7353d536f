package dev.segmentledger.core.internal;

import dev.segmentledger.core.spi.Tracing;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A user's {@link Tracing} with every call guarded: a tracer that throws costs a span, never an
 * upload. The first failure is logged with its stack trace, later ones are not logged.
 * Thread-safe if the guarded tracing is.
 */
final class GuardedTracing implements Tracing {
  private static final Logger LOG = LoggerFactory.getLogger(GuardedTracing.class);

  private final Tracing tracing;
  private volatile boolean logged;

  private GuardedTracing(Tracing tracing) {
    this.tracing = tracing;
  }

  /** {@code tracing} guarded; {@link Tracing#NONE} as it is (it cannot fail). */
  static Tracing of(Tracing tracing) {
    return tracing == NONE || tracing instanceof GuardedTracing ? tracing : new GuardedTracing(tracing);
  }

  @Override
  public Span registration(int files) {
    return span(() -> tracing.registration(files));
  }

  @Override
  public Span upload(String storedContext, String name) {
    return span(() -> tracing.upload(storedContext, name));
  }

  @Override
  public Span root(String name) {
    return span(() -> tracing.root(name));
  }

  private Span span(Supplier<Span> start) {
    Span span = guarded(start, Span.NONE);
    return span == null || span == Span.NONE ? Span.NONE : new GuardedSpan(span);
  }

  private <T> T guarded(Supplier<T> call, T fallback) {
    try {
      return call.get();
    } catch (RuntimeException | LinkageError e) {
      if (!logged) {
        logged = true;
        LOG.warn("The tracing {} failed; its spans are incomplete, uploads go on (logged once)",
            tracing.getClass().getName(), e);
      }
      return fallback;
    }
  }

  /** One span of the guarded tracing, its calls guarded too. */
  private final class GuardedSpan implements Span {
    private final Span span;

    GuardedSpan(Span span) {
      this.span = span;
    }

    @Override
    public String context() {
      return guarded(span::context, null);
    }

    @Override
    public Span child(String name) {
      return span(() -> span.child(name));
    }

    @Override
    public Span tag(String key, String value) {
      guarded(() -> span.tag(key, value), this);
      return this;
    }

    @Override
    public void end(Throwable failure) {
      guarded(() -> {
        span.end(failure);
        return null;
      }, null);
    }
  }
}
