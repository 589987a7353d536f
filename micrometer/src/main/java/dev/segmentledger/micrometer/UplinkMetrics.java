package dev.segmentledger.micrometer;

import dev.segmentledger.core.Lane;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.UplinkStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Locale;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters of how a node shares its uplink ({@link Ledger#uplinkStats()}), read when the
 * registry reads them:
 *
 * <ul>
 *   <li>per lane, tag {@code lane} = live, original, backfill: gauges {@code segment.ledger.lane.queued}
 *       (work waiting in this node's queue) and {@code segment.ledger.lane.oldest.wait} (seconds the
 *       longest waiting work has waited), counter {@code segment.ledger.lane.taken} (work taken by
 *       the workers; its rate is the lane's rate);
 *   <li>gauges {@code segment.ledger.uplink.cap.bytes} (bytes a second, 0: none) and
 *       {@code segment.ledger.uplink.cap.requests} (request bodies a second, 0: none): the cap in force;
 *   <li>counters {@code segment.ledger.uplink.body.bytes} (request body bytes sent) and
 *       {@code segment.ledger.uplink.token.wait} (seconds streams waited for the cap's tokens, summed).
 * </ul>
 *
 * <p>Thread-safe; bind it once the ledger is built: {@code UplinkMetrics.of(ledger).bindTo(registry)}.
 */
public final class UplinkMetrics implements MeterBinder {
  private final Ledger ledger;

  private UplinkMetrics(Ledger ledger) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
  }

  /** The meters of {@code ledger}'s uplink. */
  public static UplinkMetrics of(Ledger ledger) {
    return new UplinkMetrics(ledger);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    for (Lane lane : Lane.values()) {
      String tag = lane.name().toLowerCase(Locale.ROOT);
      Gauge.builder("segment.ledger.lane.queued", ledger, l -> stats(l).lanes().get(lane).queued())
          .tag("lane", tag).description("work waiting in this node's queue, per lane").register(registry);
      Gauge.builder("segment.ledger.lane.oldest.wait", ledger,
              l -> stats(l).lanes().get(lane).oldestWait().toNanos() / 1e9)
          .tag("lane", tag).baseUnit("seconds").description("how long the lane's longest waiting work has waited")
          .register(registry);
      counter(registry, "segment.ledger.lane.taken", l -> stats(l).lanes().get(lane).taken(), null)
          .tag("lane", tag).description("work taken from the lane by the workers").register(registry);
    }
    Gauge.builder("segment.ledger.uplink.cap.bytes", ledger, l -> l.uplink().bytesPerSecond())
        .baseUnit("bytes").description("the cap on request body bytes a second (0: none)").register(registry);
    Gauge.builder("segment.ledger.uplink.cap.requests", ledger, l -> l.uplink().requestsPerSecond())
        .description("the cap on request bodies started a second (0: none)").register(registry);
    counter(registry, "segment.ledger.uplink.body.bytes", l -> stats(l).bodyBytes(), "bytes")
        .description("request body bytes sent").register(registry);
    counter(registry, "segment.ledger.uplink.token.wait", l -> stats(l).tokenWait().toNanos() / 1e9, "seconds")
        .description("time streams waited for the cap's tokens, summed over streams").register(registry);
  }

  private FunctionCounter.Builder<Ledger> counter(MeterRegistry registry, String name,
      ToDoubleFunction<Ledger> value, String unit) {
    FunctionCounter.Builder<Ledger> builder = FunctionCounter.builder(name, ledger, value);
    return unit == null ? builder : builder.baseUnit(unit);
  }

  private static UplinkStats stats(Ledger ledger) {
    return ledger.uplinkStats();
  }
}
