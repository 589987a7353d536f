package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.core.spi.QueryTimeoutException;
import dev.segmentledger.core.spi.StateStore;
import dev.segmentledger.core.spi.StoreException;
import dev.segmentledger.testkit.PostgresExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link JdbiStateStore#withReadTimeout}: a read that outlasts its bound is cancelled by the server
 * and reported as a {@link QueryTimeoutException} (nothing written), and the bound is the read's
 * own: on a pool of one connection, the next user of that connection finds the server's default
 * statement timeout. An open transaction holding the table's ACCESS EXCLUSIVE lock stands in for a
 * long scan (a statement timeout counts the wait for a lock as it counts a scan).
 */
class BoundedReadsTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();
  private static HikariDataSource oneConnection;

  @BeforeAll
  static void migrate() {
    JdbiStateStore.create(Jdbi.create(PG.dataSource())).migrate();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(PG.jdbcUrl());
    config.setUsername(PG.user());
    config.setPassword(PG.password());
    config.setMaximumPoolSize(1);
    oneConnection = new HikariDataSource(config);
  }

  @AfterAll
  static void close() {
    oneConnection.close();
  }

  @Test
  void aReadThatOutlastsItsBoundIsCancelledAndTheBoundEndsWithIt() throws Exception {
    Jdbi pooled = Jdbi.create(oneConnection);
    String before = pooled.withHandle(h -> h.createQuery("SHOW statement_timeout").mapTo(String.class).one());
    StateStore bounded = JdbiStateStore.create(pooled).withReadTimeout(Duration.ofMillis(300));
    try (Connection walker = PG.dataSource().getConnection(); Statement statement = walker.createStatement()) {
      walker.setAutoCommit(false);
      statement.execute("LOCK TABLE segment_ledger_item IN ACCESS EXCLUSIVE MODE");
      long start = System.nanoTime();
      QueryTimeoutException e = assertThrows(QueryTimeoutException.class, () -> bounded.findRows(
          RowQuery.builder().states(ItemState.CONFIRMED).minAttempts(1_000_000).build()));
      long tookMillis = (System.nanoTime() - start) / 1_000_000;
      walker.rollback();
      assertEquals(Duration.ofMillis(300), e.bound());
      assertEquals(StoreException.Outcome.NOT_WRITTEN, e.outcome());
      assertTrue(tookMillis >= 250 && tookMillis < 5_000, "cancelled after about its bound: " + tookMillis + " ms");
    }
    assertEquals(before, pooled.withHandle(h -> h.createQuery("SHOW statement_timeout").mapTo(String.class).one()),
        "the connection goes back to its pool as it came");
    assertTrue(bounded.findRows(RowQuery.builder().states(ItemState.CONFIRMED).build()).items().isEmpty());
  }

  @Test
  void aBoundMustBePositive() {
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(oneConnection));
    assertThrows(IllegalArgumentException.class, () -> store.withReadTimeout(Duration.ZERO));
  }
}
