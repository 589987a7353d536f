package dev.segmentledger.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.core.spi.StoredUplinkCap;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.PostgresExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code uplink} on PostgreSQL: stores a cap for a node or for every node (keeping the value not
 * given), lists them as a table or JSON, removes them, and refuses bad input with nothing stored.
 */
class UplinkCommandTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static final Instant AT = Instant.parse("2026-12-05T07:00:00Z");
  private static JdbiStateStore store;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeAll
  static void migrate() {
    store = JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
  }

  @BeforeEach
  void noCaps() {
    store.uplinkCaps().forEach(cap -> store.removeUplinkCap(cap.node()));
  }

  private int cli(String... args) {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    return SegmentLedgerCli.run(Clock.fixed(AT, ZoneOffset.UTC), new PrintWriter(out), new PrintWriter(err),
        DatabaseArguments.of(PG, args));
  }

  @Test
  void aCapIsStoredForANodeAndForEveryNodeListedAndRemoved() {
    assertEquals(0, cli("uplink"));
    assertTrue(out.toString().contains("no uplink cap is stored"), out::toString);

    assertEquals(0, cli("uplink", "--node", "recorder-1", "--bytes-per-second", "20MiB"), err::toString);
    assertTrue(out.toString().contains("node recorder-1: 20 MiB/s, no request cap"), out::toString);
    assertEquals(0, cli("uplink", "--node", "recorder-1", "--requests-per-second", "50"), err::toString);
    assertEquals(0, cli("uplink", "--every-node", "--bytes-per-second", "1.5MiB"), err::toString);
    assertEquals(List.of(new StoredUplinkCap("*", 1_572_864, 0, AT), new StoredUplinkCap("recorder-1", 20L << 20, 50, AT)),
        store.uplinkCaps(), "the requests cap added, the bytes kept");

    assertEquals(0, cli("uplink"));
    assertTrue(out.toString().contains("recorder-1") && out.toString().contains("1.5 MiB/s"), out::toString);
    assertEquals(0, cli("uplink", "--json"));
    assertTrue(out.toString().contains("\"bytesPerSecond\":20971520"), out::toString);

    assertEquals(0, cli("uplink", "--node", "recorder-1", "--clear"));
    assertTrue(out.toString().contains("removed the uplink cap of node recorder-1"), out::toString);
    assertEquals(SegmentLedgerCli.EXIT_DIFFERENCES, cli("uplink", "--node", "recorder-1", "--clear"));
    assertTrue(out.toString().contains("no uplink cap was stored for node recorder-1"), out::toString);
    assertEquals(List.of(new StoredUplinkCap("*", 1_572_864, 0, AT)), store.uplinkCaps());
  }

  @Test
  void badInputIsAUsageErrorAndStoresNothing() {
    assertEquals(SegmentLedgerCli.EXIT_ERROR, cli("uplink", "--node", "n1", "--bytes-per-second", "20 MB"));
    assertTrue(err.toString().contains("KiB, MiB or GiB"), err::toString);
    assertEquals(SegmentLedgerCli.EXIT_ERROR, cli("uplink", "--bytes-per-second", "1MiB"));
    assertTrue(err.toString().contains("--node NODE or --every-node"), err::toString);
    assertEquals(SegmentLedgerCli.EXIT_ERROR, cli("uplink", "--node", "n1"));
    assertEquals(SegmentLedgerCli.EXIT_ERROR, cli("uplink", "--node", "n1", "--requests-per-second", "-1"));
    assertEquals(SegmentLedgerCli.EXIT_ERROR, cli("uplink", "--node", "n1", "--every-node", "--clear"));
    assertEquals(List.of(), store.uplinkCaps());
  }

  @Test
  void sizesAreReadInBinaryUnits() {
    assertEquals(0, UplinkCommand.bytesPerSecond("off"));
    assertEquals(0, UplinkCommand.bytesPerSecond("0"));
    assertEquals(1000, UplinkCommand.bytesPerSecond("1000"));
    assertEquals(512 * 1024, UplinkCommand.bytesPerSecond("512KiB"));
    assertEquals(20L << 20, UplinkCommand.bytesPerSecond("20 mib"));
    assertEquals(3L << 29, UplinkCommand.bytesPerSecond("1.5GiB"));
    assertThrows(IllegalArgumentException.class, () -> UplinkCommand.bytesPerSecond("-1"));
    assertThrows(IllegalArgumentException.class, () -> UplinkCommand.bytesPerSecond("9999999999GiB"));
    assertEquals(0, UplinkCommand.bytesPerSecond("0.0MiB"), "a zero in any unit is no cap");
    assertThrows(IllegalArgumentException.class, () -> UplinkCommand.bytesPerSecond("0.5"),
        "a cap under one byte a second would silently be no cap");
    assertThrows(IllegalArgumentException.class, () -> UplinkCommand.bytesPerSecond("0.0000001KiB"));
    assertEquals("20 MiB/s", UplinkCommand.rate(20L << 20));
    assertEquals("1.5 MiB/s", UplinkCommand.rate(1_572_864));
    assertEquals("1000 B/s", UplinkCommand.rate(1000));
    assertEquals("none", UplinkCommand.rate(0));
  }
}
