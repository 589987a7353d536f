package dev.segmentledger.jdbi;

import static dev.segmentledger.jdbi.Sql.UPLINK_CAPS;
import static dev.segmentledger.jdbi.Sql.micros;

import dev.segmentledger.core.spi.StoredUplinkCap;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Objects;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

/** The stored uplink caps ({@code segment_ledger_uplink_cap}, V19): one row per capped node. Stateless. */
final class UplinkCaps {
  private final Jdbi jdbi;

  UplinkCaps(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  /** Every cap in node order (byte order, so that {@code *} is first whatever the collation). */
  List<StoredUplinkCap> all() {
    try {
      return jdbi.withHandle(handle -> handle.createQuery("SELECT node, bytes_per_second, requests_per_second,"
              + " set_at FROM " + UPLINK_CAPS + " ORDER BY node COLLATE \"C\"")
          .map((rs, ctx) -> new StoredUplinkCap(rs.getString("node"), rs.getLong("bytes_per_second"),
              rs.getLong("requests_per_second"), rs.getObject("set_at", OffsetDateTime.class).toInstant()))
          .list());
    } catch (JdbiException e) {
      throw StoreFailures.of("reading the uplink caps", e, false);
    }
  }

  /** One upsert. */
  void put(StoredUplinkCap cap) {
    Objects.requireNonNull(cap, "cap");
    try {
      jdbi.useHandle(handle -> handle.createUpdate("INSERT INTO " + UPLINK_CAPS
              + " (node, bytes_per_second, requests_per_second, set_at) VALUES (:node, :bytes, :requests, :at)"
              + " ON CONFLICT (node) DO UPDATE SET bytes_per_second = EXCLUDED.bytes_per_second,"
              + " requests_per_second = EXCLUDED.requests_per_second, set_at = EXCLUDED.set_at")
          .bind("node", cap.node())
          .bind("bytes", cap.bytesPerSecond())
          .bind("requests", cap.requestsPerSecond())
          .bind("at", micros(cap.setAt()))
          .execute());
    } catch (JdbiException e) {
      throw StoreFailures.of("storing the uplink cap of " + cap.node(), e, true);
    }
  }

  /** One delete; whether a row was there. */
  boolean remove(String node) {
    Objects.requireNonNull(node, "node");
    try {
      return jdbi.withHandle(handle -> handle.createUpdate("DELETE FROM " + UPLINK_CAPS + " WHERE node = :node")
          .bind("node", node)
          .execute()) > 0;
    } catch (JdbiException e) {
      throw StoreFailures.of("removing the uplink cap of " + node, e, true);
    }
  }
}
