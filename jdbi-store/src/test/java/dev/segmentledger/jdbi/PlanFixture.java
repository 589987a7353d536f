package dev.segmentledger.jdbi;

import java.util.function.UnaryOperator;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.Query;

/** What the plan tests share: the plan PostgreSQL chooses for a statement of the store, as the store binds it. */
final class PlanFixture {
  private PlanFixture() {}

  /** The {@code EXPLAIN} of {@code sql} with the values {@code binds} binds, one line per plan node line. */
  static String explain(Jdbi jdbi, String sql, UnaryOperator<Query> binds) {
    return jdbi.withHandle(handle -> String.join("\n", binds.apply(handle.createQuery("EXPLAIN " + sql))
        .mapTo(String.class).list()));
  }

  /** The store on {@code jdbi}, migrated, with its item, playlist and part tables emptied for a test's seed. */
  static JdbiStateStore emptyStore(Jdbi jdbi) {
    JdbiStateStore store = JdbiStateStore.create(jdbi).migrate();
    jdbi.useHandle(handle ->
        handle.execute("TRUNCATE segment_ledger_item, segment_ledger_playlist, segment_ledger_playlist_part"));
    return store;
  }
}
