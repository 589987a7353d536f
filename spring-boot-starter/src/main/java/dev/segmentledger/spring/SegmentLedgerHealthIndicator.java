package dev.segmentledger.spring;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.CircuitState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerStats;
import dev.segmentledger.core.query.Backlog;
import dev.segmentledger.micrometer.LedgerBacklogMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code segmentLedger} health: the circuit breaker around the bucket and the backlog in the
 * rows. Reads no database: the backlog is the one {@link LedgerBacklogMetrics} last read.
 *
 * <p>{@link Status#OUT_OF_SERVICE} while the breaker is open, or while the oldest unconfirmed row
 * is older than {@code segment-ledger.health.max-oldest-age} and the backlog has not shrunk since
 * the read before; {@link Status#UP} otherwise. Both conditions say "don't send more work here",
 * never "this process is broken": the starter puts the indicator in the readiness group only
 * ({@link SegmentLedgerHealthGroups}), never in the overall health or liveness, so a bucket outage
 * takes the instance out of rotation without failing the overall health or getting pods restarted.
 *
 * <p>{@link #DEGRADED} (a status of its own, answered with HTTP 200: the instance stays in rotation)
 * while the free space under the allowed root is below {@code LedgerBuilder.lowDiskThreshold}, with
 * the named cause {@code LOW_DISK} in the detail {@code reason}, unless a condition above holds. The
 * detail {@code localDisk} shows the free bytes, the threshold and the files deleted and refused.
 */
public final class SegmentLedgerHealthIndicator implements HealthIndicator {
  /**
   * The ledger works but needs the operator: the recorder's disk is low (its detail {@code reason}
   * starts with the cause, {@code LOW_DISK}). Answered with HTTP 200, so readiness is kept.
   */
  public static final Status DEGRADED = new Status("DEGRADED", "the ledger works but needs attention");

  private final Ledger ledger;
  private final LedgerBacklogMetrics backlog;
  private final Duration maxOldestAge;
  private final Clock clock;

  /** Health of {@code ledger} and the backlog {@code backlog} reads. */
  public SegmentLedgerHealthIndicator(Ledger ledger, LedgerBacklogMetrics backlog, Duration maxOldestAge,
      Clock clock) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.backlog = Objects.requireNonNull(backlog, "backlog");
    this.maxOldestAge = Objects.requireNonNull(maxOldestAge, "maxOldestAge");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public Health health() {
    CircuitState circuit = ledger.stats().circuit();
    Health.Builder health = Health.up();
    health.withDetail("circuit", lower(circuit));
    if (circuit == CircuitState.OPEN) {
      health.status(Status.OUT_OF_SERVICE).withDetail("reason", "the circuit breaker around the bucket is open");
    }
    LedgerStats.LocalDisk disk = ledger.stats().localDisk();
    health.withDetail("localDisk", localDisk(disk));
    if (circuit != CircuitState.OPEN && disk.lowDisk()) {
      health.status(DEGRADED).withDetail("reason", disk.lowDiskCause().orElseThrow());
    }
    Optional<LedgerBacklogMetrics.Snapshot> latest = backlog.latest();
    if (latest.isEmpty()) {
      return health.withDetail("backlog", "not read yet").build();
    }
    LedgerBacklogMetrics.Snapshot snapshot = latest.get();
    Backlog current = snapshot.current();
    Instant now = clock.instant();
    Duration oldest = current.axes().values().stream().map(a -> a.oldestAge(now)).max(Duration::compareTo)
        .orElse(Duration.ZERO);
    boolean notShrinking = snapshot.previous() == null || current.unconfirmed() >= snapshot.previous().unconfirmed();
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("unconfirmed", current.unconfirmed());
    details.put("oldestAgeSeconds", oldest.toSeconds());
    details.put("readAt", snapshot.refreshedAt().toString());
    Map<String, Object> axes = new LinkedHashMap<>();
    for (Axis axis : Axis.values()) {
      Backlog.AxisBacklog a = current.axis(axis);
      Map<String, Object> one = new LinkedHashMap<>();
      one.put("unconfirmed", a.unconfirmed());
      one.put("oldestAgeSeconds", a.oldestAge(now).toSeconds());
      one.put("inBackoff", a.inBackoff());
      one.put("waitingForInit", a.waitingForInit());
      axes.put(lower(axis), one);
    }
    details.put("axes", axes);
    health.withDetail("backlog", details);
    if (oldest.compareTo(maxOldestAge) > 0 && notShrinking && circuit != CircuitState.OPEN) { // over DEGRADED
      health.status(Status.OUT_OF_SERVICE).withDetail("reason", "the backlog is not shrinking and its oldest row is "
          + oldest.toSeconds() + " s old (segment-ledger.health.max-oldest-age " + maxOldestAge + ")");
    }
    return health.build();
  }

  private static Map<String, Object> localDisk(LedgerStats.LocalDisk disk) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("freeBytes", disk.freeBytes());
    details.put("lowDiskThreshold", disk.lowDiskThreshold());
    details.put("filesDeleted", disk.filesDeleted());
    details.put("bytesDeleted", disk.bytesDeleted());
    details.put("deletionsRefused", disk.refusedTotal());
    return details;
  }

  private static String lower(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }
}
