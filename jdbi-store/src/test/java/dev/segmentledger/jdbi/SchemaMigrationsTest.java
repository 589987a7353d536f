package dev.segmentledger.jdbi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.segmentledger.testkit.PostgresExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SchemaMigrationsTest {
  @RegisterExtension
  static final PostgresExtension PG = PostgresExtension.create();

  private Jdbi jdbi;

  @BeforeEach
  void emptySchema() {
    jdbi = Jdbi.create(PG.dataSource());
    jdbi.useHandle(handle -> handle.execute("DROP TABLE IF EXISTS segment_ledger_item, segment_ledger_broadcast, segment_ledger_schema_version"));
  }

  @Test
  void migrateAppliesEveryVersionOnceAndRecordsIt() {
    assertEquals(List.of(1), SchemaMigrations.migrate(jdbi));
    assertEquals(List.of(), SchemaMigrations.migrate(jdbi), "second run is a no-op");

    assertEquals(List.of(SchemaMigrations.latestVersion()), jdbi.withHandle(handle -> handle
        .createQuery("SELECT version FROM segment_ledger_schema_version ORDER BY version").mapTo(Integer.class).list()));
    long rows = jdbi.withHandle(handle -> handle.createQuery("SELECT count(*) FROM segment_ledger_item")
        .mapTo(Long.class).one());
    assertEquals(0, rows);
  }

  @Test
  void tablesLandInTheCurrentSchema() {
    SchemaMigrations.migrate(jdbi);

    assertEquals(List.of(PG.schema(), PG.schema()), jdbi.withHandle(handle -> handle.createQuery(
            "SELECT table_schema FROM information_schema.tables"
                + " WHERE table_name IN ('segment_ledger_item', 'segment_ledger_schema_version')")
        .mapTo(String.class).list()));
  }

  @Test
  void concurrentMigrationsApplyEachVersionExactlyOnce() throws Exception {
    int callers = 2;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(callers);
    try {
      List<Future<List<Integer>>> results = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        results.add(threads.submit(() -> {
          start.await();
          return SchemaMigrations.migrate(jdbi);
        }));
      }
      start.countDown();
      List<Integer> applied = new ArrayList<>();
      for (Future<List<Integer>> result : results) {
        applied.addAll(result.get(60, TimeUnit.SECONDS));
      }
      assertEquals(List.of(1), applied, "one caller applied V1, the other found it applied");
    } finally {
      threads.shutdownNow();
    }
    assertTrue(SchemaMigrations.migrate(jdbi).isEmpty());
  }
}
