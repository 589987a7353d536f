package dev.segmentledger.core.internal;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.StoredObjectInfo;
import dev.segmentledger.core.spi.Claim;
import dev.segmentledger.core.spi.ClaimedRow;
import dev.segmentledger.core.spi.RepackageException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt on one item taken from the queue, and the end of its in-flight period.
 *
 * <p>Design note. The attempt takes the row's lease first (a claim, so that other ledger
 * instances on the same store leave it alone; an item another instance holds is skipped; a row
 * this instance leased at its registration is not claimed again, its lease is extended if need
 * be), so that an attempt is counted even if producing or uploading the item kills this process.
 * A claim that takes over abandoned attempts goes through {@link AbandonedAttempts}. The attempt
 * then produces the file if it is a PLAYBACK or INIT item whose file is missing
 * ({@link PlaybackProducer}), uploads it ({@link Uploader}), and hands the item to the
 * {@link Confirmer}, which confirms the row by compare-and-set on (PENDING, registered size),
 * ending the lease, and releases the item's {@link InFlight} handle. An attempt that ends before
 * that releases the handle itself. Every failure becomes a named reason on the row, terminal or
 * with backoff; nothing thrown by the file, the sink or the store escapes, so a worker thread
 * never dies on bad input. Thread-safe.
 */
final class ItemProcessor {
  private static final Logger log = LoggerFactory.getLogger(ItemProcessor.class);

  private final Leases leases;
  private final AbandonedAttempts abandoned;
  private final PlaybackProducer producer;
  private final Uploader uploader;
  private final Confirmer confirmer;
  private final Failures failures;
  private final Events events;

  ItemProcessor(Leases leases, AbandonedAttempts abandoned, PlaybackProducer producer,
      Uploader uploader, Confirmer confirmer, Failures failures, Events events) {
    this.leases = leases;
    this.abandoned = abandoned;
    this.producer = producer;
    this.uploader = uploader;
    this.confirmer = confirmer;
    this.failures = failures;
    this.events = events;
  }

  /** An item whose object is stored, ready for its confirm. */
  private record Uploaded(LedgerItem item, StoredObjectInfo object) {}

  /**
   * Makes one attempt on {@code work} and finishes it: hands it to the {@link Confirmer}, which
   * releases it once the confirm is over, or releases it here if the attempt ended before a PUT
   * to confirm. Throws only a {@link VirtualMachineError}, after releasing the work.
   */
  void process(InFlight work) {
    Uploaded uploaded;
    try {
      uploaded = attempt(work);
    } catch (VirtualMachineError e) {
      work.release();
      throw e;
    }
    if (uploaded == null) {
      work.release();
      return;
    }
    try {
      confirmer.submit(uploaded.item(), uploaded.object(), work);
    } catch (RuntimeException | Error e) {
      recordUnexpected(uploaded.item(), e);
      work.release(); // a no-op if the confirmer finished it already
      rethrowIfFatal(e);
    }
  }

  /** The attempt up to the hand-over; {@code null} if it ended here (recorded on the row, or skipped). */
  private Uploaded attempt(InFlight work) {
    LedgerItem item = work.item();
    try {
      // The lease comes first, so that an attempt is counted even if producing or uploading the
      // item kills this process: the next claim finds the lease expired and counts it abandoned.
      // (A death under the lease taken at registration is not counted: the row may only have
      // waited in the queue. The next attempt claims it, and from then on deaths count.)
      Claim claim;
      if (work.fromSweep()) {
        // A sweep page may be stale by now: the claim takes the row only if it is still PENDING and
        // due, and the attempt works on the row as the claim left it.
        ClaimedRow claimed = leases.claimRow(item);
        claim = claimed.claim();
        if (claim.held() && (claimed.row() == null || claimed.row().state() != ItemState.PENDING)) {
          return null; // gone or finished since the claim (a store that reads the row separately)
        }
        item = claim.held() ? claimed.row() : item;
      } else {
        claim = leases.acquire(item, work);
      }
      if (!claim.held()) {
        events.onClaimLost(item);
        return null;
      }
      if (!abandoned.mayGoOn(item, claim)) {
        return null;
      }
      LedgerItem claimed = item;
      return abandoned.uploadAlone(item, claim, () -> produceAndUpload(claimed, work.fromSweep()));
    } catch (RuntimeException | Error e) {
      // Nothing may end a worker: an unexpected failure is recorded on the row and retried.
      recordUnexpected(item, e);
      rethrowIfFatal(e);
      return null;
    }
  }

  /** Produces the file of a PLAYBACK or INIT item if need be, then uploads it. */
  private Uploaded produceAndUpload(LedgerItem claimed, boolean fromSweep) {
    LedgerItem item = claimed;
    if (item.id().axis() != Axis.ORIGINAL) {
      Optional<LedgerItem> produced = produce(item);
      if (produced.isEmpty()) {
        return null;
      }
      item = produced.get();
    }
    StoredObjectInfo stored = uploader.upload(item, fromSweep || item.attempts() > 0);
    return stored == null ? null : new Uploaded(item, stored);
  }

  private Optional<LedgerItem> produce(LedgerItem item) {
    try {
      return producer.ensureProduced(item);
    } catch (FileRejectedException e) {
      failures.record(item, e.reason(), "original of " + item.id() + ": " + e.getMessage());
    } catch (RepackageException e) {
      failures.record(item, Reason.REPACKAGE_FAILED, e.getMessage());
    }
    return Optional.empty();
  }

  private void recordUnexpected(LedgerItem item, Throwable e) {
    log.warn("unexpected error processing {}; the row stays unconfirmed", item.id(), e);
    failures.record(item, Reason.INTERNAL_ERROR, String.valueOf(e));
  }

  private static void rethrowIfFatal(Throwable e) {
    if (e instanceof VirtualMachineError fatal) {
      throw fatal;
    }
  }
}
