package dev.segmentledger.core.internal;

import dev.segmentledger.core.Identifiers;
import dev.segmentledger.core.spi.StateStore;
import java.time.Clock;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The explicit operations on storage groups (hosts with local disks): handing a group's open rows
 * over to another group, and declaring a group lost. Each loops over short store batches until
 * none is left; a sweep soon is signalled when any row was handed over. Thread-safe.
 */
final class StorageGroups {
  private static final Logger log = LoggerFactory.getLogger(StorageGroups.class);
  /** Rows per store call: one short transaction each. */
  static final int BATCH = 1_000;

  private final StateStore store;
  private final Clock clock;
  private final Signals signals;

  /** @param clock the store's time ({@link StoreClock}): a lease still valid by it is left alone */
  StorageGroups(StateStore store, Clock clock, Signals signals) {
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.signals = Objects.requireNonNull(signals, "signals");
  }

  /** See {@code Ledger.handOver}. */
  int handOver(String fromGroup, String toGroup) {
    validOrNull("fromGroup", fromGroup);
    validOrNull("toGroup", toGroup);
    if (Objects.equals(fromGroup, toGroup)) {
      throw new IllegalArgumentException("fromGroup and toGroup are the same: " + fromGroup);
    }
    int total = 0;
    int batch;
    do {
      batch = store.handOver(fromGroup, toGroup, BATCH);
      total += batch;
    } while (batch > 0);
    if (total > 0) {
      log.warn("handed {} open rows of storage group {} over to storage group {}", total, name(fromGroup),
          name(toGroup));
      signals.sweepSoon();
    }
    return total;
  }

  /** See {@code Ledger.markStorageLost}. */
  int markLost(String group) {
    Identifiers.requireValid("group", group);
    String detail = "storage group " + group + " was declared lost (Ledger.markStorageLost)";
    int total = 0;
    int batch;
    do {
      batch = store.markStorageLost(group, detail, clock.instant(), BATCH);
      total += batch;
    } while (batch > 0);
    if (total > 0) {
      log.warn("storage group {} declared lost: {} open rows rejected as STORAGE_LOST", group, total);
    }
    return total;
  }

  private static void validOrNull(String field, String group) {
    if (group != null) {
      Identifiers.requireValid(field, group);
    }
  }

  private static String name(String group) {
    return group == null ? "(none)" : group;
  }
}
