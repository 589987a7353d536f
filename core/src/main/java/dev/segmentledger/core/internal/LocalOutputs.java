package dev.segmentledger.core.internal;

import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerStats;
import dev.segmentledger.core.LocalFileRefusal;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.internal.LocalFileRemover.LastCheck;
import dev.segmentledger.core.internal.LocalFileRemover.Removal;
import dev.segmentledger.core.spi.StateStore;
import java.nio.file.Path;
import java.time.Clock;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files the ledger produced itself (the PLAYBACK and INIT files the repackager wrote: rows with
 * an origin path), deleted once their rows are confirmed. Nothing reads such a file after its own
 * upload: the repackager makes every segment and init from the recorded original, never from an
 * init it wrote, and a row re-opened later is produced again from its original when its file is
 * gone. Thread-safe.
 *
 * <p><b>Right after the confirm.</b> {@link #confirmed} deletes the file of a row this node just
 * confirmed ({@link LocalFileRemover}: below the output directory, through the held root, no link
 * followed) and marks the row done with it ({@link StateStore#markLocalFileDone}).
 *
 * <p><b>After a kill.</b> A process killed between a confirm and that mark leaves a confirmed row
 * that is not marked. The sweep's upkeep reads such rows ({@link StateStore#findLocalFilesToRemove},
 * an index holding only them) one page at a time past a cursor ({@link #sweepPage}), deletes what is
 * still there and marks them: bounded work per round, whatever the number of confirmed rows. Right
 * before each such unlink the row is read again: one re-opened since the page read it keeps its file
 * (its upload reads it). Only
 * rows of this node's storage group and of no group are read: the files on this node's disk.
 *
 * <p><b>Refusals.</b> A file that is not the recorded one, a link, or outside the output directory
 * is left, logged and counted by reason; a final refusal marks the row (never looked at again), any
 * other is retried by a later sweep.
 */
final class LocalOutputs {
  private static final Logger log = LoggerFactory.getLogger(LocalOutputs.class);

  private final StateStore store;
  private final Clock clock;
  private final LocalFileRemover remover;
  private final String storageGroup;
  private final LongAdder filesDeleted = new LongAdder();
  private final LongAdder bytesDeleted = new LongAdder();
  private final Map<LocalFileRefusal, LongAdder> refused = new EnumMap<>(LocalFileRefusal.class);
  /** The sweep's cursor: the last row id read, 0 at the start of a cycle. Only the sweep thread moves it. */
  private volatile long cursor;

  /** @param remover {@code null} if this ledger produces no files (no repackager): nothing is deleted */
  LocalOutputs(StateStore store, Clock clock, LocalFileRemover remover, String storageGroup) {
    this.store = store;
    this.clock = clock;
    this.remover = remover;
    this.storageGroup = storageGroup;
    for (LocalFileRefusal refusal : LocalFileRefusal.values()) {
      refused.put(refusal, new LongAdder());
    }
  }

  /** Deletes the produced file of {@code item}, which this node just confirmed; never throws. */
  void confirmed(LedgerItem item) {
    if (remover != null && item.originPath() != null) {
      handleSafely(item, LastCheck.NONE);
    }
  }

  /**
   * Reads one page of at most {@code limit} confirmed rows whose produced file is not handled yet,
   * past the cursor, and handles each; the cursor wraps to the start after a short page.
   *
   * @return whether the page was full (more may follow at once)
   */
  boolean sweepPage(int limit) {
    if (remover == null) {
      return false;
    }
    List<LedgerItem> page = store.findLocalFilesToRemove(storageGroup, cursor, limit);
    for (LedgerItem item : page) {
      handleSafely(item, () -> stillConfirmed(item));
    }
    boolean full = page.size() >= limit;
    cursor = full ? page.get(page.size() - 1).rowId() : 0L;
    return full;
  }

  private void handleSafely(LedgerItem item, LastCheck lastCheck) {
    try {
      settle(item, remover.remove(Path.of(item.sourcePath()), item.sizeBytes(), item.fileIdentity(), lastCheck));
    } catch (RuntimeException e) {
      // The store failed the mark: the file is handled again by a later sweep (idempotent).
      log.warn("the local file of {} could not be marked handled; a later sweep retries", item.id(), e);
    }
  }

  /**
   * Asked right before the sweep's unlink: the row must still be confirmed as the page read it. A row
   * re-opened since (its object missing from the bucket) uploads the file still there: it stays.
   * Also asked for originals ({@link LocalOriginals}).
   */
  Removal stillConfirmed(LedgerItem item) {
    Optional<LedgerItem> now = store.findByRowId(item.rowId());
    if (now.isEmpty() || now.get().state() != ItemState.CONFIRMED
        || !Objects.equals(now.get().confirmedAt(), item.confirmedAt())) {
      return Removal.later("the row is no longer confirmed as read");
    }
    return null;
  }

  /**
   * Counts and logs what a removal of {@code item}'s local file did, and marks the row done with its
   * file unless the refusal is one to retry. Also used for originals ({@link LocalOriginals}).
   */
  void settle(LedgerItem item, Removal removal) {
    if (removal.deleted()) {
      filesDeleted.increment();
      bytesDeleted.add(removal.bytes());
      log.debug("deleted {} ({} bytes): {} is confirmed", PrintableText.escape(item.sourcePath()), removal.bytes(),
          item.id());
    } else if (removal.later()) {
      log.debug("left {} of {} for a later sweep: {}", PrintableText.escape(item.sourcePath()), item.id(),
          PrintableText.escape(removal.detail()));
    } else if (removal.refusal() != null) {
      refused.get(removal.refusal()).increment();
      log.warn("did not delete {} of confirmed {}: {} ({}){}", PrintableText.escape(item.sourcePath()), item.id(),
          removal.refusal(), PrintableText.escape(removal.detail()),
          removal.refusal().isFinal() ? "; it is left for good" : "; a later sweep tries again");
    }
    if (removal.done()) {
      store.markLocalFileDone(item.rowId(), clock.instant());
    }
  }

  /** The counters since this ledger was built, with the disk figures {@code freeBytes} and {@code lowDiskThreshold}. */
  LedgerStats.LocalDisk snapshot(long freeBytes, long lowDiskThreshold) {
    Map<LocalFileRefusal, Long> counts = new EnumMap<>(LocalFileRefusal.class);
    refused.forEach((refusal, count) -> counts.put(refusal, count.sum()));
    return new LedgerStats.LocalDisk(filesDeleted.sum(), bytesDeleted.sum(), counts, freeBytes, lowDiskThreshold);
  }
}
