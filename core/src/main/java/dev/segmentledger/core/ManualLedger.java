package dev.segmentledger.core;

/**
 * A {@link Ledger} without background threads, driven by the caller: one sweep round at a time,
 * queued work processed on the calling thread. Combined with a settable {@link java.time.Clock},
 * tests drive time and rounds deterministically (in the spirit of db-scheduler's
 * {@code ManualScheduler}). Obtain one from {@link LedgerBuilder#buildManual()}.
 *
 * <p>{@link #start()} is a no-op for a manual ledger. Not meant for concurrent driving: call the
 * driving methods from one thread.
 */
public interface ManualLedger extends Ledger {

  /**
   * Runs one sweep round over every axis, offering due rows to the queue. Unlike the background
   * sweeper it runs even while the circuit breaker is open (the breaker still refuses uploads).
   */
  SweepReport sweepRound();

  /** Processes queued items on the calling thread until the queue is empty; returns how many. */
  int drainQueue();

  /**
   * Runs one heartbeat round now: renews, in one store call, the leases of the attempts in flight
   * that need it (with their evidence of progress), cancels those that made no progress for the
   * {@linkplain LedgerBuilder#stallTimeout stall timeout} and those whose lease was taken over. A
   * started ledger runs it on a thread of its own; a manual ledger only when this is called (from
   * another thread than the one draining the queue, for an attempt in flight to be there).
   *
   * @throws IllegalStateException if the ledger is closed
   */
  void heartbeat();

  /** The number of items currently waiting in the queue. */
  int queued();

  /**
   * Runs one round of playlist publication on the caller's thread: claims up to a sweep batch of
   * playlists whose ledger state changed since their last publication and publishes each (see
   * {@link LedgerBuilder#publishPlaylists}). Does nothing if publication is off or there is no
   * repackager.
   *
   * @return the number of playlists published
   */
  int publishPlaylists();
}
