package dev.segmentledger.core.query;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.Identifiers;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Which ledger rows to list across all broadcasts, for operators and their tools: by state and
 * reason, optionally narrowed to one axis or one broadcast, to rows with at least some attempts or
 * registered before some instant. Rows come in row id order, newest or oldest first, one bounded
 * page at a time; the next page starts after the last row id of the previous one (a keyset
 * cursor, never an offset), so paging stays as cheap on the millionth row as on the first and
 * never skips or repeats a row that keeps its state meanwhile.
 *
 * <p>Examples: every {@link ItemState#REJECTED} row ({@code RowQuery.builder().states(REJECTED)}),
 * {@link ItemState#PENDING} rows with at least five attempts ({@code .states(PENDING).minAttempts(5)}),
 * PENDING rows registered more than an hour ago ({@code .registeredBefore(now.minus(1h))}).
 *
 * <p>Immutable and thread-safe; build one with {@link #builder()}, derive the next page's query
 * with {@link #after(long)}. {@link dev.segmentledger.core.Ledger#items(RowQuery)} answers it.
 */
public final class RowQuery {
  /** The largest page a query may ask for. */
  public static final int MAX_LIMIT = 10_000;

  /** The page size when none is given. */
  public static final int DEFAULT_LIMIT = 100;

  /** The order of the rows of a page, and the direction in which the cursor moves. */
  public enum Order {
    /** Descending row id: the most recently registered rows first. */
    NEWEST_FIRST,
    /** Ascending row id: the oldest rows first. */
    OLDEST_FIRST
  }

  private final Set<ItemState> states;
  private final Set<Reason> reasons;
  private final Axis axis;
  private final String broadcastId;
  private final int minAttempts;
  private final Instant registeredBefore;
  private final Order order;
  private final int limit;
  private final long after;

  private RowQuery(Builder b) {
    this.states = b.states.isEmpty() ? Set.copyOf(EnumSet.allOf(ItemState.class)) : Set.copyOf(b.states);
    this.reasons = Set.copyOf(b.reasons);
    this.axis = b.axis;
    this.broadcastId = b.broadcastId;
    this.minAttempts = b.minAttempts;
    this.registeredBefore = b.registeredBefore;
    this.order = b.order;
    this.limit = b.limit;
    this.after = b.after;
  }

  /** A builder with no filter: every state, newest first, {@value #DEFAULT_LIMIT} rows a page. */
  public static Builder builder() {
    return new Builder();
  }

  /** The states a row must be in; never empty (a query built without states lists every state). */
  public Set<ItemState> states() {
    return states;
  }

  /** The reasons a row must carry; empty: any reason, including none. */
  public Set<Reason> reasons() {
    return reasons;
  }

  /** The axis a row must be of; empty: every axis. */
  public Optional<Axis> axis() {
    return Optional.ofNullable(axis);
  }

  /** The broadcast a row must belong to; empty: every broadcast. */
  public Optional<String> broadcastId() {
    return Optional.ofNullable(broadcastId);
  }

  /** The least number of {@linkplain LedgerItem#attempts() attempts} of a row; 0: no condition. */
  public int minAttempts() {
    return minAttempts;
  }

  /** A row must have been registered strictly before this instant; empty: no condition. */
  public Optional<Instant> registeredBefore() {
    return Optional.ofNullable(registeredBefore);
  }

  /** The order of the rows. */
  public Order order() {
    return order;
  }

  /** The most rows of one page. */
  public int limit() {
    return limit;
  }

  /**
   * The keyset cursor: only rows after this row id in the query's {@link #order()} are listed
   * (a greater id oldest first, a smaller id newest first); empty: from the first row.
   */
  public OptionalLong after() {
    return after > 0 ? OptionalLong.of(after) : OptionalLong.empty();
  }

  /** This query, continuing after {@code rowId} (typically a page's {@link Page#next()}). */
  public RowQuery after(long rowId) {
    return toBuilder().after(rowId).build();
  }

  /** Whether {@code row} matches every condition of this query except the cursor and the limit. */
  public boolean matches(LedgerItem row) {
    return states.contains(row.state())
        && (reasons.isEmpty() || (row.reason() != null && reasons.contains(row.reason())))
        && (axis == null || row.id().axis() == axis)
        && (broadcastId == null || row.id().broadcastId().equals(broadcastId))
        && row.attempts() >= minAttempts
        && (registeredBefore == null || row.registeredAt().isBefore(registeredBefore));
  }

  /** Whether {@code rowId} lies after the cursor in the query's order (always, without a cursor). */
  public boolean isAfterCursor(long rowId) {
    if (after <= 0) {
      return true;
    }
    return order == Order.OLDEST_FIRST ? rowId > after : rowId < after;
  }

  /** A builder holding this query's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.states.addAll(states.size() == ItemState.values().length ? Set.of() : states);
    b.reasons.addAll(reasons);
    b.axis = axis;
    b.broadcastId = broadcastId;
    b.minAttempts = minAttempts;
    b.registeredBefore = registeredBefore;
    b.order = order;
    b.limit = limit;
    b.after = after;
    return b;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RowQuery q && states.equals(q.states) && reasons.equals(q.reasons) && axis == q.axis
        && Objects.equals(broadcastId, q.broadcastId) && minAttempts == q.minAttempts
        && Objects.equals(registeredBefore, q.registeredBefore) && order == q.order && limit == q.limit
        && after == q.after;
  }

  @Override
  public int hashCode() {
    return Objects.hash(states, reasons, axis, broadcastId, minAttempts, registeredBefore, order, limit, after);
  }

  @Override
  public String toString() {
    return "RowQuery[states=" + states + ", reasons=" + reasons + ", axis=" + axis + ", broadcastId=" + broadcastId
        + ", minAttempts=" + minAttempts + ", registeredBefore=" + registeredBefore + ", order=" + order
        + ", limit=" + limit + ", after=" + (after > 0 ? after : "-") + "]";
  }

  /** Collects the conditions of a {@link RowQuery}. Not thread-safe; each setter validates its argument. */
  public static final class Builder {
    private final Set<ItemState> states = EnumSet.noneOf(ItemState.class);
    private final Set<Reason> reasons = EnumSet.noneOf(Reason.class);
    private Axis axis;
    private String broadcastId;
    private int minAttempts;
    private Instant registeredBefore;
    private Order order = Order.NEWEST_FIRST;
    private int limit = DEFAULT_LIMIT;
    private long after;

    private Builder() {}

    /** Only rows in one of these states (replacing any given before); none: every state. */
    public Builder states(ItemState... states) {
      return states(Arrays.asList(states));
    }

    /** Only rows in one of these states (replacing any given before); empty: every state. */
    public Builder states(Collection<ItemState> states) {
      this.states.clear();
      for (ItemState state : states) {
        this.states.add(Objects.requireNonNull(state, "state"));
      }
      return this;
    }

    /** Only rows carrying one of these reasons (replacing any given before); none: any reason. */
    public Builder reasons(Reason... reasons) {
      return reasons(Arrays.asList(reasons));
    }

    /** Only rows carrying one of these reasons (replacing any given before); empty: any reason. */
    public Builder reasons(Collection<Reason> reasons) {
      this.reasons.clear();
      for (Reason reason : reasons) {
        this.reasons.add(Objects.requireNonNull(reason, "reason"));
      }
      return this;
    }

    /** Only rows of this axis; {@code null}: every axis. */
    public Builder axis(Axis axis) {
      this.axis = axis;
      return this;
    }

    /** Only rows of this broadcast; {@code null}: every broadcast. */
    public Builder broadcastId(String broadcastId) {
      if (broadcastId != null) {
        Identifiers.requireValid("broadcastId", broadcastId);
      }
      this.broadcastId = broadcastId;
      return this;
    }

    /** Only rows with at least this many attempts; 0: no condition. */
    public Builder minAttempts(int minAttempts) {
      if (minAttempts < 0) {
        throw new IllegalArgumentException("minAttempts must be >= 0, got " + minAttempts);
      }
      this.minAttempts = minAttempts;
      return this;
    }

    /**
     * Only rows registered strictly before {@code instant} (truncated to microseconds, as stores
     * keep instants); {@code null}: no condition.
     */
    public Builder registeredBefore(Instant instant) {
      this.registeredBefore = instant == null ? null : instant.truncatedTo(ChronoUnit.MICROS);
      return this;
    }

    /** The order of the rows; {@link Order#NEWEST_FIRST} unless set. */
    public Builder order(Order order) {
      this.order = Objects.requireNonNull(order, "order");
      return this;
    }

    /** The most rows of one page, from 1 to {@value #MAX_LIMIT}; {@value #DEFAULT_LIMIT} unless set. */
    public Builder limit(int limit) {
      if (limit < 1 || limit > MAX_LIMIT) {
        throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIMIT + ", got " + limit);
      }
      this.limit = limit;
      return this;
    }

    /** Only rows after this row id in the query's order (a keyset cursor); 0: from the first row. */
    public Builder after(long rowId) {
      if (rowId < 0) {
        throw new IllegalArgumentException("after must be a row id > 0 (or 0 for none), got " + rowId);
      }
      this.after = rowId;
      return this;
    }

    /** The query. */
    public RowQuery build() {
      return new RowQuery(this);
    }
  }
}
