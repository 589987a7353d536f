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
}
