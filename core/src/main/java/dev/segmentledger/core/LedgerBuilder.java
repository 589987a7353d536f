package dev.segmentledger.core;

import dev.segmentledger.core.internal.DefaultLedger;
import dev.segmentledger.core.internal.LedgerConfig;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.Repackager;
import dev.segmentledger.core.spi.StateStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Builds a {@link Ledger}. Each {@code build} call copies the settings into an immutable
 * configuration, so a builder may be reused; a builder itself is not thread-safe.
 *
 * <p>Required: {@link #stateStore}, {@link #objectSink} and {@link #allowedRoot}.
 */
public final class LedgerBuilder {
  private StateStore stateStore;
  private ObjectSink objectSink;
  private Path allowedRoot;
  private Clock clock = Clock.systemUTC();
  private int queueCapacity = 256;
  private int workers = 4;
  private int sweepBatchSize = 128;
  private Duration sweepInterval = Duration.ofSeconds(1);
  private Duration shutdownTimeout = Duration.ofSeconds(30);
  private Backoff backoff = Backoff.DEFAULT;
  private final List<LedgerListener> listeners = new ArrayList<>();
  private Repackager repackager;
  private Path playbackRoot;
  private Duration cutoff;
  private int breakerFailures = 5;
  private Duration breakerDelay = Duration.ofSeconds(10);

  LedgerBuilder() {}

  /** The ledger table. Required. */
  public LedgerBuilder stateStore(StateStore stateStore) {
    this.stateStore = Objects.requireNonNull(stateStore, "stateStore");
    return this;
  }

  /** The bucket. Required. */
  public LedgerBuilder objectSink(ObjectSink objectSink) {
    this.objectSink = Objects.requireNonNull(objectSink, "objectSink");
    return this;
  }

  /**
   * The only directory whose files may be uploaded. It is resolved to its real path when the
   * ledger is built; a file whose real path is not inside it is never uploaded. Required.
   */
  public LedgerBuilder allowedRoot(Path allowedRoot) {
    this.allowedRoot = Objects.requireNonNull(allowedRoot, "allowedRoot");
    return this;
  }

  /** The source of time for rows, backoff and cutoff. Default: {@link Clock#systemUTC()}. */
  public LedgerBuilder clock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /** Capacity of the bounded in-memory queue. Default 256. */
  public LedgerBuilder queueCapacity(int queueCapacity) {
    this.queueCapacity = requirePositive("queueCapacity", queueCapacity);
    return this;
  }

  /** Number of upload worker threads. Default 4. */
  public LedgerBuilder workers(int workers) {
    this.workers = requirePositive("workers", workers);
    return this;
  }

  /** Rows read per axis per sweep round. Default 128. */
  public LedgerBuilder sweepBatchSize(int sweepBatchSize) {
    this.sweepBatchSize = requirePositive("sweepBatchSize", sweepBatchSize);
    return this;
  }

  /** Pause between sweep rounds. Default 1 second. */
  public LedgerBuilder sweepInterval(Duration sweepInterval) {
    this.sweepInterval = requirePositive("sweepInterval", sweepInterval);
    return this;
  }

  /** How long {@link Ledger#close()} waits for in-flight uploads. Default 30 seconds. */
  public LedgerBuilder shutdownTimeout(Duration shutdownTimeout) {
    this.shutdownTimeout = requirePositive("shutdownTimeout", shutdownTimeout);
    return this;
  }

  /** Backoff between failed attempts of one row. Default {@link Backoff#DEFAULT}. */
  public LedgerBuilder backoff(Backoff backoff) {
    this.backoff = Objects.requireNonNull(backoff, "backoff");
    return this;
  }

  /** Adds a listener for accept, store, confirm and failure events. */
  public LedgerBuilder listener(LedgerListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
    return this;
  }

  /**
   * Enables the PLAYBACK and INIT axes: each registered original is repackaged by
   * {@code repackager} into files under {@code playbackRoot}, which must lie inside the allowed
   * root. Without a repackager only the ORIGINAL axis is used.
   */
  public LedgerBuilder repackager(Repackager repackager, Path playbackRoot) {
    this.repackager = Objects.requireNonNull(repackager, "repackager");
    this.playbackRoot = Objects.requireNonNull(playbackRoot, "playbackRoot");
    return this;
  }

  /**
   * Rows registered longer ago than {@code cutoff} and still unconfirmed are excluded from
   * recovery: marked {@link ItemState#EXCLUDED} with {@link Reason#PAST_CUTOFF} (terminal,
   * counted, never deleted). Default: no cutoff, unconfirmed rows are retried for ever.
   */
  public LedgerBuilder cutoff(Duration cutoff) {
    this.cutoff = requirePositive("cutoff", cutoff);
    return this;
  }

  /**
   * The circuit breaker around the sink: after {@code consecutiveFailures} transient sink failures
   * in a row it opens; workers stop taking work and the sweeper stops accepting for
   * {@code openDelay}; then one probe upload closes it (or re-opens it). Rows are never touched by
   * the breaker. Default: 5 failures, 10 seconds. The delay is measured by Failsafe on the
   * monotonic system timer, not the ledger's clock.
   */
  public LedgerBuilder circuitBreaker(int consecutiveFailures, Duration openDelay) {
    this.breakerFailures = requirePositive("consecutiveFailures", consecutiveFailures);
    this.breakerDelay = requirePositive("openDelay", openDelay);
    return this;
  }

  /** Builds a ledger with background workers and sweeper, started by {@link Ledger#start()}. */
  public Ledger build() {
    return new DefaultLedger(config(), false);
  }

  /** Builds a ledger without background threads, driven by the caller (tests, tools). */
  public ManualLedger buildManual() {
    return new DefaultLedger(config(), true);
  }

  private LedgerConfig config() {
    if (stateStore == null) {
      throw new IllegalStateException("stateStore is required");
    }
    if (objectSink == null) {
      throw new IllegalStateException("objectSink is required");
    }
    if (allowedRoot == null) {
      throw new IllegalStateException("allowedRoot is required");
    }
    return new LedgerConfig(stateStore, objectSink, allowedRoot, clock, queueCapacity, workers, sweepBatchSize,
        sweepInterval, shutdownTimeout, backoff, List.copyOf(listeners), repackager, playbackRoot, cutoff, breakerFailures, breakerDelay);
  }

  private static int requirePositive(String name, int value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be > 0, got " + value);
    }
    return value;
  }

  private static Duration requirePositive(String name, Duration value) {
    Objects.requireNonNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0, got " + value);
    }
    return value;
  }
}
