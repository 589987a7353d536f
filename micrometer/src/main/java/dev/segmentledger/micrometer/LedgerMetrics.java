package dev.segmentledger.micrometer;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.CircuitState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.LocalFileRefusal;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.StoredObjectInfo;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Micrometer metrics for one ledger. Add it as a listener when building the ledger, then bind
 * the gauges to the built ledger:
 *
 * <pre>{@code
 * LedgerMetrics metrics = LedgerMetrics.create(registry);
 * Ledger ledger = Ledger.builder()...listener(metrics).build();
 * metrics.bindGauges(ledger);
 * }</pre>
 *
 * <p>It is also a {@link MeterBinder}: {@link #unbound(Clock)} makes one whose meters appear in each
 * registry later given to {@link #bindTo(MeterRegistry)} (Spring Boot does that for every
 * {@code MeterBinder} bean). Events before the first registry is bound are not counted. The
 * backlog read from the rows is {@link LedgerBacklogMetrics}.
 *
 * <p>Meters (tag {@code axis} = original, playback or init):
 * <ul>
 *   <li>{@code segment.ledger.items} counter, tag {@code event} = accepted, saturated, stored,
 *       confirmed, confirm_lost, failed (retried) or rejected (terminal) — accept, store and
 *       confirm are separate events, never one;
 *   <li>{@code segment.ledger.failures} counter, tag {@code reason} = the {@link Reason} name in
 *       lower case (e.g. {@code sink_transient});
 *   <li>{@code segment.ledger.confirm.latency} timer: registration to confirm of each item;
 *   <li>{@code segment.ledger.put.bytes} distribution summary: the size of each stored object;
 *   <li>{@code segment.ledger.put.duration} timer: each successful PUT, from the sink call to its
 *       answer (the confirm latency above also spans queueing and the confirm);
 *   <li>gauges {@code segment.ledger.queue.depth}, {@code segment.ledger.in.flight},
 *       {@code segment.ledger.circuit.open} (1 while the breaker around the sink is open) and
 *       {@code segment.ledger.clock.skew} (seconds this node's clock runs ahead of the store's,
 *       {@link dev.segmentledger.core.LedgerStats#clockSkew()});
 *   <li>the recorder's disk ({@link dev.segmentledger.core.LedgerStats#localDisk()}, no axis tag):
 *       counters {@code segment.ledger.local.deleted} and {@code segment.ledger.local.deleted.bytes}
 *       (the produced files deleted once confirmed, and the originals local retention deleted),
 *       {@code segment.ledger.local.refused} (tag
 *       {@code reason} = the {@link LocalFileRefusal} name in lower case), gauges
 *       {@code segment.ledger.local.free} (bytes free under the allowed root) and
 *       {@code segment.ledger.local.low} (1 while below the low-disk threshold);
 *   <li>{@code segment.ledger.root.reopened} counter (no axis tag): the allowed root was replaced
 *       while running and re-opened ({@link LedgerListener#onAllowedRootReopened}); uploads refused
 *       because it was replaced unsafely count in {@code segment.ledger.failures} with
 *       {@code reason} = {@code root_replaced} (a registration refused for it writes no row and
 *       counts nothing: it throws {@link dev.segmentledger.core.RootReplacedException}).
 * </ul>
 *
 * <p>Counts are this process's events, like {@link Ledger#stats()}; the rows are the truth across
 * restarts. Thread-safe.
 */
public final class LedgerMetrics implements LedgerListener, MeterBinder {
  private static final String ITEMS = "segment.ledger.items";

  /**
   * Holds the meters; each registry bound is added to it, and sees every meter, old and new. No
   * meter is registered in it before the first registry is added: Micrometer warns when a registry
   * joins a composite that already has meters (their earlier recordings are not in the newcomer),
   * and Spring Boot binds its registry after the ledger's listeners are built.
   */
  private final CompositeMeterRegistry registry = new CompositeMeterRegistry();
  private final Clock clock;
  private final AtomicReference<CircuitState> circuit = new AtomicReference<>(CircuitState.CLOSED);
  /** The meters, from the first {@link #bindTo}; {@code null} before (events are not counted then). */
  private volatile Meters meters;
  /** The ledger whose gauges are registered once a registry is bound. */
  private Ledger gauged;

  private LedgerMetrics(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** The meters of one composite: per axis counters, latency, sizes and PUT durations; the breaker gauge. */
  private static final class Meters {
    final Map<Axis, Map<String, Counter>> counters = new EnumMap<>(Axis.class);
    final Map<Axis, Timer> latency = new EnumMap<>(Axis.class);
    final Map<Axis, DistributionSummary> putBytes = new EnumMap<>(Axis.class);
    final Map<Axis, Timer> putDuration = new EnumMap<>(Axis.class);
    final Counter rootReopened;

    Meters(MeterRegistry registry, AtomicReference<CircuitState> circuit) {
      rootReopened = Counter.builder("segment.ledger.root.reopened")
          .description("allowed roots replaced while running and re-opened").register(registry);
      for (Axis axis : Axis.values()) {
        Map<String, Counter> byEvent = new HashMap<>();
        for (String event : new String[] {"accepted", "saturated", "stored", "confirmed", "confirm_lost", "failed",
            "rejected"}) {
          byEvent.put(event, Counter.builder(ITEMS).tags(Tags.of("axis", tag(axis), "event", event))
              .description("ledger item events of this process").register(registry));
        }
        counters.put(axis, Map.copyOf(byEvent));
        latency.put(axis, Timer.builder("segment.ledger.confirm.latency").tag("axis", tag(axis))
            .description("from registration to confirm").register(registry));
        putBytes.put(axis, DistributionSummary.builder("segment.ledger.put.bytes").baseUnit("bytes")
            .tag("axis", tag(axis)).description("size of each stored object").register(registry));
        putDuration.put(axis, Timer.builder("segment.ledger.put.duration").tag("axis", tag(axis))
            .description("duration of each successful PUT").register(registry));
      }
      Gauge.builder("segment.ledger.circuit.open", circuit, c -> c.get() == CircuitState.OPEN ? 1 : 0)
          .description("1 while the circuit breaker around the sink is open").register(registry);
    }
  }

  /** Metrics in {@code registry}, with latency measured on the UTC system clock. */
  public static LedgerMetrics create(MeterRegistry registry) {
    return create(registry, Clock.systemUTC());
  }

  /** Metrics in {@code registry}, with latency measured on {@code clock} (use the ledger's clock). */
  public static LedgerMetrics create(MeterRegistry registry, Clock clock) {
    LedgerMetrics metrics = new LedgerMetrics(clock);
    metrics.bindTo(Objects.requireNonNull(registry, "registry"));
    return metrics;
  }

  /**
   * Metrics in no registry yet, with latency measured on {@code clock}: each registry given to
   * {@link #bindTo(MeterRegistry)} later gets every meter. The meters are made when the first
   * registry is bound; events before are not counted.
   */
  public static LedgerMetrics unbound(Clock clock) {
    return new LedgerMetrics(clock);
  }

  /**
   * Adds {@code meterRegistry}: it shows every meter of this object, those bound before and after.
   * Bind every registry before the ledger starts: Micrometer warns once when a second registry joins
   * after the first one's meters exist, and does not give it their earlier recordings.
   */
  @Override
  public synchronized void bindTo(MeterRegistry meterRegistry) {
    Objects.requireNonNull(meterRegistry, "meterRegistry");
    if (!registry.getRegistries().contains(meterRegistry)) {
      registry.add(meterRegistry);
    }
    if (meters == null) {
      meters = new Meters(registry, circuit);
      if (gauged != null) {
        registerGauges(gauged);
      }
    }
  }

  /** Registers the queue depth and in-flight gauges of {@code ledger} (once a registry is bound). */
  public synchronized LedgerMetrics bindGauges(Ledger ledger) {
    Objects.requireNonNull(ledger, "ledger");
    gauged = ledger;
    if (meters != null) {
      registerGauges(ledger);
    }
    return this;
  }

  private void registerGauges(Ledger ledger) {
    Gauge.builder("segment.ledger.queue.depth", ledger, l -> l.stats().queued())
        .description("items waiting in the in-memory queue").register(registry);
    Gauge.builder("segment.ledger.in.flight", ledger, l -> l.stats().inFlight())
        .description("items queued or being processed").register(registry);
    Gauge.builder("segment.ledger.clock.skew", ledger, l -> l.stats().clockSkew().toNanos() / 1e9)
        .description("how far this node's clock runs ahead of the store's (negative: behind), as last measured")
        .baseUnit("seconds").register(registry);
    FunctionCounter.builder("segment.ledger.local.deleted", ledger, l -> l.stats().localDisk().filesDeleted())
        .description("local files this ledger deleted: produced files once confirmed, originals by local retention").register(registry);
    FunctionCounter.builder("segment.ledger.local.deleted.bytes", ledger, l -> l.stats().localDisk().bytesDeleted())
        .description("bytes of the local files this ledger deleted (produced files and originals)").baseUnit("bytes").register(registry);
    for (LocalFileRefusal refusal : LocalFileRefusal.values()) {
      FunctionCounter.builder("segment.ledger.local.refused", ledger,
              l -> l.stats().localDisk().refused().get(refusal))
          .tag("reason", refusal.name().toLowerCase(Locale.ROOT))
          .description("deletions of local files refused, by reason").register(registry);
    }
    Gauge.builder("segment.ledger.local.free", ledger, l -> l.stats().localDisk().freeBytes())
        .description("usable bytes of the allowed root's file store (-1: unknown)").baseUnit("bytes")
        .register(registry);
    Gauge.builder("segment.ledger.local.low", ledger, l -> l.stats().localDisk().lowDisk() ? 1 : 0)
        .description("1 while the free space is below LedgerBuilder.lowDiskThreshold: degraded, LOW_DISK")
        .register(registry);
  }

  private void count(LedgerItem item, String event) {
    Meters m = meters;
    if (m != null) {
      m.counters.get(item.id().axis()).get(event).increment();
    }
  }

  @Override
  public void onAccepted(LedgerItem item) {
    count(item, "accepted");
  }

  @Override
  public void onSaturated(LedgerItem item) {
    count(item, "saturated");
  }

  @Override
  public void onStored(LedgerItem item, StoredObjectInfo object, Duration putTime) {
    count(item, "stored");
    Meters m = meters;
    if (m != null) {
      m.putBytes.get(item.id().axis()).record(object.sizeBytes());
      m.putDuration.get(item.id().axis()).record(putTime);
    }
  }

  @Override
  public void onConfirmed(LedgerItem item) {
    count(item, "confirmed");
    Meters m = meters;
    Duration sinceRegistration = Duration.between(item.registeredAt(), clock.instant());
    if (m != null && !sinceRegistration.isNegative()) {
      m.latency.get(item.id().axis()).record(sinceRegistration);
    }
  }

  @Override
  public void onConfirmLost(LedgerItem item) {
    count(item, "confirm_lost");
  }

  @Override
  public void onFailed(LedgerItem item, Reason reason, String detail, boolean terminal) {
    count(item, terminal ? "rejected" : "failed");
    if (meters == null) {
      return;
    }
    registry.counter("segment.ledger.failures", "axis", tag(item.id().axis()), "reason", reason.name().toLowerCase(Locale.ROOT)).increment();
  }

  @Override
  public void onAllowedRootReopened(Path root, String change) {
    Meters m = meters;
    if (m != null) {
      m.rootReopened.increment();
    }
  }

  @Override
  public void onCircuitStateChanged(CircuitState state) {
    circuit.set(state);
  }

  private static String tag(Axis axis) {
    return axis.name().toLowerCase(Locale.ROOT);
  }
}
