package dev.segmentledger.rig;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.Uplink;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.core.ManualLedger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.SweepReport;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.core.spi.RegisterResult;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.testkit.FakeObjectSink;
import dev.segmentledger.testkit.SettableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs the acceptance protocol of docs/design.md against a real sweeper and queue: seeds a store with
 * {@code G} failing "ghost" rows (already failed, in backoff) followed by {@code N} waiting rows,
 * builds a {@link ManualLedger} on it and runs sweep rounds until every waiting row has been
 * accepted into the queue (or a round limit is hit). It reports the round in which the last
 * waiting row was accepted and the queue saturation.
 *
 * <pre>{@code
 * AcceptanceRun run = AcceptanceHarness.builder()
 *     .store(new InMemoryStateStore())
 *     .waitingRows(1_100)
 *     .ghostRows(500)
 *     .build()
 *     .run();
 * assertEquals(9, run.lastAcceptedRound());
 * }</pre>
 *
 * <p>Acceptance is measured alone: the harness only sweeps and <em>never drains the queue</em>,
 * so nothing is stored or confirmed and the files behind the seeded rows need not exist. That is
 * why the queue must be big enough to hold every waiting row (the reference conditions, 128 rows
 * per round and capacity 4,096, cover N up to 4,096); with N above the capacity the run reports
 * saturation and {@link AcceptanceRun#allAccepted()} false.
 *
 * <p>Rows are seeded through {@link StateStore#register} (in batches of {@link #SEED_BATCH}) and
 * ghosts through {@link StateStore#recordFailure} with a next attempt one day after the run's
 * clock. The store must hold no unconfirmed row when {@link #run()} starts, otherwise the rounds
 * would be shared with rows the harness does not know about; the run refuses such a store. Each
 * run uses broadcasts of its own, so one store may serve several runs if it is emptied (or its
 * rows confirmed) in between. A harness is immutable; {@link #run()} may be called again on a
 * store in that state.
 */
public final class AcceptanceHarness {
  /** Rows per {@link StateStore#registerAll} call while seeding. */
  public static final int SEED_BATCH = 1_000;
  /** The reference conditions of the protocol. */
  public static final int REFERENCE_ROWS_PER_ROUND = 128;
  /** The reference conditions of the protocol. */
  public static final int REFERENCE_QUEUE_CAPACITY = 4_096;

  private static final Duration GHOST_BACKOFF = Duration.ofDays(1);
  private static final long SEED_SIZE = 1_024;

  private final StateStore store;
  private final int waitingRows;
  private final int ghostRows;
  private final int rowsPerRound;
  private final int queueCapacity;
  private final long maxRounds;
  private final Path allowedRoot;

  private AcceptanceHarness(Builder b) {
    this.store = Objects.requireNonNull(b.store, "store is required");
    this.waitingRows = b.waitingRows;
    this.ghostRows = b.ghostRows;
    this.rowsPerRound = b.rowsPerRound;
    this.queueCapacity = b.queueCapacity;
    this.allowedRoot = b.allowedRoot;
    long total = (long) waitingRows + ghostRows;
    this.maxRounds = b.maxRounds > 0 ? b.maxRounds : 2 * ((total + rowsPerRound - 1) / rowsPerRound) + 2;
  }

  /** A builder with the reference conditions. */
  public static Builder builder() {
    return new Builder();
  }

  /** Seeds the store, then sweeps until every waiting row is accepted or the round limit is hit. */
  public AcceptanceRun run() {
    requireNoUnconfirmedRows();
    // The ledger judges due rows by the store's time where the store has a clock of its own (the
    // database's): the seeded rows' times are taken from the same clock, or a ghost due "in a day" of
    // a fixed start would already be due by the database's clock.
    SettableClock clock = store.currentTime().map(SettableClock::at).orElseGet(SettableClock::atFixedStart);
    String runId = UUID.randomUUID().toString().substring(0, 8);
    seedGhosts("acceptance-ghost-" + runId, clock.instant());
    Set<Long> waiting = seedWaiting("acceptance-" + runId, clock.instant());
    AcceptanceListener listener = new AcceptanceListener(waiting);
    try (ManualLedger ledger = Ledger.builder()
        .stateStore(store)
        .objectSink(new FakeObjectSink())
        .allowedRoot(allowedRoot)
        .clock(clock)
        .sweepBatchSize(rowsPerRound)
        .queueCapacity(queueCapacity)
        // The protocol measures the one queue it was written for: with lanes, originals may fill only
        // 7/8 of it (the rest is kept for live work), so N waiting originals never all fit a queue of N.
        .uplink(Uplink.builder().lanes(false).build())
        .listener(listener)
        .buildManual()) {
      return sweep(ledger, listener);
    }
  }

  private AcceptanceRun sweep(ManualLedger ledger, AcceptanceListener listener) {
    long lastAcceptedRound = waitingRows == 0 ? 0 : -1;
    long rounds = 0;
    long saturated = 0;
    long start = System.nanoTime();
    while (!listener.allAccepted() && rounds < maxRounds) {
      SweepReport report = ledger.sweepRound();
      rounds = report.round();
      saturated += report.saturated();
      if (listener.allAccepted()) {
        lastAcceptedRound = report.round();
      }
    }
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
    long statsSaturated = ledger.stats().total().saturated();
    return new AcceptanceRun(waitingRows, ghostRows, rowsPerRound, queueCapacity, lastAcceptedRound, rounds,
        waitingRows - listener.remaining(), saturated, statsSaturated, elapsed);
  }

  private void requireNoUnconfirmedRows() {
    for (Axis axis : Axis.values()) {
      long pending = store.count(axis, ItemState.PENDING) + store.count(axis, ItemState.WAITING);
      if (pending > 0) {
        throw new IllegalStateException("the store already holds " + pending + " unconfirmed " + axis
            + " rows; the acceptance protocol needs a store whose only due rows are the ones it seeds");
      }
    }
  }

  private Set<Long> seedWaiting(String broadcastId, Instant now) {
    Set<Long> ids = ConcurrentHashMap.newKeySet();
    for (RegisterResult result : seed(broadcastId, waitingRows, now.minusSeconds(60))) {
      ids.add(result.item().rowId());
    }
    return ids;
  }

  private void seedGhosts(String broadcastId, Instant now) {
    Instant registeredAt = now.minus(GHOST_BACKOFF);
    for (RegisterResult result : seed(broadcastId, ghostRows, registeredAt)) {
      boolean failed = store.recordFailure(result.item().rowId(), ItemState.PENDING, "node-a", Reason.SINK_TRANSIENT,
          "acceptance harness ghost", now.plus(GHOST_BACKOFF));
      if (!failed) {
        throw new IllegalStateException("could not put ghost row " + result.item().id() + " into backoff");
      }
    }
  }

  private List<RegisterResult> seed(String broadcastId, int rows, Instant registeredAt) {
    List<RegisterResult> results = new ArrayList<>(rows);
    List<NewItem> batch = new ArrayList<>(SEED_BATCH);
    for (int sequence = 0; sequence < rows; sequence++) {
      ItemId id = ItemId.original(broadcastId, "720p", sequence);
      String path = allowedRoot.resolve(broadcastId).resolve(sequence + ".ts").toString();
      batch.add(NewItem.pending(id, path, SEED_SIZE, registeredAt));
      if (batch.size() == SEED_BATCH || sequence == rows - 1) {
        results.addAll(store.registerAll(batch));
        batch.clear();
      }
    }
    return results;
  }

  /** Records which seeded waiting rows the sweeper has handed to the queue. */
  private static final class AcceptanceListener implements LedgerListener {
    private final Set<Long> remaining;

    AcceptanceListener(Set<Long> waiting) {
      this.remaining = waiting;
    }

    @Override
    public void onAccepted(LedgerItem item) {
      remaining.remove(item.rowId());
    }

    boolean allAccepted() {
      return remaining.isEmpty();
    }

    int remaining() {
      return remaining.size();
    }
  }

  /** Settings of a harness; defaults are the protocol's reference conditions. Not thread-safe. */
  public static final class Builder {
    private StateStore store;
    private int waitingRows;
    private int ghostRows;
    private int rowsPerRound = REFERENCE_ROWS_PER_ROUND;
    private int queueCapacity = REFERENCE_QUEUE_CAPACITY;
    private long maxRounds;
    private Path allowedRoot = Path.of(System.getProperty("java.io.tmpdir"));

    private Builder() {}

    /** The store to seed and sweep; it must hold no unconfirmed row. Required. */
    public Builder store(StateStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /** N: due rows to seed (after the ghosts). Default 0. */
    public Builder waitingRows(int waitingRows) {
      this.waitingRows = requireNonNegative("waitingRows", waitingRows);
      return this;
    }

    /** G: failing rows in backoff seeded in front of the waiting rows. Default 0. */
    public Builder ghostRows(int ghostRows) {
      this.ghostRows = requireNonNegative("ghostRows", ghostRows);
      return this;
    }

    /** Rows read per axis per sweep round (the ledger's sweep batch size). Default 128. */
    public Builder rowsPerRound(int rowsPerRound) {
      this.rowsPerRound = requirePositive("rowsPerRound", rowsPerRound);
      return this;
    }

    /** Capacity of the ledger's queue. Default 4,096. */
    public Builder queueCapacity(int queueCapacity) {
      this.queueCapacity = requirePositive("queueCapacity", queueCapacity);
      return this;
    }

    /** The most rounds to run. Default: twice the rounds needed for N + G rows, plus 2. */
    public Builder maxRounds(long maxRounds) {
      if (maxRounds <= 0) {
        throw new IllegalArgumentException("maxRounds must be > 0, got " + maxRounds);
      }
      this.maxRounds = maxRounds;
      return this;
    }

    /** The ledger's allowed root (the seeded paths lie under it). Default: the temp directory. */
    public Builder allowedRoot(Path allowedRoot) {
      this.allowedRoot = Objects.requireNonNull(allowedRoot, "allowedRoot");
      return this;
    }

    public AcceptanceHarness build() {
      return new AcceptanceHarness(this);
    }

    private static int requireNonNegative(String name, int value) {
      if (value < 0) {
        throw new IllegalArgumentException(name + " must be >= 0, got " + value);
      }
      return value;
    }

    private static int requirePositive(String name, int value) {
      if (value <= 0) {
        throw new IllegalArgumentException(name + " must be > 0, got " + value);
      }
      return value;
    }
  }
}
