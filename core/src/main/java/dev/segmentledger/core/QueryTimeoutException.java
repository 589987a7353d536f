package dev.segmentledger.core;

import java.time.Duration;
import java.util.Objects;

/**
 * A read of a store {@linkplain dev.segmentledger.core.spi.StateStore#withReadTimeout bounded in time} took longer than its
 * bound and was cancelled by the database. Nothing was written ({@link Outcome#NOT_WRITTEN}). For an
 * operator it usually means a filter that matches few rows of a large ledger: narrow it. Immutable
 * once thrown.
 */
public class QueryTimeoutException extends StoreException {
  private static final long serialVersionUID = 1L;

  private final Duration bound;

  /** A read cancelled after {@code bound}. */
  public QueryTimeoutException(String message, Throwable cause, Duration bound) {
    super(message, cause, Outcome.NOT_WRITTEN);
    this.bound = Objects.requireNonNull(bound, "bound");
  }

  /** How long the read was allowed to take. */
  public Duration bound() {
    return bound;
  }
}
