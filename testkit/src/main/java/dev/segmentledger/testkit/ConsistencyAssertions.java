package dev.segmentledger.testkit;

import dev.segmentledger.core.ObjectKeys;
import dev.segmentledger.core.Reconciler;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.spi.ObjectSink;
import dev.segmentledger.core.spi.StateStore;
import java.time.Clock;
import org.junit.jupiter.api.Assertions;

/**
 * The end-of-scenario check of the design: every CONFIRMED row of a broadcast has an object at its
 * key with the registered size (and checksum, when both sides have one), and every object under the
 * broadcast's prefix has a CONFIRMED row. Each axis is compared on its own.
 *
 * <p>A test-facing view of the core {@link Reconciler} (report-only, never repairing), so that
 * tests and applications share one definition of "the ledger and the bucket agree": the result is
 * the reconciler's own {@link ReconciliationReport}. Reads the store
 * once, lists the sink once ({@link ObjectSink#list} of {@link ObjectKeys#broadcastPrefix}) and
 * HEADs confirmed objects whose listing lacks a checksum. Stateless and thread-safe, but the
 * comparison is only meaningful once the ledger is quiet (no upload in flight).
 */
public final class ConsistencyAssertions {
  private ConsistencyAssertions() {}

  /** Compares the ledger rows of {@code broadcastId} with the objects under its prefix. */
  public static ReconciliationReport check(StateStore store, ObjectSink sink, String broadcastId) {
    return Reconciler.create(store, sink, Clock.systemUTC()).reconcile(broadcastId);
  }

  /**
   * {@linkplain #check Checks} the broadcast and fails the test with the full listing unless there
   * is no difference.
   *
   * @return the report, for further assertions on the counts
   */
  public static ReconciliationReport assertConsistent(StateStore store, ObjectSink sink, String broadcastId) {
    ReconciliationReport report = check(store, sink, broadcastId);
    if (!report.isConsistent()) {
      Assertions.fail(report.describe());
    }
    return report;
  }
}
