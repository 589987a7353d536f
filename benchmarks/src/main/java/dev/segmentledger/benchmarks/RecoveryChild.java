package dev.segmentledger.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.core.LedgerItem;
import dev.segmentledger.core.LedgerListener;
import dev.segmentledger.jdbi.JdbiStateStore;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Jdbi;

/**
 * The processes of the recovery measure: a started ledger with the recovery measure's settings on
 * the given schema, reading every file (DiscardingSink). Prints, each with the wall-clock instant
 * in epoch milliseconds: {@code JVM_START <ms>} (the JVM's own start time), {@code STARTED <ms>}
 * (right after {@code Ledger.start()} returned), {@code FIRST_CONFIRM <ms>} at the first
 * {@code onConfirmed}, and {@code ALL_CONFIRMED <ms>} once {@code expected} items are confirmed
 * (never, for {@code expected} 0), followed by {@code JIT_MS <ms>}, the time its JIT compilers had
 * taken by then. Then works until it is killed.
 *
 * <p>Arguments: JDBC URL (schema selected), user, password ({@code ""} for none), allowed root,
 * expected confirms.
 */
public final class RecoveryChild {
  private RecoveryChild() {}

  public static void main(String[] args) throws InterruptedException {
    System.out.println("JVM_START " + ManagementFactory.getRuntimeMXBean().getStartTime());
    long expected = Long.parseLong(args[4]);
    AtomicLong confirmed = new AtomicLong();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[0]);
    config.setUsername(args[1].isEmpty() ? null : args[1]);
    config.setPassword(args[2].isEmpty() ? null : args[2]);
    config.setMaximumPoolSize(RecoveryMeasure.POOL);
    HikariDataSource dataSource = new HikariDataSource(config);
    Ledger ledger = RecoveryMeasure.ledger(JdbiStateStore.create(Jdbi.create(dataSource)), new DiscardingSink(),
        Path.of(args[3])).listener(new LedgerListener() {
          @Override
          public void onConfirmed(LedgerItem item) {
            long n = confirmed.incrementAndGet();
            if (n == 1) {
              System.out.println("FIRST_CONFIRM " + System.currentTimeMillis());
            }
            if (n == expected) {
              System.out.println("ALL_CONFIRMED " + System.currentTimeMillis());
              System.out.println("JIT_MS " + ManagementFactory.getCompilationMXBean().getTotalCompilationTime());
            }
          }
        }).build();
    ledger.start();
    System.out.println("STARTED " + System.currentTimeMillis());
    Thread.currentThread().join();
  }
}
