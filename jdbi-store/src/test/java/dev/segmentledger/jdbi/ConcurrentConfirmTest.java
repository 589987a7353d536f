package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.Axis;
import dev.segmentledger.core.ItemId;
import dev.segmentledger.core.ItemState;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.spi.Confirmation;
import dev.segmentledger.core.spi.NewItem;
import dev.segmentledger.testkit.PostgresExtension;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Several confirmers racing over the same 1,000 rows: every row is confirmed exactly once. */
class ConcurrentConfirmTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private static final int ROWS = 1_000;
  private static final int CONFIRMERS = 3;
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void everyRowIsConfirmedByExactlyOneOfTheRacingConfirmers() throws Exception {
    HikariConfig pool = new HikariConfig();
    pool.setDataSource(PG.dataSource());
    pool.setMaximumPoolSize(CONFIRMERS + 1);
    try (HikariDataSource dataSource = new HikariDataSource(pool)) {
      race(JdbiStateStore.create(Jdbi.create(dataSource)).migrate());
    }
  }

  private static void race(JdbiStateStore store) throws Exception {
    List<LedgerItem> rows = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      ItemId id = ItemId.original("load", "720p", i);
      rows.add(store.register(NewItem.pending(id, "/rec/" + i + ".ts", 1000 + i, T0)).item());
    }
    assertEquals(ROWS, store.findDue(Axis.ORIGINAL, 0, T0, 2 * ROWS).rows().size());

    CountDownLatch start = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(CONFIRMERS);
    int wins = 0;
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int c = 0; c < CONFIRMERS; c++) {
        List<LedgerItem> order = new ArrayList<>(rows);
        Collections.shuffle(order, new Random(c));
        String checksum = "confirmer-" + c;
        results.add(threads.submit(() -> {
          start.await();
          int confirmed = 0;
          for (LedgerItem row : order) {
            confirmed += store.confirm(new Confirmation(row.rowId(), row.id(),
                ItemState.PENDING, row.sizeBytes(), checksum, T0)) ? 1 : 0;
          }
          return confirmed;
        }));
      }
      start.countDown();
      for (Future<Integer> result : results) {
        wins += result.get(120, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }

    assertEquals(ROWS, wins, "each row confirmed by exactly one confirmer");
    assertEquals(ROWS, store.count(Axis.ORIGINAL, ItemState.CONFIRMED));
    assertEquals(0, store.count(Axis.ORIGINAL, ItemState.PENDING));
    assertTrue(store.findDue(Axis.ORIGINAL, 0, T0, ROWS).rows().isEmpty());
    assertTrue(store.findByBroadcast("load").stream().allMatch(row -> row.checksum().startsWith("confirmer-")));
  }
}
