package dev.segmentledger.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.rig.AcceptanceHarness;
import dev.segmentledger.rig.AcceptanceRun;
import dev.segmentledger.testkit.PostgresExtension;
import java.sql.Connection;
import java.sql.SQLException;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The acceptance protocol of docs/design.md on PostgreSQL (JdbiStateStore), reference conditions: 128
 * rows per round, queue capacity 4,096. Each run starts from an empty table.
 */
class AcceptanceProtocolPostgresTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();

  private static Connection connection;
  private static Jdbi jdbi;
  private static JdbiStateStore store;

  /**
   * One connection for the class: the harness drives the store from one thread, and the
   * extension's data source is unpooled (a new connection per store call would dominate the
   * seeding of thousands of rows).
   */
  @BeforeAll
  static void migrate() throws SQLException {
    connection = PG.dataSource().getConnection();
    jdbi = Jdbi.create(connection);
    store = JdbiStateStore.create(jdbi).migrate();
  }

  @AfterAll
  static void closeConnection() throws SQLException {
    connection.close();
  }

  @BeforeEach
  void emptyTable() {
    jdbi.useHandle(h -> h.execute("TRUNCATE segment_ledger_item, segment_ledger_broadcast"));
  }

  private static AcceptanceRun run(int waiting, int ghosts) {
    return AcceptanceHarness.builder().store(store).waitingRows(waiting).ghostRows(ghosts).build().run();
  }

  private static void assertAcceptedBy(AcceptanceRun run, long round) {
    assertTrue(run.allAccepted(), run::toString);
    assertEquals(round, run.lastAcceptedRound(), run::toString);
    assertEquals(0, run.saturated(), run::toString);
    assertEquals(0, run.statsSaturated(), run::toString);
  }

  @RepeatedTest(5)
  void reference128IsAcceptedInRound1() {
    assertAcceptedBy(run(128, 0), 1);
  }

  @RepeatedTest(5)
  void reference1100IsAcceptedByRound9() {
    assertAcceptedBy(run(1_100, 0), 9);
  }

  @RepeatedTest(5)
  void reference4096IsAcceptedByRound32() {
    assertAcceptedBy(run(4_096, 0), 32);
  }

  @ParameterizedTest(name = "N={0} G={1}")
  @CsvSource({"1, 0", "127, 0", "129, 0", "1000, 0", "3000, 0", "1, 500", "129, 500", "1100, 500", "4096, 500"})
  void anyNIsAcceptedByCeilNOver128(int waiting, int ghosts) {
    assertAcceptedBy(run(waiting, ghosts), (waiting + 127) / 128);
  }

  @Test
  void tenThousandGhostsInFrontTakeNoSlot() {
    assertAcceptedBy(run(1_100, 10_000), 9);
  }
}
