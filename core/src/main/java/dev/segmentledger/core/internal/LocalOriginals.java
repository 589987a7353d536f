package dev.segmentledger.core.internal;

import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LocalFileRefusal;
import dev.segmentledger.core.internal.LocalFileRemover.Removal;
import dev.segmentledger.core.spi.StateStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opt-in local retention of originals ({@code LedgerBuilder.localRetention}): deletes the recorded
 * file of an ORIGINAL row once {@code retention} has passed since the row and every PLAYBACK or INIT
 * row made from its file were confirmed. Not thread-safe: the sweep thread runs it.
 *
 * <p>Never a file whose row is not confirmed, checked again right before the unlink (a row
 * re-opened since the page read it keeps its file, as does one whose derived rows were re-opened);
 * never a file another row that is not confirmed was registered with
 * ({@link LocalFileRefusal#IN_USE}, retried); never a file that is not the registered one: the
 * final name is read without following a link ({@code fstatat} through its directory) and must be
 * a regular file of the recorded size and file identity (device, inode, modification time), and a
 * row without a recorded identity is never deleted ({@link LocalFileRemover}); never outside the
 * allowed root, and never through a link. Only rows of this node's storage group, exactly (rows of
 * no group on a node of no group): the group that owns the disk. Durable and idempotent: a deletion,
 * a file gone, or a final refusal marks the row done ({@link StateStore#markLocalFileDone}), so it is
 * never looked at again; a kill before the mark deletes nothing twice (the file is gone, then marked).
 *
 * <p>Each round reads one page of candidates past a (confirmed time, row id) cursor from an index
 * holding only confirmed originals not yet handled ({@link StateStore#findOriginalsToRemove}); a
 * candidate whose derived rows are not all confirmed long enough is passed over and found again by
 * the next cycle (the cursor wraps after a short page).
 */
final class LocalOriginals {
  private static final Logger log = LoggerFactory.getLogger(LocalOriginals.class);

  private final StateStore store;
  private final Clock clock;
  private final Duration retention;
  private final LocalFileRemover remover;
  private final String storageGroup;
  private final LocalOutputs settle;
  private Instant cursorAt = Instant.MIN;
  private long cursorId;

  /** @param settle counts, logs and marks each removal, as for the produced files */
  LocalOriginals(StateStore store, Clock clock, Duration retention, LocalFileRemover remover, String storageGroup,
      LocalOutputs settle) {
    this.store = store;
    this.clock = clock;
    this.retention = retention;
    this.remover = remover;
    this.storageGroup = storageGroup;
    this.settle = settle;
  }

  /**
   * Checks that the store implements local retention: a read that finds nothing.
   *
   * @throws UnsupportedOperationException if it does not
   */
  void requireSupported() {
    store.findOriginalsToRemove(storageGroup, Instant.EPOCH, Instant.MIN, 0, 1);
    store.hasUnconfirmedRowWithSourcePath("", 0);
  }

  /** One page of at most {@code limit} candidates; returns whether it was full (more may follow at once). */
  boolean sweepPage(int limit) {
    Instant cutoff = clock.instant().minus(retention);
    List<LedgerItem> page = store.findOriginalsToRemove(storageGroup, cutoff, cursorAt, cursorId, limit);
    for (LedgerItem original : page) {
      try {
        if (derivedSettledBy(original, cutoff)) {
          settle.settle(original, remove(original, cutoff));
        }
      } catch (RuntimeException e) {
        log.warn("local retention of {} failed; a later round retries", original.id(), e);
      }
    }
    boolean full = page.size() >= limit;
    if (full) {
      LedgerItem last = page.get(page.size() - 1);
      cursorAt = last.confirmedAt();
      cursorId = last.rowId();
    } else {
      cursorAt = Instant.MIN;
      cursorId = 0;
    }
    return full;
  }

  private Removal remove(LedgerItem original, Instant cutoff) {
    if (original.fileIdentity() == null) {
      return Removal.refused(LocalFileRefusal.NOT_THE_RECORDED_FILE, "no file identity was recorded for it");
    }
    return remover.remove(Path.of(original.sourcePath()), original.sizeBytes(), original.fileIdentity(),
        () -> stillToRemove(original, cutoff));
  }

  /**
   * Asked right before the unlink, for the page read the row a while ago: the row must still be
   * confirmed as then (a re-open, by the reconciler for an object missing from the bucket, makes the
   * file the only copy, to upload again), its derived rows still settled, and no other row that is
   * not confirmed may have been registered with the same file.
   */
  private Removal stillToRemove(LedgerItem original, Instant cutoff) {
    Removal changed = settle.stillConfirmed(original);
    if (changed != null) {
      return changed;
    }
    if (!derivedSettledBy(original, cutoff)) {
      return Removal.later("a row made from it is no longer confirmed");
    }
    if (store.hasUnconfirmedRowWithSourcePath(original.sourcePath(), original.rowId())) {
      return Removal.refused(LocalFileRefusal.IN_USE, "another row registered with this file is not confirmed");
    }
    return null;
  }

  /**
   * Whether every PLAYBACK and INIT row made from {@code original}'s file is confirmed at or before
   * {@code cutoff}: the original is then read by nothing the ledger still has to do.
   */
  private boolean derivedSettledBy(LedgerItem original, Instant cutoff) {
    ItemId id = original.id();
    return settledBy(store.find(ItemId.playback(id.broadcastId(), id.rendition(), id.sequence())), original, cutoff)
        && settledBy(store.find(ItemId.init(id.broadcastId(), id.rendition())), original, cutoff);
  }

  private static boolean settledBy(Optional<LedgerItem> derived, LedgerItem original, Instant cutoff) {
    if (derived.isEmpty() || !original.sourcePath().equals(derived.get().originPath())) {
      return true; // none made from this file
    }
    LedgerItem row = derived.get();
    return row.state() == ItemState.CONFIRMED && row.confirmedAt() != null && !row.confirmedAt().isAfter(cutoff);
  }
}
