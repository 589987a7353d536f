package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Registration.Offer;
import dev.segmentledger.core.SweepReport;
import dev.segmentledger.core.spi.StateStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-collects unconfirmed rows from the store into the queue, one page per axis per round, with
 * a keyset cursor per axis ({@code rowId > cursor ORDER BY rowId LIMIT batch}); only rows of this
 * node's storage group and rows of no group, the files this node can read.
 *
 * <p>The cursor moves forward every round and wraps to the start when a page comes back short,
 * so rows that keep failing are revisited once per cycle and can never hold the first page and
 * starve newer work. Rows in backoff are not returned by the store at all. If the queue fills
 * mid-page, the cursor stops at the last accepted row so the rest of the page is read next round.
 * At most once a minute (every round while full cutoff batches come back) a round first does the
 * upkeep: with a cutoff, it excludes (terminal, with a reason) up to one batch of unconfirmed rows
 * registered before it, and it settles playback rows waiting for an init that is no longer pending.
 * Not thread-safe: one thread runs rounds.
 */
final class Sweeper {
  private static final Logger log = LoggerFactory.getLogger(Sweeper.class);
  private final StateStore store;
  private final Clock clock;
  private final int batchSize;
  private final Duration cutoff;
  /** This node's storage group: the sweep pages hold only rows it can read. */
  private final String storageGroup;
  private final BiFunction<LedgerItem, Boolean, Offer> offer;
  /** How often the cutoff is applied when there is no backlog of rows to exclude. */
  static final Duration EXCLUSION_INTERVAL = Duration.ofMinutes(1);

  private final Map<Axis, Long> cursors = new EnumMap<>(Axis.class);
  private long rounds;
  private Instant lastExclusion;
  private boolean exclusionBacklog;

  Sweeper(StateStore store, Clock clock, int batchSize, Duration cutoff, String storageGroup,
      BiFunction<LedgerItem, Boolean, Offer> offer) {
    this.store = store;
    this.clock = clock;
    this.batchSize = batchSize;
    this.cutoff = cutoff;
    this.storageGroup = storageGroup;
    this.offer = offer;
    for (Axis axis : Axis.values()) {
      cursors.put(axis, 0L);
    }
  }

  SweepReport round() {
    rounds++;
    int read = 0;
    int accepted = 0;
    int duplicates = 0;
    int saturated = 0;
    int excluded = 0;
    boolean fullPage = false;
    Instant now = clock.instant();
    if (exclusionBacklog || lastExclusion == null || !now.isBefore(lastExclusion.plus(EXCLUSION_INTERVAL))) {
      lastExclusion = now;
      excluded = maintain(now);
    }
    for (Axis axis : Axis.values()) {
      long cursor = cursors.get(axis);
      List<LedgerItem> page = store.findDue(axis, storageGroup, cursor, now, batchSize);
      read += page.size();
      fullPage |= page.size() == batchSize;
      long next = page.size() < batchSize ? 0L : page.get(page.size() - 1).rowId();
      for (LedgerItem item : page) {
        Offer result = offer.apply(item, true);
        if (result == Offer.SATURATED) {
          saturated++;
          next = Math.max(cursor, item.rowId() - 1);
          break;
        }
        if (result == Offer.ACCEPTED) {
          accepted++;
        } else {
          duplicates++;
        }
      }
      cursors.put(axis, next);
    }
    return new SweepReport(rounds, read, accepted, duplicates, saturated, excluded, fullPage);
  }

  /**
   * The periodic upkeep, isolated so that it can never stop the sweep pages: the cutoff (if any),
   * then the settling of playback rows still waiting for an init that is no longer pending.
   */
  private int maintain(Instant now) {
    int excluded = 0;
    exclusionBacklog = false;
    try {
      if (cutoff != null) {
        excluded = store.excludeRegisteredBefore(now.minus(cutoff), now, batchSize);
        exclusionBacklog = excluded == batchSize;
      }
      store.settleWaiting(now);
    } catch (RuntimeException e) {
      log.warn("the periodic cutoff and waiting-row upkeep failed; retried in {}", EXCLUSION_INTERVAL, e);
    }
    return excluded;
  }

  /** The cursor of {@code axis}: the last row id read, 0 at the start of a cycle. */
  long cursor(Axis axis) {
    return cursors.get(axis);
  }
}
