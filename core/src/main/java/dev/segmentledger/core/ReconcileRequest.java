package dev.segmentledger.core;

import dev.segmentledger.core.internal.ReconcileCursor;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One bounded step of reconciling a broadcast with the bucket: at most {@link #maxChecks()} rows
 * and objects checked, for at most {@link #maxDuration()}, starting where the previous step stopped
 * ({@link #cursor()}, the {@link ReconcileStep#next()} of that step). Operators and their tools use
 * it instead of {@link Ledger#reconcile(String)}, whose cost (one HEAD request per confirmed row)
 * grows with the broadcast. {@link Reconciler#reconcile(ReconcileRequest)} answers it.
 *
 * <p>A pass over a broadcast is a series of steps: first its CONFIRMED rows in row id order (one
 * HEAD request each: is the object there, with the row's size and checksum?), then the objects
 * under its prefix in key order (one listing request per 1,000 keys on S3, and one read of the
 * row at each key: is there a confirmed row for it?), then its playlists and unfinished uploads.
 * Each check counts towards the limit, so a step sends at most {@code maxChecks} requests to the
 * bucket (plus the listing requests) whatever the broadcast's size.
 *
 * <p>Immutable and thread-safe; build one with {@link #builder(String)}.
 */
public final class ReconcileRequest {
  /** The most checks one step may make. */
  public static final int MAX_CHECKS = 100_000;
  /** The checks of a step when none is given. */
  public static final int DEFAULT_CHECKS = 1_000;
  /** The longest a step may run. */
  public static final Duration MAX_DURATION = Duration.ofMinutes(10);
  /** How long a step runs at most when no duration is given. */
  public static final Duration DEFAULT_DURATION = Duration.ofSeconds(20);

  private final String broadcastId;
  private final boolean repair;
  private final int maxChecks;
  private final Duration maxDuration;
  private final String cursor;

  private ReconcileRequest(Builder b) {
    this.broadcastId = b.broadcastId;
    this.repair = b.repair;
    this.maxChecks = b.maxChecks;
    this.maxDuration = b.maxDuration;
    this.cursor = b.cursor;
  }

  /**
   * A first step over {@code broadcastId}: report only, {@value #DEFAULT_CHECKS} checks, 20 s.
   *
   * @throws IllegalArgumentException if {@code broadcastId} is not a valid identifier
   */
  public static Builder builder(String broadcastId) {
    return new Builder(Identifiers.requireValid("broadcast", broadcastId));
  }

  /** The broadcast. */
  public String broadcastId() {
    return broadcastId;
  }

  /** Whether differences are repaired as {@link Reconciler#reconcileAndRepair} does. */
  public boolean repair() {
    return repair;
  }

  /** The most rows and objects this step checks. */
  public int maxChecks() {
    return maxChecks;
  }

  /** How long this step runs at most (it ends after the check in progress). */
  public Duration maxDuration() {
    return maxDuration;
  }

  /** Where this step starts: the {@link ReconcileStep#next()} of the previous one; empty: at the start. */
  public Optional<String> cursor() {
    return Optional.ofNullable(cursor);
  }

  /** This request, continuing at {@code cursor} (a {@link ReconcileStep#next()}). */
  public ReconcileRequest continueAt(String cursor) {
    Builder b = new Builder(broadcastId).repair(repair).maxChecks(maxChecks).maxDuration(maxDuration);
    return b.cursor(cursor).build();
  }

  @Override
  public String toString() {
    return "ReconcileRequest[broadcast=" + broadcastId + ", repair=" + repair + ", maxChecks=" + maxChecks
        + ", maxDuration=" + maxDuration + ", cursor=" + (cursor == null ? "-" : cursor) + "]";
  }

  /** Collects a {@link ReconcileRequest}. Not thread-safe; each setter validates its argument. */
  public static final class Builder {
    private final String broadcastId;
    private boolean repair;
    private int maxChecks = DEFAULT_CHECKS;
    private Duration maxDuration = DEFAULT_DURATION;
    private String cursor;

    private Builder(String broadcastId) {
      this.broadcastId = broadcastId;
    }

    /** Repair what differs (re-open rows, publish playlists again, abort old unfinished uploads); off unless set. */
    public Builder repair(boolean repair) {
      this.repair = repair;
      return this;
    }

    /** The most rows and objects to check, from 1 to {@value #MAX_CHECKS}. */
    public Builder maxChecks(int maxChecks) {
      if (maxChecks < 1 || maxChecks > MAX_CHECKS) {
        throw new IllegalArgumentException("the check limit must be between 1 and " + MAX_CHECKS + ", got "
            + maxChecks);
      }
      this.maxChecks = maxChecks;
      return this;
    }

    /** How long to run at most: more than zero, at most 10 minutes. */
    public Builder maxDuration(Duration maxDuration) {
      Objects.requireNonNull(maxDuration, "maxDuration");
      if (maxDuration.isNegative() || maxDuration.isZero() || maxDuration.compareTo(MAX_DURATION) > 0) {
        throw new IllegalArgumentException("the time limit must be more than 0 s and at most "
            + MAX_DURATION.toSeconds() + " s, got " + maxDuration.toMillis() + " ms");
      }
      this.maxDuration = maxDuration;
      return this;
    }

    /**
     * Continue where a previous step stopped: its {@link ReconcileStep#next()}; {@code null} or
     * empty: from the start of the pass.
     *
     * @throws IllegalArgumentException if {@code cursor} is not a cursor a step of this broadcast returns
     */
    public Builder cursor(String cursor) {
      if (cursor != null && !cursor.isEmpty()) {
        ReconcileCursor.parse(broadcastId, cursor);
      }
      this.cursor = cursor == null || cursor.isEmpty() ? null : cursor;
      return this;
    }

    /** The request. */
    public ReconcileRequest build() {
      return new ReconcileRequest(this);
    }
  }
}
