package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.testkit.PostgresExtension;
import java.time.Instant;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every statement that changes "up to {@code limit}" rows picked by a locking subquery changes at
 * most that many under any plan PostgreSQL may choose. The planner is forced here into the plan
 * that once broke the bound: a nested loop that runs the subquery again for each outer row. Each
 * run locks the rows the same statement already changed, finds them modified by itself, skips them
 * and returns the next ones, so a limit of 1 changed 2 rows (seen in CI when table statistics
 * happened to favour that plan). The picked rows are now a materialized CTE, read once.
 */
class BoundedUpdatesPlanTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final String RESCANNING_PLANS = "SET enable_hashjoin = off; SET enable_mergejoin = off;"
      + " SET enable_material = off; SET enable_hashagg = off; SET enable_sort = off;"
      + " SET enable_indexscan = off; SET enable_bitmapscan = off";

  private static HikariDataSource dataSource;
  private static JdbiStateStore store;

  @BeforeAll
  static void openStoreWhosePlansRescanSubqueries() {
    HikariConfig pool = new HikariConfig();
    pool.setDataSource(PG.dataSource());
    pool.setMaximumPoolSize(2);
    pool.setConnectionInitSql(RESCANNING_PLANS);
    dataSource = new HikariDataSource(pool);
    store = JdbiStateStore.create(Jdbi.create(dataSource)).migrate();
  }

  @AfterAll
  static void close() {
    dataSource.close();
  }

  @BeforeEach
  void emptyLedger() {
    Jdbi.create(dataSource).useHandle(handle -> handle.execute("TRUNCATE segment_ledger_item, segment_ledger_playlist"));
  }

  @Test
  void aHandOverMovesAtMostTheLimit() {
    registerOpenRows("host-a", 3);
    assertEquals(1, store.handOver("host-a", "host-b", 1));
    assertEquals(2, store.handOver("host-a", "host-b", 5));
  }

  @Test
  void aLostStorageRejectsAtMostTheLimit() {
    registerOpenRows("host-a", 3);
    assertEquals(1, store.markStorageLost("host-a", "gone", T0, 1));
    assertEquals(2, store.markStorageLost("host-a", "gone", T0, 5));
  }

  @Test
  void aCutoffExcludesAtMostTheLimit() {
    registerOpenRows(null, 3);
    assertEquals(1, store.excludeRegisteredBefore(T0.plusSeconds(1), T0, 1));
    assertEquals(2, store.excludeRegisteredBefore(T0.plusSeconds(1), T0, 5));
  }

  @Test
  void aPlaylistClaimLeasesAtMostTheLimit() {
    for (int i = 0; i < 3; i++) {
      store.playlists().requestPublication("b" + i, "720p", T0);
    }
    assertEquals(1, store.playlists().claimDue("n1", T0.plusSeconds(60), T0, 1).size());
    assertEquals(2, store.playlists().claimDue("n1", T0.plusSeconds(60), T0, 5).size());
  }

  private static void registerOpenRows(String group, int count) {
    for (int i = 0; i < count; i++) {
      store.register(NewItem.pending(ItemId.original("b1", "720p", i), "/rec/" + i + ".ts", 10, T0)
          .inStorageGroup(group));
    }
  }
}
