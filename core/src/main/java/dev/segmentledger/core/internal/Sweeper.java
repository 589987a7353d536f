package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Registration.Offer;
import dev.segmentledger.core.SweepReport;
import dev.segmentledger.core.spi.DuePage;
import dev.segmentledger.core.spi.DuePage.UnreadableRow;
import dev.segmentledger.core.spi.StateStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-collects unconfirmed rows from the store into the queue, one page per axis per round, with
 * a keyset cursor per axis ({@code rowId > cursor ORDER BY rowId LIMIT batch}); only rows of this
 * node's storage group and rows of no group, the files this node can read.
 *
 * <p>The cursor moves forward every round and wraps to the start when a page comes back short,
 * so rows that keep failing are revisited once per cycle and can never hold the first page and
 * starve newer work. Rows in backoff are not returned by the store at all. If the queue refuses a
 * row mid-page: with lanes the rest of the page is still offered (the queue keeps room for higher
 * lanes, so live work behind a backlog of a lower lane gets in) and the cursor moves on as for any
 * page, so a refused backlog longer than a page never keeps the sweep from the rows behind it; with
 * one queue the page stops there and the cursor stops before the refused row, read again next round.
 * A row the store cannot read takes its slot of the page and is skipped and reported once; an axis
 * whose page fails is skipped for this round; neither stops the round for other rows or axes.
 * At most once a minute (every round while full cutoff batches come back) a round first does the
 * upkeep: with a cutoff, it excludes (terminal, with a reason) up to one batch of unconfirmed rows
 * registered before it, and it settles playback rows waiting for an init that is no longer pending;
 * then it deletes one page of local files: produced files of confirmed rows a kill left on the disk
 * ({@link LocalOutputs}), originals past their local retention ({@link LocalOriginals}).
 * Not thread-safe: one thread runs rounds.
 */
final class Sweeper {
  private final BooleanSupplier lanes;
  private static final Logger log = LoggerFactory.getLogger(Sweeper.class);
  private final StateStore store;
  private final Clock clock;
  private final int batchSize;
  private final Duration cutoff;
  /** This node's storage group: the sweep pages hold only rows it can read. */
  private final String storageGroup;
  private final BiFunction<LedgerItem, Boolean, Offer> offer;
  private final BiConsumer<Long, String> unreadableRows;
  /**
   * One page of local files to delete (the produced files of confirmed rows a kill left, originals
   * past their local retention), given the page size; answers whether a page was full. {@code null}: none.
   */
  private final IntPredicate localFiles;
  /** How often the cutoff is applied when there is no backlog of rows to exclude. */
  static final Duration EXCLUSION_INTERVAL = Duration.ofMinutes(1);

  /** How many unreadable row ids a sweeper remembers as reported. */
  static final int MAX_REMEMBERED_UNREADABLE = 10_000;

  private final Map<Axis, Long> cursors = new EnumMap<>(Axis.class);
  private final Set<Long> reportedUnreadable = new HashSet<>();
  private long rounds;
  private Instant lastExclusion;
  private boolean exclusionBacklog;

  Sweeper(StateStore store, Clock clock, int batchSize, Duration cutoff, String storageGroup,
      BiFunction<LedgerItem, Boolean, Offer> offer, BiConsumer<Long, String> unreadableRows) {
    this(store, clock, batchSize, cutoff, storageGroup, offer, unreadableRows, null);
  }

  /**
   * @param unreadableRows told of each row the store could not read, once (by row id and problem)
   * @param localFiles the upkeep's page of local files to delete ({@link LocalOutputs#sweepPage},
   *     {@link LocalOriginals#sweepPage}); {@code null}: none
   */
  Sweeper(StateStore store, Clock clock, int batchSize, Duration cutoff, String storageGroup,
      BiFunction<LedgerItem, Boolean, Offer> offer, BiConsumer<Long, String> unreadableRows, IntPredicate localFiles) {
    this(store, clock, batchSize, cutoff, storageGroup, offer, unreadableRows, localFiles, () -> true);
  }

  /**
   * @param lanes whether the queue has lanes now: only then is the rest of a page offered after a
   *     refusal (one queue that refused a row has no room for the next either)
   */
  Sweeper(StateStore store, Clock clock, int batchSize, Duration cutoff, String storageGroup,
      BiFunction<LedgerItem, Boolean, Offer> offer, BiConsumer<Long, String> unreadableRows, IntPredicate localFiles,
      BooleanSupplier lanes) {
    this.lanes = lanes;
    this.store = store;
    this.clock = clock;
    this.batchSize = batchSize;
    this.cutoff = cutoff;
    this.storageGroup = storageGroup;
    this.offer = offer;
    this.unreadableRows = unreadableRows;
    this.localFiles = localFiles;
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
    int unreadable = 0;
    int failedAxes = 0;
    boolean fullPage = false;
    Instant now = clock.instant();
    if (exclusionBacklog || lastExclusion == null || !now.isBefore(lastExclusion.plus(EXCLUSION_INTERVAL))) {
      lastExclusion = now;
      excluded = maintain(now);
    }
    for (Axis axis : Axis.values()) {
      long cursor = cursors.get(axis);
      DuePage page;
      try {
        page = store.findDue(axis, storageGroup, cursor, now, batchSize);
      } catch (RuntimeException e) {
        // One axis's page failing (the store, or a row it could not even list) stops neither the
        // other axes nor the next round; the cursor stays, so the page is read again.
        failedAxes++;
        log.warn("the sweep page of {} after row {} could not be read; the other axes are swept", axis, cursor, e);
        continue;
      }
      read += page.size();
      unreadable += page.unreadable().size();
      page.unreadable().forEach(this::reportOnce);
      fullPage |= page.size() >= batchSize;
      long next = page.size() < batchSize ? 0L : page.lastRowId();
      for (LedgerItem item : page.rows()) {
        Offer result = offer.apply(item, true);
        if (result == Offer.SATURATED) {
          saturated++; // every refused row, as its onSaturated event and the ledger's stats count it
          if (!lanes.getAsBoolean()) {
            // One queue: the rest of the page waits for the next round, which starts at this row.
            next = Math.max(cursor, item.rowId() - 1);
            break;
          }
          // Lanes: a higher lane may still have room, so the rest of the page is offered, and the
          // cursor moves on as for any page: a backlog refused by its lane's share of the queue never
          // keeps the sweep from the rows behind it (it is read again when the cursor wraps).
          continue;
        }
        if (result == Offer.ACCEPTED) {
          accepted++;
        } else {
          duplicates++;
        }
      }
      cursors.put(axis, next);
    }
    return new SweepReport(rounds, read, accepted, duplicates, saturated, excluded, fullPage, unreadable, failedAxes);
  }

  /** Reports an unreadable row the first time this ledger instance meets it (a bounded memory). */
  private void reportOnce(UnreadableRow row) {
    if (reportedUnreadable.add(row.rowId())) {
      if (reportedUnreadable.size() > MAX_REMEMBERED_UNREADABLE) {
        reportedUnreadable.clear(); // reported again, once, after a while: no unbounded memory
        reportedUnreadable.add(row.rowId());
      }
      unreadableRows.accept(row.rowId(), row.problem());
    }
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
    try {
      // A full page of local files to delete: the next round's upkeep reads the next page.
      exclusionBacklog |= localFiles != null && localFiles.test(batchSize);
    } catch (RuntimeException e) {
      log.warn("the sweep of local files to delete failed; retried in {}", EXCLUSION_INTERVAL, e);
    }
    return excluded;
  }

  /** The cursor of {@code axis}: the last row id read, 0 at the start of a cycle. */
  long cursor(Axis axis) {
    return cursors.get(axis);
  }
}
