package dev.segmentledger.it;

import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.rig.AcceptanceProtocolTests;
import dev.segmentledger.testkit.PostgresExtension;
import java.sql.Connection;
import java.sql.SQLException;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The acceptance protocol of docs/design.md on PostgreSQL (JdbiStateStore), reference conditions: 128
 * rows per round, queue capacity 4,096 (the cases are {@link AcceptanceProtocolTests}). Each run starts
 * from an empty table.
 */
class AcceptanceProtocolPostgresTest extends AcceptanceProtocolTests {
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

  @Override
  protected StateStore emptyStore() {
    jdbi.useHandle(h -> h.execute("TRUNCATE segment_ledger_item, segment_ledger_broadcast"));
    return store;
  }
}
