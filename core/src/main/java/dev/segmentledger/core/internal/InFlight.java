package dev.segmentledger.core.internal;

import dev.segmentledger.core.Lane;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.spi.Tracing.Span;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One item taken into this process's work, holding its row's slot in the {@link WorkQueue} from
 * the offer until whoever finishes it calls {@link #release}: the worker when the attempt ends
 * without a PUT to confirm, the {@link Confirmer} once the confirm is over, the queue itself when
 * it refuses the offer. Releasing is idempotent: the slot is freed exactly once, however many of
 * them call it and from whichever thread, and a late release never frees a newer slot of the same
 * row. Thread-safe.
 *
 * <p>{@code fromSweep} items are uploaded as their claim returns them, or re-read (the sweep page may
 * be stale);
 * {@code leasedUntil} is the end of the lease this instance took at the row's registration (as
 * {@link Leases} extended it while the row waited in the queue), or {@code null}.
 */
final class InFlight implements AutoCloseable {
  private final LedgerItem item;
  private final boolean fromSweep;
  private volatile Instant leasedUntil; // extended only by Leases, under its renewal lock
  private volatile boolean extensionUnknown; // an extension threw since leasedUntil was known
  private final Consumer<InFlight> freeSlot;
  private final AtomicBoolean released = new AtomicBoolean();
  private volatile Runnable onRelease; // ends the item's attempt, if one began
  private volatile Span span = Span.NONE; // the attempt's trace span, once it began
  private volatile Lane lane = Lane.LIVE; // the lane it was taken from (LIVE with lanes off)

  /** @param freeSlot frees this item's slot; called once, by the first {@link #release} */
  InFlight(LedgerItem item, boolean fromSweep, Instant leasedUntil, Consumer<InFlight> freeSlot) {
    this.item = item;
    this.fromSweep = fromSweep;
    this.leasedUntil = leasedUntil;
    this.freeSlot = freeSlot;
  }

  LedgerItem item() {
    return item;
  }

  boolean fromSweep() {
    return fromSweep;
  }

  /** The lane the queue took it from; {@link Lane#LIVE} until taken, and for everything with lanes off. */
  Lane lane() {
    return lane;
  }

  /** Records the lane the queue took it from (the queue only, at the take). */
  void takenFrom(Lane lane) {
    this.lane = lane;
  }

  Instant leasedUntil() {
    return leasedUntil;
  }

  /**
   * Records that the store extended the lease taken at registration, still a lease of the row's
   * wait, to {@code until} ({@link Leases} only, under its renewal lock).
   */
  void leaseExtended(Instant until) {
    this.leasedUntil = until;
    this.extensionUnknown = false;
  }

  /** An extension of this lease threw {@code e}: unless the store says it wrote nothing, its answer may be lost. */
  void extensionFailed(RuntimeException e) {
    if (!(e instanceof StoreException s) || s.mayHaveWritten()) {
      this.extensionUnknown = true;
    }
  }

  /** Whether a lost extension may have moved the lease to {@code found}: one threw, and only forward. */
  boolean mayHaveBeenExtendedTo(Instant found) {
    return extensionUnknown && leasedUntil != null && found.isAfter(leasedUntil);
  }

  /**
   * Runs {@code onRelease} when the in-flight period ends (at once if it has): the end of the
   * item's attempt, whose lease the heartbeat renews until then.
   */
  void onRelease(Runnable onRelease) {
    this.onRelease = onRelease;
    if (released.get()) {
      onRelease.run();
    }
  }

  /** The trace span of the item's attempt ({@link Span#NONE} before it began, or without tracing). */
  Span span() {
    return span;
  }

  /** Records the trace span of the item's attempt. */
  void traced(Span span) {
    this.span = span;
  }

  /** Ends the in-flight period: the row may be queued again. Only the first call does anything. */
  void release() {
    if (released.compareAndSet(false, true)) {
      Runnable ending = onRelease;
      if (ending != null) {
        ending.run();
      }
      freeSlot.accept(this);
    }
  }

  boolean released() {
    return released.get();
  }

  /** The same as {@link #release}. */
  @Override
  public void close() {
    release();
  }
}
