package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.QueryTimeoutException;
import dev.segmentledger.core.StoreException;
import dev.segmentledger.core.query.RowQuery;
import dev.segmentledger.core.spi.StateStore;
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
      assertEquals(StoreException.Outcome.NOT_WRITTEN, e.writeOutcome());
      assertTrue(tookMillis >= 250 && tookMillis < 5_000, "cancelled after about its bound: " + tookMillis + " ms");
    }
    assertEquals(before, pooled.withHandle(h -> h.createQuery("SHOW statement_timeout").mapTo(String.class).one()),
        "the connection goes back to its pool as it came");
    assertTrue(bounded.findRows(RowQuery.builder().states(ItemState.CONFIRMED).build()).items().isEmpty());
  }

  /**
   * Inside a transaction the application holds on the same thread (Jdbi hands the store the same
   * handle, on the pool's one connection), a bounded read leaves the transaction's statement timeout
   * as it was, and one cancelled for its bound leaves the transaction usable.
   */
  @Test
  void aBoundedReadInsideTheCallersTransactionLeavesItAsItWas() throws Exception {
    Jdbi pooled = Jdbi.create(oneConnection);
    StateStore bounded = JdbiStateStore.create(pooled).withReadTimeout(Duration.ofMillis(300));
    pooled.useTransaction(handle -> {
      handle.execute("SET LOCAL statement_timeout = '7s'");
      handle.execute("CREATE TEMP TABLE callers_work (n int) ON COMMIT DROP");
      assertTrue(bounded.findRows(RowQuery.builder().states(ItemState.CONFIRMED).build()).items().isEmpty());
      assertEquals("7s", statementTimeout(handle), "the caller's statement timeout after a bounded read");
      try (Connection walker = PG.dataSource().getConnection(); Statement statement = walker.createStatement()) {
        walker.setAutoCommit(false);
        statement.execute("SET LOCAL lock_timeout = '5s'"); // the caller's transaction must hold no lock of the read
        statement.execute("LOCK TABLE segment_ledger_item IN ACCESS EXCLUSIVE MODE");
        assertThrows(QueryTimeoutException.class, () -> bounded.findRows(
            RowQuery.builder().states(ItemState.CONFIRMED).minAttempts(1_000_000).build()));
        walker.rollback();
      }
      assertEquals(1, handle.execute("INSERT INTO callers_work VALUES (1)"),
          "the caller's transaction goes on after a bounded read was cancelled");
      assertEquals("7s", statementTimeout(handle), "the caller's statement timeout after a cancelled read");
    });
  }

  @Test
  void playlistReadsAreBoundedToo() throws Exception {
    StateStore bounded = JdbiStateStore.create(Jdbi.create(oneConnection)).withReadTimeout(Duration.ofMillis(300));
    try (Connection walker = PG.dataSource().getConnection(); Statement statement = walker.createStatement()) {
      walker.setAutoCommit(false);
      statement.execute("LOCK TABLE segment_ledger_playlist IN ACCESS EXCLUSIVE MODE");
      try {
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
          assertThrows(QueryTimeoutException.class, () -> bounded.playlists().countAwaitingPublication());
          assertThrows(QueryTimeoutException.class, () -> bounded.playlists().find("b1"));
        }, "a playlist read waits for the lock unless bounded");
      } finally {
        walker.rollback();
      }
    }
  }

  @Test
  void aBoundMustBePositiveAndFitTheServersSetting() {
    JdbiStateStore store = JdbiStateStore.create(Jdbi.create(oneConnection));
    assertThrows(IllegalArgumentException.class, () -> store.withReadTimeout(Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> store.withReadTimeout(Duration.ofMillis(Integer.MAX_VALUE + 1L)),
        "statement_timeout takes at most Integer.MAX_VALUE ms");
    store.withReadTimeout(Duration.ofMillis(Integer.MAX_VALUE));
  }

  private static String statementTimeout(org.jdbi.v3.core.Handle handle) {
    return handle.createQuery("SHOW statement_timeout").mapTo(String.class).one();
  }
}
