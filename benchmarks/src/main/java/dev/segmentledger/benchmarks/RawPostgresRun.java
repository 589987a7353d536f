package dev.segmentledger.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The floor the ledger is compared with: plain JDBC doing the least any durable ledger must do per
 * item, on the same table, pool and threads as the ledger's run. {@code inserters} threads insert
 * the rows in JDBC batches of {@value #BATCH} (one transaction per batch) and hand the new ids to
 * {@code updaters} threads, which mark them done with one conditional update per row
 * ({@code UPDATE ... SET state = 'CONFIRMED' WHERE id = ? AND state = 'PENDING'}), batched by
 * {@value #BATCH} in one transaction. No file is read, no sink called, no lease, no listener.
 */
final class RawPostgresRun {
  static final int BATCH = 100;
  static final String INSERT = "INSERT INTO segment_ledger_item (broadcast_id, axis, rendition, sequence,"
      + " source_path, size_bytes, state, registered_at, next_attempt_at) VALUES (?, 'ORIGINAL', '720p', ?, ?, ?,"
      + " 'PENDING', ?, ?)";
  static final String CONFIRM = "UPDATE segment_ledger_item SET state = 'CONFIRMED', confirmed_at = ?"
      + " WHERE id = ? AND state = 'PENDING'";

  private RawPostgresRun() {}

  /** Items per second from the first insert to the last committed update. */
  static double run(DataSource dataSource, String broadcastId, int items, String sourcePath, long size,
      int inserters, int updaters) throws Exception {
    BlockingQueue<long[]> handOff = new ArrayBlockingQueue<>(Math.max(1, items / BATCH + updaters));
    AtomicInteger names = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(inserters + updaters,
        r -> new Thread(r, "bench-raw-" + names.incrementAndGet()));
    long start = System.nanoTime();
    try {
      List<Future<?>> insertsDone = new ArrayList<>();
      for (int t = 0; t < inserters; t++) {
        int first = t * BATCH;
        insertsDone.add(pool.submit(() -> {
          try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement insert = c.prepareStatement(INSERT, new String[] {"id"})) {
              for (int from = first; from < items; from += inserters * BATCH) {
                int to = Math.min(from + BATCH, items);
                Timestamp now = Timestamp.from(Instant.now());
                for (int i = from; i < to; i++) {
                  insert.setString(1, broadcastId);
                  insert.setLong(2, i);
                  insert.setString(3, sourcePath);
                  insert.setLong(4, size);
                  insert.setTimestamp(5, now);
                  insert.setTimestamp(6, now);
                  insert.addBatch();
                }
                insert.executeBatch();
                long[] ids = new long[to - from];
                try (ResultSet keys = insert.getGeneratedKeys()) {
                  for (int k = 0; keys.next(); k++) {
                    ids[k] = keys.getLong(1);
                  }
                }
                c.commit();
                handOff.put(ids);
              }
            }
          }
          return null;
        }));
      }
      List<Future<?>> updatesDone = new ArrayList<>();
      for (int t = 0; t < updaters; t++) {
        updatesDone.add(pool.submit(() -> {
          try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement confirm = c.prepareStatement(CONFIRM)) {
              for (long[] ids = handOff.take(); ids.length > 0; ids = handOff.take()) {
                Timestamp now = Timestamp.from(Instant.now());
                for (long id : ids) {
                  confirm.setTimestamp(1, now);
                  confirm.setLong(2, id);
                  confirm.addBatch();
                }
                confirm.executeBatch();
                c.commit();
              }
            }
          }
          return null;
        }));
      }
      for (Future<?> f : insertsDone) {
        f.get();
      }
      for (int t = 0; t < updaters; t++) {
        handOff.put(new long[0]); // one end marker per updater
      }
      for (Future<?> f : updatesDone) {
        f.get();
      }
      return items * 1e9 / (System.nanoTime() - start);
    } finally {
      pool.shutdownNow();
    }
  }
}
