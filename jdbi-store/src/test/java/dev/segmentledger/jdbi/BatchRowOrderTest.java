package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.LeaseRenewal;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.testkit.PostgresExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Batched confirms and lease renewals lock their rows in row-id order whatever order their entries
 * come in, so a heartbeat's renewals and a confirmer's confirms over the same rows never deadlock.
 * Each case hands the store a batch in descending row order while another transaction holds the
 * batch's highest row: the batch must then be waiting for that row while already holding its lowest
 * (a batch that locked in the order given would wait first and hold nothing).
 */
class BatchRowOrderTest {
  @RegisterExtension static final PostgresExtension PG = PostgresExtension.create();

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant LEASE = T0.plusSeconds(60);
  private static final String OWNER = "node-a";
  private static final int ROWS = 5;
  private static final String LOCK_NOT_AVAILABLE = "55P03";

  private static HikariDataSource dataSource;
  private static Jdbi jdbi;
  private static JdbiStateStore store;

  @BeforeAll
  static void start() {
    HikariConfig pool = new HikariConfig();
    pool.setDataSource(PG.dataSource());
    pool.setMaximumPoolSize(4);
    dataSource = new HikariDataSource(pool);
    jdbi = Jdbi.create(dataSource);
    store = JdbiStateStore.create(jdbi).migrate();
  }

  @AfterAll
  static void stop() {
    dataSource.close();
  }

  @Test
  void aBatchOfRenewalsLocksItsRowsInRowOrder() throws Exception {
    List<LedgerItem> rows = leasedRows("renew");
    boolean[] renewed = whileTheHighestRowIsHeld(rows, descending -> store.renewAll(OWNER, descending.stream()
        .map(row -> LeaseRenewal.ofAttempt(row.rowId(), row.id().broadcastId(), LEASE, LEASE.plusSeconds(60), 0, false))
        .toList()));
    assertArrayEquals(allTrue(), renewed, "every lease renewed once the holder let go");
  }

  @Test
  void aBatchOfConfirmsLocksItsRowsInRowOrder() throws Exception {
    List<LedgerItem> rows = leasedRows("confirm");
    boolean[] confirmed = whileTheHighestRowIsHeld(rows, descending -> store.confirmAll(descending.stream()
        .map(row -> new Confirmation(row.rowId(), row.id(), ItemState.PENDING, row.sizeBytes(), "sum", T0))
        .toList()));
    assertArrayEquals(allTrue(), confirmed, "every row confirmed once the holder let go");
  }

  /** Registers {@value #ROWS} rows and leases them to {@link #OWNER} until {@link #LEASE}. */
  private static List<LedgerItem> leasedRows(String broadcast) {
    List<LedgerItem> rows = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      LedgerItem row = store.register(NewItem.pending(ItemId.original(broadcast, "720p", i), "/rec/" + i + ".ts",
          1000 + i, T0)).item();
      assertTrue(store.claim(row.rowId(), OWNER, LEASE, T0).held());
      rows.add(row);
    }
    return rows;
  }

  /**
   * Holds the highest of {@code rows} in a transaction of its own, runs {@code batch} on the rows in
   * descending order in another thread, waits until that batch waits for a lock, and then asserts
   * the batch already holds the lowest row (a {@code FOR UPDATE NOWAIT} of it is refused). Releases
   * the highest row and returns what the batch returned.
   */
  private static boolean[] whileTheHighestRowIsHeld(List<LedgerItem> rows, Function<List<LedgerItem>, boolean[]> batch)
      throws Exception {
    List<LedgerItem> descending = new ArrayList<>(rows);
    descending.sort((a, b) -> Long.compare(b.rowId(), a.rowId()));
    long highest = descending.get(0).rowId();
    long lowest = descending.get(descending.size() - 1).rowId();
    CompletableFuture<boolean[]> result;
    try (Handle holder = jdbi.open()) {
      holder.begin();
      lock(holder, highest, "");
      result = CompletableFuture.supplyAsync(() -> batch.apply(descending));
      ServerSessions.await(PG.dataSource(), "datname = current_database() AND wait_event_type = 'Lock'",
          Duration.ofSeconds(30), "the batch to wait for the held row");
      holder.execute("SAVEPOINT probe");
      JdbiException refused = null;
      try {
        lock(holder, lowest, " NOWAIT");
      } catch (JdbiException e) {
        refused = e;
        holder.execute("ROLLBACK TO SAVEPOINT probe");
      }
      assertEquals(LOCK_NOT_AVAILABLE, refused == null ? null : StoreFailures.firstSqlException(refused).getSQLState(),
          "the waiting batch holds the lowest row already: it locks in row order, whatever its entries' order");
      holder.rollback();
    }
    return result.get(30, TimeUnit.SECONDS);
  }

  private static void lock(Handle handle, long rowId, String wait) {
    assertEquals(1, handle.createQuery("SELECT id FROM segment_ledger_item WHERE id = :id FOR UPDATE" + wait)
        .bind("id", rowId).mapTo(Long.class).list().size());
  }

  private static boolean[] allTrue() {
    boolean[] all = new boolean[ROWS];
    Arrays.fill(all, true);
    return all;
  }
}
