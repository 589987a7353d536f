package dev.segmentledger.it;

import com.zaxxer.hikari.HikariDataSource;
import dev.segmentledger.jdbi.JdbiStateStore;
import dev.segmentledger.testkit.PostgresExtension;
import org.jdbi.v3.core.Jdbi;

/**
 * A migrated {@link JdbiStateStore} on a pool of connections to a test class's schema
 * ({@link Wiring#pool}), as a production host wires it, with the {@link Jdbi} under it for the
 * test's own SQL. Made before the class's first test; closing it closes the pool.
 */
record PooledStore(HikariDataSource pool, Jdbi jdbi, JdbiStateStore store) implements AutoCloseable {
  /** A pool of {@code size} connections to {@code pg}'s schema and the store on it, migrated. */
  static PooledStore migrated(PostgresExtension pg, int size) {
    HikariDataSource pool = Wiring.pool(pg.jdbcUrl(), pg.user(), pg.password(), size);
    Jdbi jdbi = Jdbi.create(pool);
    return new PooledStore(pool, jdbi, JdbiStateStore.create(jdbi).migrate());
  }

  @Override
  public void close() {
    pool.close();
  }
}
