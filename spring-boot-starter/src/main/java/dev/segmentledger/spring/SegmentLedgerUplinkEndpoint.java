package dev.segmentledger.spring;

import dev.segmentledger.core.Lane;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.Uplink;
import dev.segmentledger.core.UplinkStats;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * How this node shares its uplink, and its bandwidth cap turned at run time (a separate endpoint:
 * {@code /actuator/segmentledger/{broadcast}} would take a segment named {@code uplink}):
 * <ul>
 *   <li>{@code GET /actuator/segmentledgeruplink}: the settings in force (lanes, reserved shares,
 *       backfill aging, bytes and requests a second, 0 meaning no cap), per lane the work queued,
 *       the oldest wait and the work taken since start, the body bytes sent and the time spent
 *       waiting for the cap since start ({@link Ledger#uplinkStats()});
 *   <li>{@code POST /actuator/segmentledgeruplink}, body {@code bytesPerSecond} and/or {@code
 *       requestsPerSecond} (one absent keeps its value; 0: no cap): changes this node's configured cap
 *       at once ({@link Ledger#uplink(Uplink)}) and answers the view after it; a byte cap given
 *       replaces a configured timetable ({@code segment-ledger.uplink.timetable}) until the next refresh. A negative value is a
 *       400 with the reason. A cap stored in the ledger for this node or for every node (the command
 *       line's {@code uplink}) stays in force over the one set here until it is removed.
 * </ul>
 * Who may call the write operation is Spring's {@code management.endpoint.segmentledgeruplink.access}
 * (and the exposure of the endpoint). Thread-safe.
 */
@Endpoint(id = SegmentLedgerUplinkEndpoint.ID)
public class SegmentLedgerUplinkEndpoint {
  /** The endpoint id. */
  public static final String ID = "segmentledgeruplink";

  private final Ledger ledger;

  /** The uplink of {@code ledger}. */
  public SegmentLedgerUplinkEndpoint(Ledger ledger) {
    this.ledger = Objects.requireNonNull(ledger, "ledger");
  }

  /** {@code GET}: the settings in force and the lanes' and the cap's counters. */
  @ReadOperation
  public Map<String, Object> uplink() {
    UplinkStats stats = ledger.uplinkStats();
    Uplink settings = stats.settings();
    Map<String, Object> doc = new LinkedHashMap<>();
    Map<String, Object> inForce = new LinkedHashMap<>();
    inForce.put("lanes", settings.lanes());
    inForce.put("originalShare", settings.originalShare());
    inForce.put("backfillShare", settings.backfillShare());
    inForce.put("backfillAgingAfterMillis", settings.backfillAgingAfter().toMillis());
    inForce.put("bytesPerSecond", settings.bytesPerSecond());
    inForce.put("requestsPerSecond", settings.requestsPerSecond());
    if (settings.timetable() != null) {
      inForce.put("timetable", settings.timetable().toString()); // bytesPerSecond is its entry in force
    }
    doc.put("settings", inForce);
    Map<String, Object> lanes = new LinkedHashMap<>();
    for (Lane lane : Lane.values()) {
      UplinkStats.LaneStats one = stats.lanes().get(lane);
      Map<String, Object> laneDoc = new LinkedHashMap<>();
      laneDoc.put("queued", one.queued());
      laneDoc.put("oldestWaitMillis", one.oldestWait().toMillis());
      laneDoc.put("taken", one.taken());
      lanes.put(lane.name(), laneDoc);
    }
    doc.put("lanes", lanes);
    doc.put("bodyBytes", stats.bodyBytes());
    doc.put("tokenWaitMillis", stats.tokenWait().toMillis());
    return doc;
  }

  /** {@code POST}: changes this node's configured cap; a value not given keeps its value. */
  @WriteOperation
  public Map<String, Object> changeCap(@Nullable Long bytesPerSecond, @Nullable Long requestsPerSecond) {
    if (bytesPerSecond == null && requestsPerSecond == null) {
      String message = "give bytesPerSecond and/or requestsPerSecond (0: no cap)";
      throw new InvalidEndpointRequestException(message, message);
    }
    if (bytesPerSecond != null && bytesPerSecond < 0 || requestsPerSecond != null && requestsPerSecond < 0) {
      String message = "a cap must not be negative (0: no cap), got bytesPerSecond " + bytesPerSecond
          + " and requestsPerSecond " + requestsPerSecond;
      throw new InvalidEndpointRequestException(message, message);
    }
    synchronized (this) { // two changes at once never lose one's value
      Uplink.Builder changed = ledger.uplink().toBuilder();
      if (bytesPerSecond != null) {
        changed.bytesPerSecond(bytesPerSecond).timetable(null); // the cap given, not a timetable's entry
      }
      if (requestsPerSecond != null) {
        changed.requestsPerSecond(requestsPerSecond);
      }
      ledger.uplink(changed.build());
    }
    return uplink();
  }
}
