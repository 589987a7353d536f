package dev.segmentledger.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.core.Ledger;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.DirectoryObjectSink;
import java.nio.file.Path;
import org.jdbi.v3.core.Jdbi;

/**
 * The process that is killed in the recovery measure: a started ledger with the recovery
 * measure's settings on the given schema, uploading to a directory sink. Prints {@code STARTED}
 * and then works until it is killed.
 *
 * <p>Arguments: JDBC URL (schema selected), user, password ({@code ""} for none), allowed root,
 * sink directory, queue capacity.
 */
public final class RecoveryChild {
  private RecoveryChild() {}

  public static void main(String[] args) throws InterruptedException {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(args[0]);
    config.setUsername(args[1].isEmpty() ? null : args[1]);
    config.setPassword(args[2].isEmpty() ? null : args[2]);
    config.setMaximumPoolSize(RecoveryMeasure.POOL);
    HikariDataSource dataSource = new HikariDataSource(config);
    Ledger ledger = RecoveryMeasure.ledger(JdbiStateStore.create(Jdbi.create(dataSource)),
        new DirectoryObjectSink(Path.of(args[4])), Path.of(args[3]), Integer.parseInt(args[5])).build();
    ledger.start();
    System.out.println("STARTED");
    Thread.currentThread().join();
  }
}
