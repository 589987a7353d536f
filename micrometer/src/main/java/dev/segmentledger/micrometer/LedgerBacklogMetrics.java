package dev.segmentledger.micrometer;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.query.Backlog;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gauges of the backlog in the rows ({@link Ledger#backlog()}), the truth across processes and
 * restarts. The backlog is one database query; it is read by a refresher every {@code
 * refreshInterval} (on its own daemon thread, after {@link #start()}, or by a call to {@link
 * #refresh()}) and cached: reading a gauge never queries the database. Before the first successful
 * refresh the count gauges read {@code NaN}; after a failed refresh they keep the last backlog, and
 * {@code segment.ledger.backlog.staleness} grows.
 *
 * <p>Meters (tag {@code axis} = original, playback or init):
 * <ul>
 *   <li>{@code segment.ledger.backlog.unconfirmed}: rows not yet confirmed, rejected or excluded;
 *   <li>{@code segment.ledger.backlog.oldest.age} (seconds): age of the oldest unconfirmed row, on
 *       the injected clock at the time the gauge is read;
 *   <li>{@code segment.ledger.backlog.in.backoff}: unconfirmed rows waiting out a backoff after a
 *       failed attempt;
 *   <li>{@code segment.ledger.backlog.waiting.for.init}: unconfirmed rows waiting for their INIT row;
 *   <li>{@code segment.ledger.backlog.bytes} (bytes): the sizes of the unconfirmed rows added up, the
 *       bytes still to upload that lie on the recorders' disks ({@code NaN} from a store that does not
 *       say; a PLAYBACK or INIT row not produced yet counts 0);
 *   <li>{@code segment.ledger.backlog.staleness} (seconds, no tag): time since the last successful
 *       refresh.
 * </ul>
 *
 * <p>Thread-safe. {@link #close()} stops the refresher.
 */
public final class LedgerBacklogMetrics implements MeterBinder, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LedgerBacklogMetrics.class);

  private final Supplier<Backlog> source;
  private final Clock clock;
  private final Duration refreshInterval;
  private final AtomicReference<Snapshot> latest = new AtomicReference<>();
  private final Object lifecycle = new Object();
  private ScheduledExecutorService refresher;

  /** The last two backlogs read: {@code previous} is null after the first. */
  public record Snapshot(Backlog current, Backlog previous, Instant refreshedAt) {
    public Snapshot {
      Objects.requireNonNull(current, "current");
      Objects.requireNonNull(refreshedAt, "refreshedAt");
    }
  }

  private LedgerBacklogMetrics(Supplier<Backlog> source, Clock clock, Duration refreshInterval) {
    this.source = Objects.requireNonNull(source, "source");
    this.clock = Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(refreshInterval, "refreshInterval");
    if (refreshInterval.isNegative() || refreshInterval.isZero()) {
      throw new IllegalArgumentException("refreshInterval must be > 0, got " + refreshInterval);
    }
    this.refreshInterval = refreshInterval;
  }

  /** The backlog of {@code ledger}, read every {@code refreshInterval} once {@link #start() started}. */
  public static LedgerBacklogMetrics create(Ledger ledger, Clock clock, Duration refreshInterval) {
    Objects.requireNonNull(ledger, "ledger");
    return new LedgerBacklogMetrics(ledger::backlog, clock, refreshInterval);
  }

  /** The backlog read from {@code source} (for example a store's), refreshed likewise. */
  public static LedgerBacklogMetrics create(Supplier<Backlog> source, Clock clock, Duration refreshInterval) {
    return new LedgerBacklogMetrics(source, clock, refreshInterval);
  }

  /** The interval of the refresher. */
  public Duration refreshInterval() {
    return refreshInterval;
  }

  /**
   * Reads the backlog now and caches it. A failure is logged and rethrown; the cache keeps the last
   * backlog read.
   */
  public Backlog refresh() {
    Backlog backlog = source.get();
    Instant at = clock.instant();
    latest.updateAndGet(old -> new Snapshot(backlog, old == null ? null : old.current(), at));
    return backlog;
  }

  /** The last backlogs read, if any; never queries. */
  public Optional<Snapshot> latest() {
    return Optional.ofNullable(latest.get());
  }

  /** Starts the refresher: a first refresh at once, then one every {@link #refreshInterval()}. Idempotent. */
  public LedgerBacklogMetrics start() {
    synchronized (lifecycle) {
      if (refresher == null) {
        refresher = Executors.newSingleThreadScheduledExecutor(r -> {
          Thread thread = new Thread(r, "segment-ledger-backlog-refresher");
          thread.setDaemon(true);
          return thread;
        });
        refresher.scheduleWithFixedDelay(this::refreshQuietly, 0, refreshInterval.toMillis(), TimeUnit.MILLISECONDS);
      }
    }
    return this;
  }

  private void refreshQuietly() {
    try {
      refresh();
    } catch (RuntimeException e) {
      log.warn("cannot read the ledger backlog; the backlog gauges keep the last value: {}", e.toString());
    }
  }

  /** Stops the refresher, if started, and waits up to 10 seconds for a refresh under way. */
  @Override
  public void close() {
    ScheduledExecutorService stopping;
    synchronized (lifecycle) {
      stopping = refresher;
      refresher = null;
    }
    if (stopping != null) {
      stopping.shutdownNow();
      try {
        if (!stopping.awaitTermination(10, TimeUnit.SECONDS)) {
          log.warn("the backlog refresher did not stop within 10 s");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    for (Axis axis : Axis.values()) {
      String tag = axis.name().toLowerCase(Locale.ROOT);
      gauge(registry, "segment.ledger.backlog.unconfirmed", tag, "unconfirmed rows",
          s -> s.current().axis(axis).unconfirmed());
      gauge(registry, "segment.ledger.backlog.in.backoff", tag, "unconfirmed rows waiting out a backoff",
          s -> s.current().axis(axis).inBackoff());
      gauge(registry, "segment.ledger.backlog.waiting.for.init", tag, "unconfirmed rows waiting for their INIT",
          s -> s.current().axis(axis).waitingForInit());
      Gauge.builder("segment.ledger.backlog.bytes", this, m -> m.value(s -> {
        long bytes = s.current().axis(axis).unconfirmedBytes();
        return bytes < 0 ? Double.NaN : bytes;
      })).tag("axis", tag).baseUnit("bytes").description("bytes of the unconfirmed rows, still to upload")
          .register(registry);
      TimeGauge.builder("segment.ledger.backlog.oldest.age", this, TimeUnit.SECONDS,
              m -> m.value(s -> s.current().axis(axis).oldestAge(m.clock.instant()).toMillis() / 1000.0))
          .tag("axis", tag).description("age of the oldest unconfirmed row").register(registry);
    }
    TimeGauge.builder("segment.ledger.backlog.staleness", this, TimeUnit.SECONDS,
            m -> m.value(s -> Math.max(0, Duration.between(s.refreshedAt(), m.clock.instant()).toMillis()) / 1000.0))
        .description("time since the backlog was last read").register(registry);
  }

  private void gauge(MeterRegistry registry, String name, String axis, String description,
      ToDoubleFunction<Snapshot> value) {
    Gauge.builder(name, this, m -> m.value(value)).tag("axis", axis).description(description).register(registry);
  }

  private double value(ToDoubleFunction<Snapshot> f) {
    Snapshot snapshot = latest.get();
    return snapshot == null ? Double.NaN : f.applyAsDouble(snapshot);
  }
}
