package dev.segmentledger.core.internal;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The engine's runtime signals, one object handed to the parts that raise or read them, instead of
 * callbacks into the facade: whether the ledger runs (its lifecycle), "sweep soon" (rows became due:
 * an INIT confirm released waiting playback, rows were re-opened or handed over, a worker made room)
 * and "playlists changed" (a confirm or a terminal failure altered what a playlist lists). The part
 * that acts on a signal registers itself once while the engine is wired; raising a signal nobody
 * acts on (a manual ledger has no scheduler) does nothing. Thread-safe.
 */
final class Signals {
  /** The ledger's life: built, started (threads run), closed (nothing runs, calls are refused). */
  enum Lifecycle { NEW, RUNNING, CLOSED }

  private final AtomicReference<Lifecycle> lifecycle = new AtomicReference<>(Lifecycle.NEW);
  private volatile Runnable sweep = () -> { };
  private volatile Runnable playlists = () -> { };

  /** Whether the ledger runs with its threads (started and not closed). */
  boolean running() {
    return lifecycle.get() == Lifecycle.RUNNING;
  }

  /** Whether the ledger is closed. */
  boolean closed() {
    return lifecycle.get() == Lifecycle.CLOSED;
  }

  /** Moves from NEW to RUNNING; {@code false} if the ledger was not NEW. */
  boolean start() {
    return lifecycle.compareAndSet(Lifecycle.NEW, Lifecycle.RUNNING);
  }

  /** Moves to CLOSED; returns the state it leaves. */
  Lifecycle close() {
    return lifecycle.getAndSet(Lifecycle.CLOSED);
  }

  /** Rows may have become due: a sweep round now rather than at the next tick. */
  void sweepSoon() {
    sweep.run();
  }

  /** What a playlist lists may have changed: a publication round soon. */
  void playlistsChanged() {
    playlists.run();
  }

  /** Wiring: who sweeps when {@link #sweepSoon} is raised. */
  void onSweepSoon(Runnable action) {
    this.sweep = action;
  }

  /** Wiring: who publishes when {@link #playlistsChanged} is raised. */
  void onPlaylistsChanged(Runnable action) {
    this.playlists = action;
  }
}
