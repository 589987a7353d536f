package dev.segmentledger.spring;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Printable;
import dev.segmentledger.core.QueryTimeoutException;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.ReconcileRequest;
import dev.segmentledger.core.ReconcileStep;
import dev.segmentledger.core.query.Page;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.core.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code segmentledger} actuator endpoint. Every read is bounded:
 * <ul>
 *   <li>{@code GET /actuator/segmentledger}: rows that are not confirmed (PENDING, WAITING, REJECTED,
 *       EXCLUDED), newest first, one page at a time; parameters {@code broadcast}, {@code axis},
 *       {@code state} and {@code reason} (comma-separated), {@code limit} (1 to 10,000, default 50),
 *       {@code order} (newest_first, oldest_first), and {@code after}: the {@code next} of the
 *       previous page;
 *   <li>{@code GET /actuator/segmentledger/{broadcast}}: that broadcast's status, from counts;
 *   <li>{@code GET /actuator/segmentledger/{broadcast}/rows}: that broadcast's rows, every state
 *       unless {@code state} says, oldest first, one page at a time (same parameters);
 *   <li>{@code POST /actuator/segmentledger/{broadcast}/reconcile}: one bounded step of comparing
 *       the broadcast with the bucket ({@link ReconcileRequest}); body {@code maxChecks} (default
 *       1,000), {@code maxSeconds} (default 20), {@code cursor} (the {@code next} of the previous
 *       step) and, only where re-open is enabled, {@code repair}. A GET of it answers 400 and says so.
 * </ul>
 * A rows page built with the ledger's store is bounded in time ({@link #QUERY_TIMEOUT}; the
 * auto-configuration does so): a page whose read takes longer is a 503 that says what to narrow. Lists show at most {@value #LAST_ERROR_IN_LISTS} characters of a row's {@code lastError}, cut
 * with a marker that says how many were left out. With {@code
 * segment-ledger.endpoint.reopen-enabled=true} it is a {@link SegmentLedgerReopenEndpoint}, which
 * also re-opens rows and repairs.
 */
@Endpoint(id = SegmentLedgerEndpoint.ID)
public class SegmentLedgerEndpoint {
  /** The endpoint id. */
  public static final String ID = "segmentledger";

  /** The characters of {@code lastError} a list shows; longer ones are cut, with a marker. */
  public static final int LAST_ERROR_IN_LISTS = 200;

  /** The states listed when none is asked for: every state but CONFIRMED. */
  static final List<ItemState> STUCK = List.of(ItemState.PENDING, ItemState.WAITING, ItemState.REJECTED,
      ItemState.EXCLUDED);

  /** How long the read of one rows page may take, with a store bounded in time: 5 seconds. */
  public static final Duration QUERY_TIMEOUT = Duration.ofSeconds(5);

  /** The ledger the operations read. */
  protected final Ledger ledger;

  /** Where rows pages are read from, bounded in time; {@code null}: through {@link #ledger}. */
  private final @Nullable StateStore rowReads;

  /** Operations on {@code ledger}; its rows pages take as long as its store takes. */
  public SegmentLedgerEndpoint(Ledger ledger) {
    this(ledger, null);
  }

  /**
   * Operations on {@code ledger}, whose rows pages are read from {@code store} bounded to {@link
   * #QUERY_TIMEOUT} ({@link StateStore#withReadTimeout}): a page whose read takes longer is answered
   * 503 with a message that says so and how to narrow the filter.
   *
   * @param store the ledger's own store; {@code null}: as {@link #SegmentLedgerEndpoint(Ledger)}
   */
  public SegmentLedgerEndpoint(Ledger ledger, @Nullable StateStore store) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.rowReads = store == null ? null : store.withReadTimeout(QUERY_TIMEOUT);
  }

  /**
   * {@code GET /actuator/segmentledger}: {@link #rows}, answered 503 with what to narrow when its
   * read outlasts the bound.
   */
  @ReadOperation
  public WebEndpointResponse<Map<String, Object>> rowsOperation(@Nullable String broadcast, @Nullable String axis,
      @Nullable String state, @Nullable String reason, @Nullable Integer limit, @Nullable String order,
      @Nullable Long after) {
    try {
      return new WebEndpointResponse<>(rows(broadcast, axis, state, reason, limit, order, after));
    } catch (QueryTimeoutException e) {
      return tookTooLong(e);
    }
  }

  /**
   * One page of rows not confirmed (or of the states asked for).
   *
   * @throws InvalidEndpointRequestException if a parameter is not valid
   * @throws QueryTimeoutException if the read outlasted the bound ({@link #rowsOperation} answers it 503)
   */
  public Map<String, Object> rows(@Nullable String broadcast, @Nullable String axis, @Nullable String state,
      @Nullable String reason, @Nullable Integer limit, @Nullable String order, @Nullable Long after) {
    return page(broadcast, axis, state == null ? STUCK : null, state, reason, limit,
        order == null ? RowQuery.Order.NEWEST_FIRST : null, order, after);
  }

  /** The status of one broadcast: its phase and its rows counted by axis and state. */
  @ReadOperation
  public Map<String, Object> broadcast(@Selector String broadcast) {
    BroadcastStatus status;
    try {
      status = ledger.broadcastStatus(broadcast);
    } catch (IllegalArgumentException e) {
      throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
    }
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("broadcast", status.broadcastId());
    doc.put("phase", lower(status.phase()));
    doc.put("unconfirmed", status.unconfirmed());
    Map<String, Object> counts = new LinkedHashMap<>();
    status.counts().forEach((a, byState) -> {
      Map<String, Long> states = new LinkedHashMap<>();
      byState.forEach((s, n) -> states.put(lower(s), n));
      counts.put(lower(a), states);
    });
    doc.put("counts", counts);
    return doc;
  }

  /**
   * {@code GET /actuator/segmentledger/{broadcast}/{action}}: {@link #broadcastRows}, answered 503
   * with what to narrow when its read outlasts the bound.
   */
  @ReadOperation
  public WebEndpointResponse<Map<String, Object>> broadcastRowsOperation(@Selector String broadcast,
      @Selector String action, @Nullable String axis, @Nullable String state, @Nullable String reason,
      @Nullable Integer limit, @Nullable String order, @Nullable Long after) {
    try {
      return new WebEndpointResponse<>(broadcastRows(broadcast, action, axis, state, reason, limit, order, after));
    } catch (QueryTimeoutException e) {
      return tookTooLong(e);
    }
  }

  /**
   * {@code rows}: one page of a broadcast's rows. {@code reconcile} is a POST: a GET of it is refused.
   *
   * @throws InvalidEndpointRequestException if a parameter is not valid
   * @throws QueryTimeoutException if the read outlasted the bound ({@link #broadcastRowsOperation}
   *     answers it 503)
   */
  public Map<String, Object> broadcastRows(@Selector String broadcast, @Selector String action,
      @Nullable String axis, @Nullable String state, @Nullable String reason, @Nullable Integer limit,
      @Nullable String order, @Nullable Long after) {
    if ("reconcile".equals(action)) {
      String message = "reconcile is a POST to /actuator/segmentledger/" + broadcast + "/reconcile: one bounded step"
          + " (body: maxChecks 1-" + ReconcileRequest.MAX_CHECKS + ", maxSeconds 1-"
          + ReconcileRequest.MAX_DURATION.toSeconds() + ", cursor: the next of the previous step)";
      throw new InvalidEndpointRequestException(message, message);
    }
    if (!"rows".equals(action)) {
      throw new InvalidEndpointRequestException("unknown operation '" + Printable.escape(action)
          + "': rows (GET) or reconcile (POST)", "unknown operation");
    }
    if (broadcast == null || broadcast.isEmpty()) {
      throw new InvalidEndpointRequestException("a broadcast is required", "a broadcast is required");
    }
    return page(broadcast, axis, state == null ? List.of() : null, state, reason, limit,
        order == null ? RowQuery.Order.OLDEST_FIRST : null, order, after);
  }

  /**
   * One bounded step of comparing a broadcast with the bucket; a report only unless {@code repair}
   * and this endpoint re-opens ({@link SegmentLedgerReopenEndpoint}).
   */
  @WriteOperation
  public Map<String, Object> reconcile(@Selector String broadcast, @Selector String action,
      @Nullable Integer maxChecks, @Nullable Integer maxSeconds, @Nullable String cursor, @Nullable Boolean repair) {
    if (!"reconcile".equals(action)) {
      throw new InvalidEndpointRequestException("unknown operation '" + Printable.escape(action)
          + "': only reconcile", "unknown operation");
    }
    boolean repairing = Boolean.TRUE.equals(repair);
    if (repairing && !repairs()) {
      String message = "repair re-opens rows: it needs segment-ledger.endpoint.reopen-enabled=true";
      throw new InvalidEndpointRequestException(message, message);
    }
    ReconcileStep step;
    try {
      ReconcileRequest.Builder request = ReconcileRequest.builder(broadcast).repair(repairing).cursor(cursor);
      if (maxChecks != null) {
        request.maxChecks(maxChecks);
      }
      if (maxSeconds != null) {
        request.maxDuration(Duration.ofSeconds(maxSeconds));
      }
      step = ledger.reconcile(request.build());
    } catch (IllegalArgumentException e) {
      throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
    }
    return EndpointDocuments.step(step);
  }

  /** Whether this endpoint may repair (re-open rows); {@code false}: reports only. */
  protected boolean repairs() {
    return false;
  }

  private Map<String, Object> page(@Nullable String broadcast, @Nullable String axis,
      @Nullable List<ItemState> defaultStates, @Nullable String state, @Nullable String reason,
      @Nullable Integer limit, RowQuery.@Nullable Order defaultOrder, @Nullable String order, @Nullable Long after) {
    RowQuery query;
    try {
      query = RowQuery.builder()
          .states(defaultStates != null ? defaultStates : parseAll(ItemState.class, "state", state))
          .reasons(reason == null ? List.of() : parseAll(Reason.class, "reason", reason))
          .axis(axis == null ? null : parse(Axis.class, "axis", axis))
          .broadcastId(broadcast)
          .order(defaultOrder != null ? defaultOrder : parse(RowQuery.Order.class, "order", order))
          .limit(limit == null ? 50 : limit)
          .after(after == null ? 0 : after)
          .build();
    } catch (IllegalArgumentException e) {
      throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
    }
    Page<LedgerItem> page = rowReads != null ? rowReads.findRows(query) : ledger.items(query);
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("items", page.items().stream().map(SegmentLedgerEndpoint::row).toList());
    doc.put("next", page.hasNext() ? page.next().getAsLong() : null);
    return doc;
  }

  /** A 503 (the server did not answer in time, as the console answers it) that says what to narrow. */
  private static WebEndpointResponse<Map<String, Object>> tookTooLong(QueryTimeoutException e) {
    String message = "the query took longer than " + e.bound().toMillis() + " ms and was cancelled: a filter that"
        + " matches few rows of a large ledger reads many of them; narrow it with a broadcast, a state other than"
        + " confirmed, or a reason";
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("status", WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
    doc.put("error", "query timeout");
    doc.put("message", message);
    return new WebEndpointResponse<>(doc, WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
  }

  static Map<String, Object> row(LedgerItem row) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("rowId", row.rowId());
    json.put("broadcast", row.id().broadcastId());
    json.put("axis", lower(row.id().axis()));
    json.put("rendition", row.id().rendition());
    json.put("sequence", row.id().sequence());
    json.put("key", row.objectKey());
    json.put("state", lower(row.state()));
    json.put("reason", row.reason() == null ? null : lower(row.reason()));
    json.put("attempts", row.attempts());
    json.put("lastError", Printable.truncate(row.lastError(), LAST_ERROR_IN_LISTS));
    json.put("sizeBytes", row.sizeBytes());
    json.put("registeredAt", text(row.registeredAt()));
    json.put("nextAttemptAt", text(row.nextAttemptAt()));
    json.put("confirmedAt", text(row.confirmedAt()));
    return json;
  }

  private static String text(Instant instant) {
    return instant == null ? null : instant.toString();
  }

  static String lower(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }

  static <E extends Enum<E>> E parse(Class<E> type, String parameter, String text) {
    try {
      return Enum.valueOf(type, text.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      List<String> allowed = new ArrayList<>();
      for (E value : type.getEnumConstants()) {
        allowed.add(lower(value));
      }
      throw new IllegalArgumentException(parameter + " must be one of " + allowed + ", was '" + text + "'", e);
    }
  }

  static <E extends Enum<E>> List<E> parseAll(Class<E> type, String parameter, String text) {
    List<E> values = new ArrayList<>();
    for (String part : text.split(",")) {
      if (!part.isBlank()) {
        values.add(parse(type, parameter, part));
      }
    }
    return values;
  }
}
