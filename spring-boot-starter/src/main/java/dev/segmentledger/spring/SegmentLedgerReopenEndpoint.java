package dev.segmentledger.spring;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.Reason;
import dev.segmentledger.core.spi.StateStore;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code segmentledger} endpoint with its write operation, present only with {@code
 * segment-ledger.endpoint.reopen-enabled=true}: {@code POST /actuator/segmentledger} with a JSON
 * body re-opens rows, either every row of {@code broadcast} rejected for {@code reason}, or the one
 * row of {@code broadcast}, {@code axis}, {@code rendition} and {@code sequence} (none for init). See
 * {@link Ledger#reopen(String, Reason)} and {@link Ledger#reopen(ItemId)}. Its reconcile steps may
 * repair ({@code "repair": true}).
 */
@Endpoint(id = SegmentLedgerEndpoint.ID)
public class SegmentLedgerReopenEndpoint extends SegmentLedgerEndpoint {

  /** Operations on {@code ledger}, re-opening included. */
  public SegmentLedgerReopenEndpoint(Ledger ledger) {
    super(ledger);
  }

  /** Operations on {@code ledger}, re-opening included, rows pages bounded in time (see the superclass). */
  public SegmentLedgerReopenEndpoint(Ledger ledger, @Nullable StateStore store) {
    super(ledger, store);
  }

  /** {@code true}: this endpoint's reconcile steps may repair. */
  @Override
  protected boolean repairs() {
    return true;
  }

  /** Re-opens rows; answers how many. */
  @WriteOperation
  public Map<String, Object> reopen(String broadcast, @Nullable String reason, @Nullable String axis,
      @Nullable String rendition, @Nullable Long sequence) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("broadcast", broadcast);
    try {
      if (axis == null) {
        if (reason == null) {
          throw new IllegalArgumentException("give reason (every row of the broadcast rejected for it) or axis,"
              + " rendition and sequence (one row)");
        }
        Reason r = parse(Reason.class, "reason", reason);
        doc.put("reason", lower(r));
        doc.put("reopened", ledger.reopen(broadcast, r));
        return doc;
      }
      Axis a = parse(Axis.class, "axis", axis);
      if (rendition == null || (a != Axis.INIT && sequence == null)) {
        throw new IllegalArgumentException("one row needs rendition" + (a == Axis.INIT ? "" : " and sequence"));
      }
      ItemId id = switch (a) {
        case ORIGINAL -> ItemId.original(broadcast, rendition, sequence);
        case PLAYBACK -> ItemId.playback(broadcast, rendition, sequence);
        case INIT -> ItemId.init(broadcast, rendition);
      };
      doc.put("key", id.objectKey());
      doc.put("reopened", ledger.reopen(id) ? 1 : 0);
      return doc;
    } catch (IllegalArgumentException e) {
      throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
    }
  }
}
