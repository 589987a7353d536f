package dev.segmentledger.benchmarks;

import dev.segmentledger.core.Axis;
import dev.segmentledger.core.LedgerItem;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Handle;

/**
 * Measure 2: the cost of one sweep round (the store reads of a round: {@code findDue} on each of
 * the three axes from cursor 0, 128 rows per page) in tables of growing size. Each table is
 * bulk-inserted into the real schema: mostly CONFIRMED rows, a fixed number of failing rows in
 * backoff (ghosts) and a fixed number of due rows, both spread evenly over the ids, so every table
 * yields the same page and only the number of confirmed rows grows. The plan's buffers come from
 * EXPLAIN (ANALYZE, BUFFERS) of the sweep query.
 */
final class SweepCostMeasure implements Measure {
  static final int PAGE = 128;
  static final int GHOSTS = 200;
  static final int DUE = 200;
  /**
   * The sweep page of jdbi-store's Queries.FIND_DUE (package-private there), with literals for the
   * parameters. MUST stay in sync with jdbi-store/src/main/java/dev/segmentledger/jdbi/Queries.java.
   */
  static final String FIND_DUE_SQL = "SELECT id, broadcast_id, axis, rendition, sequence, source_path, origin_path,"
      + " size_bytes, state, attempts, reason, last_error, registered_at, next_attempt_at, confirmed_at, checksum,"
      + " media_duration_micros FROM segment_ledger_item"
      + " WHERE axis = 'ORIGINAL' AND state = 'PENDING' AND COALESCE(storage_group, '') = '' AND id > 0"
      + " AND next_attempt_at <= now()"
      + " ORDER BY id LIMIT " + PAGE;

  /**
   * JdbiStateStore.BACKLOG with now() for its parameter, for the plan only (the timing calls the
   * store). MUST stay in sync with jdbi-store's backlog.sql (src/main/resources/dev/segmentledger/jdbi).
   */
  static final String BACKLOG_SQL = "SELECT axis, count(*) AS unconfirmed, min(registered_at) AS oldest,"
      + " count(*) FILTER (WHERE state = 'PENDING' AND next_attempt_at <= now()) AS due,"
      + " count(*) FILTER (WHERE state = 'PENDING' AND next_attempt_at > now() AND lease_until > now()) AS leased,"
      + " count(*) FILTER (WHERE state = 'PENDING' AND next_attempt_at > now()"
      + " AND (lease_until IS NULL OR lease_until <= now())) AS backoff,"
      + " count(*) FILTER (WHERE state = 'WAITING') AS waiting"
      + " FROM segment_ledger_item WHERE state IN ('PENDING', 'WAITING') GROUP BY axis";

  private static final Pattern BUFFERS = Pattern.compile("Buffers: shared((?: \\w+=\\d+)+)");
  private static final Pattern EXEC = Pattern.compile("Execution Time: ([0-9.]+) ms");

  @Override
  public String name() {
    return "sweep_cost";
  }

  @Override
  public List<BenchResult> run(BenchEnv env) throws Exception {
    // The goal is stated at 10M rows; --max-rows=N caps the tables (the short run, a small disk).
    int[] sizes = Arrays.stream(env.smoke() ? new int[] {1_000, 20_000} : new int[] {1_000, 100_000, 1_000_000,
        10_000_000}).filter(n -> n == 1_000 || n <= env.maxRows()).toArray();
    measure(env, sizes[0]); // warm-up: JIT and plan cache, not reported
    List<Round> rounds = new ArrayList<>();
    for (int size : sizes) {
      rounds.add(measure(env, size));
    }
    Round small = rounds.get(0);
    Round large = rounds.get(rounds.size() - 1);
    List<BenchResult> results = new ArrayList<>();
    for (Round r : rounds) {
      Map<String, Object> c = conditions(env, r);
      results.add(BenchResult.info("sweep_cost.round_ms." + r.rows, r.medianMillis, "ms",
          "median of " + r.samples + " rounds (findDue x 3 axes, cursor 0); EXPLAIN: " + r.buffers
              + " buffers, " + r.explainMillis + " ms execution", c));
    }
    // StateStore.backlog(now) (what Ledger.backlog() calls) on the same tables.
    for (Round r : rounds) {
      Map<String, Object> bc = conditions(env, r);
      bc.put("backlog_plan", r.backlogPlan);
      bc.put("backlog_p99_ms", r.backlogP99Millis);
      String note = "median of " + r.samples + " StateStore.backlog(now) calls (Ledger.backlog()) over " + r.rows
          + " rows, " + (r.ghosts + r.due) + " of them unconfirmed";
      if (r == large) {
        bc.put("issue_goal_rows", 10_000_000);
        results.add(BenchResult.atMost("backlog.query_ms." + r.rows, r.backlogMedianMillis, "ms", 5,
            r.rows < 10_000_000 ? note + " (table capped below the goal's 10M rows)" : note, bc));
      } else {
        results.add(BenchResult.info("backlog.query_ms." + r.rows, r.backlogMedianMillis, "ms", note, bc));
      }
    }
    Map<String, Object> c = conditions(env, large);
    c.put("sizes", Arrays.stream(sizes).boxed().toList());
    c.put("round_ms_by_size", rounds.stream().map(r -> r.medianMillis).toList());
    c.put("buffers_by_size", rounds.stream().map(r -> r.buffers).toList());
    results.add(BenchResult.atMost("sweep_cost.ratio_" + large.rows + "_to_" + small.rows,
        large.medianMillis / small.medianMillis, "x", 1.5,
        "round time at " + large.rows + " rows / at " + small.rows + " rows, same run", c));
    results.add(BenchResult.info("sweep_cost.buffers_ratio_" + large.rows + "_to_" + small.rows,
        (double) large.buffers / small.buffers, "x", "shared buffers (hit+read) of the ORIGINAL page query", c));
    return results;
  }

  private static Map<String, Object> conditions(BenchEnv env, Round r) {
    Map<String, Object> c = env.conditions();
    c.put("rows", r.rows);
    c.put("ghost_rows_in_backoff", r.ghosts);
    c.put("due_rows", r.due);
    c.put("confirmed_rows", r.rows - r.ghosts - r.due);
    c.put("page", PAGE);
    c.put("plan", r.plan);
    return c;
  }

  private static Round measure(BenchEnv env, int rows) throws Exception {
    try (BenchEnv.Database db = env.newDatabase("sweep", 2)) {
      long loadStart = System.nanoTime();
      db.jdbi().useHandle(h -> seed(h, rows));
      System.out.printf("[bench]   sweep_cost: %d rows loaded in %.1f s%n", rows, (System.nanoTime() - loadStart) / 1e9);
      long ghosts = db.count("state = 'PENDING' AND next_attempt_at > now()");
      long due = db.count("state = 'PENDING' AND next_attempt_at <= now()");
      int warmup = 50;
      int samples = env.size(100, 300);
      double[] millis = new double[samples];
      int read = 0;
      for (int i = -warmup; i < samples; i++) {
        Instant now = Instant.now();
        long start = System.nanoTime();
        for (Axis axis : Axis.values()) {
          List<LedgerItem> page = db.store().findDue(axis, 0, now, PAGE).rows();
          read += page.size();
        }
        if (i >= 0) {
          millis[i] = (System.nanoTime() - start) / 1e6;
        }
      }
      Arrays.sort(millis);
      double[] backlogMillis = new double[samples];
      for (int i = -warmup; i < samples; i++) {
        long start = System.nanoTime();
        db.store().backlog(Instant.now());
        if (i >= 0) {
          backlogMillis[i] = (System.nanoTime() - start) / 1e6;
        }
      }
      Arrays.sort(backlogMillis);
      List<String> backlogPlan = db.jdbi().withHandle(h -> h.createQuery("EXPLAIN (ANALYZE, BUFFERS) "
          + BACKLOG_SQL).mapTo(String.class).list());
      List<String> plan = db.jdbi().withHandle(h -> h.createQuery("EXPLAIN (ANALYZE, BUFFERS) " + FIND_DUE_SQL)
          .mapTo(String.class).list());
      // The 10M-row table takes gigabytes: closing the database drops its schema before the next round.
      return new Round(rows, ghosts, due, millis[samples / 2], samples, buffers(plan), explainMillis(plan),
          String.join(" / ", plan.stream().map(String::strip).toList()), read, backlogMillis[samples / 2],
          LatencyMeasure.percentile(backlogMillis, 0.99),
          String.join(" / ", backlogPlan.stream().map(String::strip).toList()));
    }
  }

  private static void seed(Handle h, int rows) {
    int dueStep = Math.max(1, rows / DUE);
    int ghostStep = Math.max(1, rows / GHOSTS);
    h.execute("INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence, source_path, size_bytes,"
        + " state, attempts, reason, last_error, registered_at, next_attempt_at, confirmed_at, checksum)"
        + " SELECT 'b' || (g / 10000), 'ORIGINAL', '720p', g, '/rec/b/' || g || '.ts', 1024,"
        + " CASE WHEN g % ? = 0 OR g % ? = 1 THEN 'PENDING' ELSE 'CONFIRMED' END,"
        + " CASE WHEN g % ? = 1 THEN 3 ELSE 0 END,"
        + " CASE WHEN g % ? = 1 THEN 'SINK_TRANSIENT' END,"
        + " CASE WHEN g % ? = 1 THEN 'connection reset' END,"
        + " now() - interval '2 days',"
        + " CASE WHEN g % ? = 1 THEN now() + interval '1 day' ELSE now() - interval '1 day' END,"
        + " CASE WHEN g % ? = 0 OR g % ? = 1 THEN NULL ELSE now() - interval '1 day' END,"
        + " CASE WHEN g % ? = 0 OR g % ? = 1 THEN NULL ELSE 'sha256:AAAA' END"
        + " FROM generate_series(1, ?) g",
        dueStep, ghostStep, ghostStep, ghostStep, ghostStep, ghostStep, dueStep, ghostStep, dueStep, ghostStep, rows);
    h.execute("VACUUM ANALYZE segment_ledger_item");
  }

  static long buffers(List<String> plan) {
    for (String line : plan) {
      Matcher m = BUFFERS.matcher(line);
      if (m.find()) {
        long sum = 0;
        for (String part : m.group(1).trim().split(" ")) {
          sum += Long.parseLong(part.substring(part.indexOf('=') + 1));
        }
        return sum;
      }
    }
    return -1;
  }

  private static double explainMillis(List<String> plan) {
    for (String line : plan) {
      Matcher m = EXEC.matcher(line);
      if (m.find()) {
        return Double.parseDouble(m.group(1));
      }
    }
    return Double.NaN;
  }

  private record Round(int rows, long ghosts, long due, double medianMillis, int samples, long buffers,
      double explainMillis, String plan, int read, double backlogMedianMillis, double backlogP99Millis,
      String backlogPlan) {}
}
