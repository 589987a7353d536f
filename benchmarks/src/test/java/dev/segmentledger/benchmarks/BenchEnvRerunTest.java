package dev.segmentledger.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Runs of the suite against a server of the user's own ({@code SEGMENT_LEDGER_BENCH_JDBC_URL}):
 * a second run never meets the schemas of the first, even of a first run stopped before it could
 * drop them (it used to fail with {@code schema "bench_latency_2" already exists}), and a run
 * leaves no schema of its own behind.
 */
class BenchEnvRerunTest {
  @Test
  void aSecondRunOnTheSameServerMakesSchemasOfItsOwnAndEachRunDropsWhatItMade() throws Exception {
    try (EmbeddedPostgres pg = EmbeddedPostgres.builder().start()) {
      String url = pg.getJdbcUrl("postgres", "postgres");
      BenchEnv stopped = BenchEnv.onServer(url, "postgres", null, true, Integer.MAX_VALUE);
      BenchEnv.Database left = stopped.newDatabase("latency", 2); // never closed: a run killed part way
      left.dataSource().close();
      try (BenchEnv again = BenchEnv.onServer(url, "postgres", null, true, Integer.MAX_VALUE)) {
        assertNotEquals(stopped.runTag(), again.runTag());
        try (BenchEnv.Database db = again.newDatabase("latency", 2)) {
          assertNotEquals(left.schema(), db.schema());
          assertEquals(0, db.count("true"), "a fresh ledger table");
          assertTrue(benchSchemas(url).contains(db.schema()));
        }
        assertEquals(List.of(left.schema()), benchSchemas(url), "the closed database's schema is dropped");
      }
      stopped.close();
    }
  }

  private static List<String> benchSchemas(String url) throws Exception {
    List<String> names = new ArrayList<>();
    try (Connection c = java.sql.DriverManager.getConnection(url, "postgres", null);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'bench\\_%' ORDER BY 1")) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    }
    return names;
  }
}
