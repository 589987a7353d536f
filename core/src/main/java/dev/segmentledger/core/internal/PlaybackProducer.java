package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.RepackageException;
import dev.segmentledger.core.spi.RepackagedFile;
import dev.segmentledger.core.spi.Repackager;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.Tracing.Span;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Makes sure the local file of a PLAYBACK or INIT row exists before its upload: if the row has
 * no produced file yet, or the file is gone (crash, cleanup), the repackager runs again from the
 * recorded original (which must pass the file boundary too) and the new size is recorded on the
 * row by compare and set. Thread-safe.
 */
final class PlaybackProducer {
  private final StateStore store;
  private final Repackager repackager;
  private final Path playbackRoot;
  private final PathGuard guard;

  /**
   * @param repackager {@code null} if none is configured (then nothing can be produced)
   * @param playbackRoot where produced files go, inside the allowed root; {@code null} without a repackager
   */
  PlaybackProducer(StateStore store, Repackager repackager, Path playbackRoot, PathGuard guard) {
    this.store = store;
    this.repackager = repackager;
    this.guard = guard;
    this.playbackRoot = playbackRoot == null ? null : guard.absolute(playbackRoot).normalize();
    if (this.playbackRoot != null && !this.playbackRoot.startsWith(guard.root())) {
      throw new IllegalArgumentException("playback root " + playbackRoot + " must lie inside the allowed root "
          + guard.root());
    }
  }

  /** Where the repackager writes the file of a PLAYBACK or INIT item. */
  Path targetFor(ItemId id) {
    return playbackRoot.resolve(id.objectKey());
  }

  /**
   * The row, with its produced file, ready to upload; empty if another attempt changed the row
   * meanwhile (it then owns the item).
   */
  Optional<LedgerItem> ensureProduced(LedgerItem item, Attempt attempt)
      throws FileRejectedException, RepackageException {
    Path target = Path.of(item.sourcePath());
    if (item.sizeKnown() && (item.originPath() == null || hasSize(target, item.sizeBytes()))) {
      // Produced already, or registered directly as a file (no original to produce it from): the
      // file boundary decides (missing, grew, shrank are named outcomes there).
      return Optional.of(item);
    }
    if (repackager == null) {
      throw new RepackageException("no repackager is configured to produce " + item.id());
    }
    Path origin = guard.check(Path.of(item.originPath())).realPath();
    try {
      Files.createDirectories(target.getParent());
    } catch (IOException e) {
      throw new RepackageException("cannot create " + target.getParent() + ": " + e, e);
    }
    Optional<LedgerItem> original = registeredOriginal(item);
    RepackagedFile out;
    attempt.watchOutput(target); // the repackager's growing temporary files are the attempt's progress
    Span span = attempt.span().child("segment-ledger.repackage").tag("target", target.getFileName().toString());
    try {
      out = repackageRegistered(item, origin, target, original);
      span.tag("bytes", String.valueOf(out.sizeBytes())).end();
    } catch (FileRejectedException | RepackageException | RuntimeException e) {
      span.end(e);
      throw e;
    } finally {
      attempt.watchOutput(null);
    }
    if (!store.recordProduced(item.rowId(), ItemState.PENDING, item.sizeBytes(), target.toString(), out.sizeBytes(),
        out.duration())) {
      return Optional.empty();
    }
    return Optional.of(new LedgerItem(item.rowId(), item.id(), target.toString(), item.originPath(), out.sizeBytes(),
        item.state(), item.attempts(), item.reason(), item.lastError(), item.registeredAt(), item.nextAttemptAt(),
        item.confirmedAt(), item.checksum(), out.duration(), null, item.recordedAt(), item.storageGroup(), item.traceContext(),
        item.lane()));
  }

  private RepackagedFile repackageRegistered(LedgerItem item, Path origin, Path target, Optional<LedgerItem> original)
      throws FileRejectedException, RepackageException {
    RepackagedFile out;
    if (original.isEmpty()) {
      out = repackage(item, origin, target);
    } else {
      // The original as registered, not whatever is at its path now: a file that shrank, grew or was
      // replaced since is refused with that reason, before and after the repackager reads it.
      try (VerifiedFile registered = guard.open(Path.of(item.originPath()), original.get().sizeBytes(),
          original.get().fileIdentity())) {
        out = repackage(item, origin, target);
        registered.verifyUnchanged();
      } catch (IOException e) {
        throw new RepackageException("closing " + item.originPath() + " failed: " + e, e);
      }
    }
    return out;
  }

  private RepackagedFile repackage(LedgerItem item, Path origin, Path target) throws RepackageException {
    return item.id().axis() == Axis.INIT
        ? repackager.init(origin, target)
        : repackager.segment(origin, item.id().sequence(), target);
  }

  /**
   * The ORIGINAL row the derived {@code item} is made from, if it is stored with a known size: for a
   * PLAYBACK row the original of its sequence, for an INIT row the original of its rendition
   * recorded at its origin path. Empty for a derived row registered without such an original.
   */
  private Optional<LedgerItem> registeredOriginal(LedgerItem item) {
    ItemId id = item.id();
    Optional<LedgerItem> original = id.axis() == Axis.PLAYBACK
        ? store.find(ItemId.original(id.broadcastId(), id.rendition(), id.sequence()))
        : store.findByBroadcast(id.broadcastId()).stream()
            .filter(row -> row.id().axis() == Axis.ORIGINAL && row.id().rendition().equals(id.rendition())
                && item.originPath().equals(row.sourcePath()))
            .findFirst();
    return original.filter(row -> row.sizeKnown() && item.originPath().equals(row.sourcePath()));
  }

  private static boolean hasSize(Path file, long size) {
    try {
      return Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && Files.size(file) == size;
    } catch (IOException e) {
      return false;
    }
  }
}
