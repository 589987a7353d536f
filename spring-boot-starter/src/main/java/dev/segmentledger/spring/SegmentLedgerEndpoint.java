package dev.segmentledger.spring;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.BroadcastStatus;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.ReconciliationReport;
import dev.segmentledger.core.spi.Page;
import dev.segmentledger.core.spi.RowQuery;
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

/**
 * The {@code segmentledger} actuator endpoint, read-only:
 * <ul>
 *   <li>{@code GET /actuator/segmentledger}: rows that are not confirmed (PENDING, WAITING, REJECTED,
 *       EXCLUDED), newest first, one page at a time; parameters {@code broadcast}, {@code axis},
 *       {@code state} and {@code reason} (comma-separated), {@code limit}, {@code order}
 *       (newest_first, oldest_first), and {@code after}: the {@code next} of the previous page;
 *   <li>{@code GET /actuator/segmentledger/{broadcast}}: that broadcast's status;
 *   <li>{@code GET /actuator/segmentledger/{broadcast}/reconcile}: rows compared with the bucket, a
 *       report only (nothing repaired).
 * </ul>
 * With {@code segment-ledger.endpoint.reopen-enabled=true} it is a {@link SegmentLedgerReopenEndpoint},
 * which also re-opens rows.
 */
@Endpoint(id = SegmentLedgerEndpoint.ID)
public class SegmentLedgerEndpoint {
  /** The endpoint id. */
  public static final String ID = "segmentledger";

  /** The states listed when none is asked for: every state but CONFIRMED. */
  static final List<ItemState> STUCK = List.of(ItemState.PENDING, ItemState.WAITING, ItemState.REJECTED,
      ItemState.EXCLUDED);

  /** The ledger the operations read. */
  protected final Ledger ledger;

  /** Operations on {@code ledger}. */
  public SegmentLedgerEndpoint(Ledger ledger) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
  }

  /** One page of rows not confirmed (or of the states asked for). */
  @ReadOperation
  public Map<String, Object> rows(@Nullable String broadcast, @Nullable String axis, @Nullable String state,
      @Nullable String reason, @Nullable Integer limit, @Nullable String order, @Nullable Long after) {
    RowQuery query;
    try {
      RowQuery.Builder builder = RowQuery.builder()
          .states(state == null ? STUCK : parseAll(ItemState.class, "state", state))
          .reasons(reason == null ? List.of() : parseAll(Reason.class, "reason", reason))
          .axis(axis == null ? null : parse(Axis.class, "axis", axis))
          .broadcastId(broadcast)
          .order(order == null ? RowQuery.Order.NEWEST_FIRST : parse(RowQuery.Order.class, "order", order))
          .limit(limit == null ? 50 : limit)
          .after(after == null ? 0 : after);
      query = builder.build();
    } catch (IllegalArgumentException e) {
      throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
    }
    Page<LedgerItem> page = ledger.items(query);
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("items", page.items().stream().map(SegmentLedgerEndpoint::row).toList());
    doc.put("next", page.hasNext() ? page.next().getAsLong() : null);
    return doc;
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

  /** Compares one broadcast's confirmed rows with the bucket: a report, nothing repaired. */
  @ReadOperation
  public Map<String, Object> reconcile(@Selector String broadcast, @Selector String action) {
    if (!"reconcile".equals(action)) {
      throw new InvalidEndpointRequestException("unknown operation '" + action + "': only reconcile",
          "unknown operation");
    }
    ReconciliationReport report;
    try {
      report = ledger.reconcile(broadcast);
    } catch (IllegalArgumentException e) {
      throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
    }
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("broadcast", report.broadcastId());
    doc.put("checkedAt", report.checkedAt().toString());
    doc.put("consistent", report.isConsistent());
    List<Map<String, Object>> differences = new ArrayList<>();
    for (ReconciliationReport.Difference d : report.differences()) {
      Map<String, Object> one = new LinkedHashMap<>();
      one.put("kind", lower(d.kind()));
      one.put("axis", d.axis().map(SegmentLedgerEndpoint::lower).orElse(null));
      one.put("key", d.key());
      one.put("rowId", d.row() == null ? null : d.row().rowId());
      one.put("rowSizeBytes", d.row() == null ? null : d.row().sizeBytes());
      one.put("objectSizeBytes", d.object() == null ? null : d.object().sizeBytes());
      differences.add(one);
    }
    doc.put("differences", differences);
    doc.put("unfinishedUploads", report.unfinishedUploads().stream().map(u -> {
      Map<String, Object> upload = new LinkedHashMap<>();
      upload.put("key", u.key());
      upload.put("ageSeconds", u.age() == null ? null : u.age().toSeconds());
      return upload;
    }).toList());
    return doc;
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
    json.put("lastError", row.lastError());
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
