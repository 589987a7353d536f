package dev.segmentledger.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Applies a {@link FailoverScenario.Fault} to the primary of an {@link AutoFailoverCluster}: a kill
 * and a freeze at once, a switchover on a thread of its own (the command returns when it is done);
 * a frozen node is thawed by {@link #thawAfter}. Not thread-safe: the run's thread drives it.
 */
final class FailoverFault {
  private final AutoFailoverCluster cluster;
  private final AutoFailoverCluster.Node primary;
  private final FailoverScenario.Fault fault;
  private final HaTimeline timeline;
  private Thread switchover;
  private volatile Exception failed;
  private List<Long> frozen;

  FailoverFault(AutoFailoverCluster cluster, AutoFailoverCluster.Node primary, FailoverScenario.Fault fault,
      HaTimeline timeline) {
    this.cluster = cluster;
    this.primary = primary;
    this.fault = fault;
    this.timeline = timeline;
  }

  /** Applies the fault; returns the instant it took effect ({@code System.nanoTime()}). */
  long start() throws Exception {
    long at;
    switch (fault) {
      case KILL_POSTMASTER -> {
        cluster.killPostmaster(primary);
        at = System.nanoTime();
        timeline.mark(at, "SIGKILL sent to " + primary.name() + "'s postmaster");
      }
      case FREEZE -> {
        frozen = cluster.freeze(primary);
        at = System.nanoTime();
        timeline.mark(at, "SIGSTOP sent to " + frozen.size() + " processes of " + primary.name());
      }
      case SWITCHOVER -> {
        at = System.nanoTime();
        timeline.mark(at, "pg_autoctl perform switchover started");
        switchover = new Thread(() -> {
          try {
            cluster.switchover();
            timeline.mark(System.nanoTime(), "pg_autoctl perform switchover returned");
          } catch (Exception e) {
            failed = e;
          }
        }, "failover-switchover");
        switchover.start();
      }
      default -> throw new IllegalStateException(String.valueOf(fault));
    }
    return at;
  }

  /** For a frozen node: once another node is writable, waits {@code delay} and thaws it. */
  void thawAfter(Duration delay) throws Exception {
    if (frozen == null) {
      return;
    }
    if (timeline.newPrimaryAt(primary.name()) >= 0) {
      TimeUnit.NANOSECONDS.sleep(delay.toNanos());
    }
    cluster.thaw(frozen);
    timeline.mark(System.nanoTime(), "SIGCONT sent to " + primary.name());
    frozen = null;
  }

  /** Waits for the switchover command; throws what it threw. */
  void awaitDone() throws Exception {
    if (switchover != null) {
      switchover.join(TimeUnit.MINUTES.toMillis(5));
    }
    if (failed != null) {
      throw failed;
    }
  }
}
